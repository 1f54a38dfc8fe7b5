package crd_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// relaxed lists the schema paths where Sluice is deliberately stricter than
// Fluid's published schema, each with the reason. Every other difference that
// could reject or prune a field of a Fluid manifest fails the test.
var relaxed = map[string]string{
	// CEL rules must have a bounded cost: the apiserver refuses a CRD whose
	// rules could run over unbounded strings. 4096 characters is far above
	// any real value of these fields.
	"spec.tieredstore.levels":             "maxItems 8 bounds the cost of the per-level CEL rules",
	"spec.tieredstore.levels[].path":      "maxLength bounds the cost of the quotaList/path CEL rule",
	"spec.tieredstore.levels[].quotaList": "maxLength bounds the cost of the quotaList/path CEL rule",
	"spec.tieredstore.levels[].high":      "maxLength bounds the cost of the high/low CEL rules",
	"spec.tieredstore.levels[].low":       "maxLength bounds the cost of the high/low CEL rules",
	"spec.mounts":                         "maxItems 128 bounds the cost of the non-blank mountPoint CEL rule",
	"status.mounts":                       "maxItems 128 bounds the cost of the non-blank mountPoint CEL rule",
	"spec.mounts[].mountPoint":            "maxLength bounds the cost of the non-blank mountPoint CEL rule",
	"status.mounts[].mountPoint":          "maxLength bounds the cost of the non-blank mountPoint CEL rule",
}

// patternRelaxed lists paths whose pattern differs from Fluid's because
// Sluice's accepts a superset of Fluid's values.
var patternRelaxed = map[string]string{
	"spec.tieredstore.levels[].quotaList": "also accepts a single entry and entries without a unit suffix",
}

// coreDrift lists differences inside embedded Kubernetes core types, where
// Sluice carries the types of the Kubernetes release it is built with and
// Fluid's snapshot an older one. The API server itself rejects or drops these
// values in Pods, so no working Fluid manifest depends on them.
var coreDrift = map[string]string{
	"spec.processor.job.podSpec.hostAliases[]":           "PodSpec.hostAliases[].ip is required in the schema of the Kubernetes release Sluice builds with",
	"spec.processor.job.podSpec.resourceClaims[].source": "PodResourceClaim.source is no longer part of Kubernetes' PodSpec",
	// CacheRuntimeClass's pod templates (a refused kind).
	"topology.master.template.spec.hostAliases[]":           "PodSpec.hostAliases[].ip is required in the schema of the Kubernetes release Sluice builds with",
	"topology.worker.template.spec.hostAliases[]":           "PodSpec.hostAliases[].ip is required in the schema of the Kubernetes release Sluice builds with",
	"topology.client.template.spec.hostAliases[]":           "PodSpec.hostAliases[].ip is required in the schema of the Kubernetes release Sluice builds with",
	"topology.master.template.spec.resourceClaims[].source": "PodResourceClaim.source is no longer part of Kubernetes' PodSpec",
	"topology.worker.template.spec.resourceClaims[].source": "PodResourceClaim.source is no longer part of Kubernetes' PodSpec",
	"topology.client.template.spec.resourceClaims[].source": "PodResourceClaim.source is no longer part of Kubernetes' PodSpec",
}

// lookupFluidCRDDir finds Fluid's published CRDs: $SLUICE_FLUID_CRDS, else
// shared/reference/fluid-crds beside the repository (where CI puts shared/).
func lookupFluidCRDDir() (string, error) {
	candidates := []string{os.Getenv("SLUICE_FLUID_CRDS")}
	if candidates[0] == "" {
		candidates = []string{
			filepath.Join(testenv.RepoRoot(), "..", "shared", "reference", "fluid-crds"),
			filepath.Join("/work", "shared", "reference", "fluid-crds"),
		}
	}
	for _, dir := range candidates {
		if _, err := os.Stat(filepath.Join(dir, "data.fluid.io_datasets.yaml")); err == nil {
			return dir, nil
		}
	}
	return "", fmt.Errorf("Fluid's reference CRDs not found in %v (set SLUICE_FLUID_CRDS)", candidates)
}

// fluidCRDDir is lookupFluidCRDDir for tests that cannot run without the
// reference CRDs: they skip outside CI and fail in CI.
func fluidCRDDir(t *testing.T) string {
	t.Helper()
	dir, err := lookupFluidCRDDir()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return dir
}

