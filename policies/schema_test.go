package policies_test

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/sluice-data/sluice/policies"
)

// validate checks one data file, decoded as ParseData decodes it.
func validate(t *testing.T, doc string) error {
	t.Helper()
	var data map[string]any
	if err := yaml.Unmarshal([]byte(doc), &data); err != nil {
		t.Fatal(err)
	}
	return policies.ValidateData(data)
}

// The embedded defaults and every install profile fit the schema: the
// webhook would refuse them from a ConfigMap otherwise.
func TestTheDefaultsAndProfilesFitTheSchema(t *testing.T) {
	data, err := policies.FS.ReadFile(policies.DataFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := validate(t, string(data)); err != nil {
		t.Errorf("%s: %v", policies.DataFile, err)
	}
	for _, name := range policies.Profiles() {
		over, err := policies.Profile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := policies.ValidateData(over); err != nil {
			t.Errorf("profile %s: %v", name, err)
		}
		merged, err := policies.DefaultData(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := policies.ValidateData(merged); err != nil {
			t.Errorf("the defaults with profile %s: %v", name, err)
		}
	}
}

func TestValidateDataRejectsWhatDoesNotFitNamingItsPath(t *testing.T) {
	tests := []struct {
		name string
		data string   // one data file
		want []string // in the error, each
	}{
		{"an unknown top-level key", "mutate: {}",
			[]string{"mutate: unknown key (the keys here are custom, enforcement, mutating, validating)"}},
		{"a misspelt key", "mutating: {affinity: {allDatasetPod: true}}",
			[]string{"mutating.affinity.allDatasetPod: unknown key (the keys here are allDatasetPods, preferred, requireFuseNodes, required)"}},
		{"a wrong type", "mutating: {affinity: {allDatasetPods: \"yes\"}}",
			[]string{"mutating.affinity.allDatasetPods: got string, want boolean"}},
		{"a section emptied by a key without a value", "validating:\n",
			[]string{"validating: got null, want object"}},
		{"a namespace's guards: list and element", "validating: {guards: {team-a: {localPaths: /data, imagePrefixes: [1]}}}",
			[]string{`validating.guards["team-a"].localPaths: got string, want array`, `validating.guards["team-a"].imagePrefixes[0]: got number, want string`}},
		{"a misspelt guard list", `validating: {guards: {"*": {localPath: [/data]}}}`,
			[]string{`validating.guards["*"].localPath: unknown key`}},
		{"a relative path", "validating: {guards: {team-a: {tieredstorePaths: [data]}}}",
			[]string{`validating.guards["team-a"].tieredstorePaths[0]: 'data' does not match pattern '^/'`}},
		{"a pattern that does not compile", `validating: {guards: {"*": {envNames: ["JFS_("]}}}`,
			[]string{`validating.guards["*"].envNames[0]: 'JFS_(' is not valid regex`}},
		{"an unknown sidecar mode", "mutating: {sidecar: {mode: sidecar}}",
			[]string{`mutating.sidecar.mode: value must be one of 'auto', 'native', 'container'`}},
		{"a quantity that is none", "mutating: {sidecar: {resources: {limits: {memory: 2GB, cpu: true}}}}",
			[]string{`mutating.sidecar.resources.limits.memory: "2GB" is not a quantity such as 2Gi, 500m or 4`, "mutating.sidecar.resources.limits.cpu: got boolean, want number or string"}},
		{"an affinity tier without its weight, and one out of range", "mutating: {affinity: {preferred: [{name: a}, {name: b, weight: 101}]}}",
			[]string{"mutating.affinity.preferred[0]: missing property 'weight'", "mutating.affinity.preferred[1].weight: maximum: got 101, want 100"}},
		{"a budget's medium and sizes", "validating: {budgets: {team-a: {Mem: 8Gi, SSD: 1024, HDD: 2 TB}}}",
			[]string{`validating.budgets["team-a"].Mem: unknown key (the keys here are HDD, MEM, SSD)`, `validating.budgets["team-a"].SSD: got number, want string`,
				`validating.budgets["team-a"].HDD: "2 TB" is not a byte size such as 64Gi or 500GB`}},
		{"an operation kind", "validating: {operations: {conflicts: {DataLoad: [Dataload]}, engines: {DataLaod: [thin]}}}",
			[]string{"validating.operations.conflicts.DataLoad[0]: value must be one of", "validating.operations.engines.DataLaod: unknown key"}},
		{"an enforcement mode and an expiry", `enforcement: {rules: {image-registry: {mode: audit}}, exceptions: {legacy: {rules: [image-registry], expires: next week}}}`,
			[]string{`enforcement.rules["image-registry"].mode: value must be one of 'deny', 'warn', 'dryrun', 'apply'`,
				"enforcement.exceptions.legacy.expires: 'next week' is not valid date-time"}},
		{"a cross-namespace rule without its dataset", `mutating: {crossNamespace: {allow: [{podNamespace: "*", datasetNamespace: shared}]}}`,
			[]string{"mutating.crossNamespace.allow[0]: missing property 'dataset'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := validate(t, tt.data)
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.HasPrefix(err.Error(), "does not fit the policy data schema (policies/data.schema.json): ") {
				t.Errorf("error %q does not name the schema first", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nwant it to contain %q", err, w)
				}
			}
		})
	}
}

func TestValidateDataAdmitsWhatFits(t *testing.T) {
	for _, data := range []string{
		"",
		"mutating: {sidecar: {resources: {limits: {memory: 2Gi, cpu: 2}, requests: {cpu: 500m}}, env: {HTTPS_PROXY: \"http://proxy:3128\"}}}",
		`validating: {guards: {"*": {imagePrefixes: [registry.example.com/]}, team-a: {localPaths: [/data/team-a]}}}`,
		"validating: {budgets: {team-a: {MEM: 8Gi, SSD: 2TiB, HDD: \"1000\"}}, mountSchemes: {\"*\": [s3, pvc]}}",
		"mutating: {platforms: {edge: {unprivileged: true, args: {cache-size: {env: FUSE_CACHE_SIZE}}}}}",
		// Platform modules' own data: anything under custom.
		"custom: {deniedDatasets: {contractors: [shared/customer-pii]}, anything: [1, {x: null}]}",
	} {
		if err := validate(t, data); err != nil {
			t.Errorf("%s: %v", data, err)
		}
	}
}