// ourCRD is Sluice's generated CRD of kind.
func ourCRD(t *testing.T, kind string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(testenv.RepoRoot(), "config", "crd", "bases", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if crd := readCRD(t, f); crd.Spec.Names.Kind == kind {
			return crd
		}
	}
	t.Fatalf("no CRD of %s in config/crd/bases", kind)
	return nil
}

func readCRD(t *testing.T, path string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(data, crd); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return crd
}

// refusedCRDDir holds Fluid's published CRDs of the kinds Sluice serves but
// refuses (datav1alpha1.RefusedKinds), kept in the repository: the
// reference directory holds the ten kinds Sluice runs.
const refusedCRDDir = "testdata/fluid-crds"

// fluidCRDFiles are Fluid's published CRDs: the ten of the reference
// directory and the refused kinds' of refusedCRDDir.
func fluidCRDFiles(t *testing.T, fluidDir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(fluidDir, "*.yaml"))
	if err != nil || len(files) != 10 {
		t.Errorf("expected Fluid's 10 CRDs in %s, found %d (%v)", fluidDir, len(files), err)
	}
	refused, err := filepath.Glob(filepath.Join(refusedCRDDir, "*.yaml"))
	if err != nil || len(refused) != len(datav1alpha1.RefusedKinds()) {
		t.Errorf("expected %d CRDs of refused kinds in %s, found %d (%v)", len(datav1alpha1.RefusedKinds()), refusedCRDDir, len(refused), err)
	}
	return append(files, refused...)
}

// TestSchemasAcceptEveryFluidField walks every property of Fluid's published
// schemas and checks that Sluice's generated CRD serves it with a compatible
// type and no stricter validation, so no field of a Fluid manifest is pruned
// or rejected (by the schema: a refused kind's one rule refuses them all,
// and says so, which TestRefusedKindsRule checks).
func TestSchemasAcceptEveryFluidField(t *testing.T) {
	files := fluidCRDFiles(t, fluidCRDDir(t))
	kinds := map[string]bool{}
	for _, f := range files {
		fluid := readCRD(t, f)
		kinds[fluid.Spec.Names.Kind] = true
		t.Run(fluid.Spec.Names.Kind, func(t *testing.T) {
			ours := readCRD(t, filepath.Join(testenv.RepoRoot(), "config", "crd", "bases", filepath.Base(f)))
			compareNames(t, fluid, ours)
			fv, ov := fluid.Spec.Versions[0], ours.Spec.Versions[0]
			if fv.Name != ov.Name || !ov.Served || !ov.Storage {
				t.Errorf("version: Fluid serves %s, Sluice %s (served=%v storage=%v)", fv.Name, ov.Name, ov.Served, ov.Storage)
			}
			compareSubresources(t, fv.Subresources, ov.Subresources)
			compareColumns(t, fv.AdditionalPrinterColumns, ov.AdditionalPrinterColumns)
			var problems []string
			walk("", fv.Schema.OpenAPIV3Schema, ov.Schema.OpenAPIV3Schema, &problems)
			for _, p := range problems {
				t.Error(p)
			}
		})
	}
	for _, kind := range datav1alpha1.RefusedKinds() {
		if !kinds[kind] {
			t.Errorf("no Fluid CRD of the refused kind %s in %s", kind, refusedCRDDir)
		}
	}
}

// TestRefusedKindsRule: the CRD of each refused kind carries, at the top of
// its schema, exactly one rule, and it says datav1alpha1.RefusedMessage (a
// marker cannot name the Go function, so this is where a stale message,
// e.g. one missing a new runtime kind, is caught). The real API server's
// answer to it is TestRefusedKinds's.
func TestRefusedKindsRule(t *testing.T) {
	for _, kind := range datav1alpha1.RefusedKinds() {
		crd := ourCRD(t, kind)
		rules := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.XValidations
		if len(rules) != 1 || rules[0].Message != datav1alpha1.RefusedMessage(kind) || rules[0].OptionalOldSelf == nil || !*rules[0].OptionalOldSelf {
			t.Errorf("%s: want one rule at the top of the schema, run on create (optionalOldSelf), with message %q; have %+v", kind, datav1alpha1.RefusedMessage(kind), rules)
		}
	}
}

func compareNames(t *testing.T, fluid, ours *apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	if fluid.Name != ours.Name || fluid.Spec.Group != ours.Spec.Group || fluid.Spec.Scope != ours.Spec.Scope {
		t.Errorf("identity: Fluid %s/%s/%s, Sluice %s/%s/%s", fluid.Name, fluid.Spec.Group, fluid.Spec.Scope, ours.Name, ours.Spec.Group, ours.Spec.Scope)
	}
	fn, on := fluid.Spec.Names, ours.Spec.Names
	if fn.Kind != on.Kind || fn.ListKind != on.ListKind || fn.Plural != on.Plural || fn.Singular != on.Singular {
		t.Errorf("names: Fluid %+v, Sluice %+v", fn, on)
	}
	for _, s := range fn.ShortNames {
		if !slices.Contains(on.ShortNames, s) {
			t.Errorf("short name %q missing", s)
		}
	}
	for _, c := range fn.Categories {
		if !slices.Contains(on.Categories, c) {
			t.Errorf("category %q missing", c)
		}
	}
}

func compareSubresources(t *testing.T, fluid, ours *apiextensionsv1.CustomResourceSubresources) {
	t.Helper()
	if fluid == nil {
		return
	}
	if ours == nil {
		t.Fatal("no subresources")
	}
	if fluid.Status != nil && ours.Status == nil {
		t.Error("status subresource missing")
	}
	if fluid.Scale != nil {
		if ours.Scale == nil {
			t.Fatal("scale subresource missing")
		}
		if fluid.Scale.SpecReplicasPath != ours.Scale.SpecReplicasPath || fluid.Scale.StatusReplicasPath != ours.Scale.StatusReplicasPath {
			t.Errorf("scale: Fluid %+v, Sluice %+v", *fluid.Scale, *ours.Scale)
		}
		if fluid.Scale.LabelSelectorPath != nil && (ours.Scale.LabelSelectorPath == nil || *ours.Scale.LabelSelectorPath != *fluid.Scale.LabelSelectorPath) {
			t.Errorf("scale selector path: Fluid %s, Sluice %v", *fluid.Scale.LabelSelectorPath, ours.Scale.LabelSelectorPath)
		}
	}
}

func compareColumns(t *testing.T, fluid, ours []apiextensionsv1.CustomResourceColumnDefinition) {
	t.Helper()
	for _, fc := range fluid {
		i := slices.IndexFunc(ours, func(c apiextensionsv1.CustomResourceColumnDefinition) bool { return c.Name == fc.Name })
		if i < 0 {
			t.Errorf("printer column %q missing", fc.Name)
			continue
		}
		oc := ours[i]
		if oc.JSONPath != fc.JSONPath || oc.Type != fc.Type || oc.Priority != fc.Priority {
			t.Errorf("printer column %q: Fluid %s %s p%d, Sluice %s %s p%d", fc.Name, fc.JSONPath, fc.Type, fc.Priority, oc.JSONPath, oc.Type, oc.Priority)
		}
	}
}

// walk compares Fluid's schema node f with Sluice's node o at path.
func walk(path string, f, o *apiextensionsv1.JSONSchemaProps, problems *[]string) {
	bad := func(format string, args ...any) {
		*problems = append(*problems, fmt.Sprintf("%s: %s", displayPath(path), fmt.Sprintf(format, args...)))
	}
	if coreDrift[path] != "" {
		return
	}
	if o == nil {
		bad("missing in Sluice's schema (a Fluid manifest's field would be pruned)")
		return
	}
	// Sluice uses metav1.Condition for conditions (Cluster API convention);
	// status is written only by Sluice's controllers.
	if strings.HasPrefix(path, "status.conditions") {
		if o.Type != "array" {
			bad("conditions must be a list")
		}
		return
	}
	if f.Type != o.Type {
		bad("type %q in Fluid, %q in Sluice", f.Type, o.Type)
	}
	if f.XIntOrString != o.XIntOrString {
		bad("int-or-string %v in Fluid, %v in Sluice", f.XIntOrString, o.XIntOrString)
	}
	if f.XPreserveUnknownFields != nil && *f.XPreserveUnknownFields && (o.XPreserveUnknownFields == nil || !*o.XPreserveUnknownFields) {
		bad("Fluid preserves unknown fields, Sluice does not")
	}
	if f.Format != o.Format && !(f.Format == "" && o.Format != "" && isNumeric(o.Type)) {
		bad("format %q in Fluid, %q in Sluice", f.Format, o.Format)
	}
	compareEnum(f, o, bad)
	// A default Sluice adds (newer Kubernetes core types carry more of them)
	// neither rejects nor prunes anything; a Fluid default must be kept.
	if f.Default != nil && jsonValue(f.Default) != jsonValue(o.Default) {
		bad("default %s in Fluid, %s in Sluice", jsonValue(f.Default), jsonValue(o.Default))
	}
	if o.Pattern != "" && o.Pattern != f.Pattern && patternRelaxed[path] == "" {
		bad("pattern %q in Sluice, %q in Fluid", o.Pattern, f.Pattern)
	}
	if relaxed[path] == "" {
		compareBounds(f, o, bad)
	}
	for _, r := range o.Required {
		if !slices.Contains(f.Required, r) {
			bad("Sluice requires %q, Fluid does not", r)
		}
	}
	for _, name := range sortedKeys(f.Properties) {
		fp := f.Properties[name]
		op, ok := o.Properties[name]
		var opp *apiextensionsv1.JSONSchemaProps
		if ok {
			opp = &op
		}
		walk(join(path, name), &fp, opp, problems)
	}
	if f.Items != nil && f.Items.Schema != nil {
		if o.Items == nil || o.Items.Schema == nil {
			bad("list items missing")
		} else {
			walk(path+"[]", f.Items.Schema, o.Items.Schema, problems)
		}
	}
	if f.AdditionalProperties != nil && f.AdditionalProperties.Schema != nil {
		if o.AdditionalProperties == nil || o.AdditionalProperties.Schema == nil {
			bad("map values missing")
		} else {
			walk(path+"{}", f.AdditionalProperties.Schema, o.AdditionalProperties.Schema, problems)
		}
	}
}

func compareEnum(f, o *apiextensionsv1.JSONSchemaProps, bad func(string, ...any)) {
	if len(o.Enum) == 0 {
		return
	}
	if len(f.Enum) == 0 {
		bad("Sluice restricts to an enum, Fluid does not")
		return
	}
	for _, fe := range f.Enum {
		if !slices.ContainsFunc(o.Enum, func(oe apiextensionsv1.JSON) bool { return string(oe.Raw) == string(fe.Raw) }) {
			bad("enum value %s accepted by Fluid, not by Sluice", fe.Raw)
		}
	}
}

func compareBounds(f, o *apiextensionsv1.JSONSchemaProps, bad func(string, ...any)) {
	type bound struct {
		name       string
		fluid, our *int64
		lower      bool // a lower bound: Sluice's must not be higher
	}
	for _, b := range []bound{
		{"minLength", f.MinLength, o.MinLength, true},
		{"minItems", f.MinItems, o.MinItems, true},
		{"minProperties", f.MinProperties, o.MinProperties, true},
		{"maxLength", f.MaxLength, o.MaxLength, false},
		{"maxItems", f.MaxItems, o.MaxItems, false},
		{"maxProperties", f.MaxProperties, o.MaxProperties, false},
	} {
		switch {
		case b.our == nil:
		case b.fluid == nil && (!b.lower || *b.our > 0):
			bad("Sluice sets %s=%d, Fluid has none", b.name, *b.our)
		case b.fluid != nil && b.lower && *b.our > *b.fluid:
			bad("%s %d in Sluice, %d in Fluid", b.name, *b.our, *b.fluid)
		case b.fluid != nil && !b.lower && *b.our < *b.fluid:
			bad("%s %d in Sluice, %d in Fluid", b.name, *b.our, *b.fluid)
		}
	}
	if o.Minimum != nil && (f.Minimum == nil || *o.Minimum > *f.Minimum) {
		bad("minimum %v in Sluice, %v in Fluid", *o.Minimum, f.Minimum)
	}
	if o.Maximum != nil && (f.Maximum == nil || *o.Maximum < *f.Maximum) {
		bad("maximum %v in Sluice, %v in Fluid", *o.Maximum, f.Maximum)
	}
}

func isNumeric(t string) bool { return t == "integer" || t == "number" }

func jsonValue(j *apiextensionsv1.JSON) string {
	if j == nil {
		return ""
	}
	return string(j.Raw)
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func displayPath(path string) string {
	if path == "" {
		return "(root)"
	}
	return path
}

func sortedKeys(m map[string]apiextensionsv1.JSONSchemaProps) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
