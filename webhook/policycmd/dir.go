package policycmd

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	"github.com/sluice-data/sluice/webhook/policy"
)

// testdataDir holds a policy directory's fixture cases; it is never read
// as policy.
const testdataDir = "testdata"

// policyDir is a directory of policy files as `--policies` and `policy
// test` read it: Rego modules (*.rego), their tests (*_test.rego) and
// policy data (*.yaml, *.yml, *.json) at any depth, named by their
// slash-separated path in the directory (mutating/affinity.rego replaces
// that default module), except under testdata/. A YAML file holding
// Kubernetes objects is not policy data: policy ConfigMaps (label
// policy.sluice.io/bundle=true) are the manifests that deploy the
// directory, which `policy test` checks against its files; any other
// object is an error.
type policyDir struct {
	path string
	// files are the policy files by ID, ids their IDs in lexical order
	// (the order the data files are merged in, as a ConfigMap's keys).
	files map[string]string
	ids   []string
	// configMaps are the policy ConfigMaps found, by file path.
	configMaps map[string][]*corev1.ConfigMap
}

func readPolicyDir(dir string) (*policyDir, error) {
	d := &policyDir{path: dir, files: map[string]string{}, configMaps: map[string][]*corev1.ConfigMap{}}
	fsys := os.DirFS(dir)
	err := fs.WalkDir(fsys, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if e.Name() == testdataDir {
				return fs.SkipDir
			}
			return nil
		}
		if !isPolicyFile(p) {
			return nil
		}
		content, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		if path.Ext(p) != ".rego" {
			cms, manifest, err := policyConfigMaps(content)
			if err != nil {
				return fmt.Errorf("%s: %w", filepath.Join(dir, p), err)
			}
			if manifest {
				d.configMaps[p] = cms
				return nil
			}
		}
		d.files[p] = string(content)
		d.ids = append(d.ids, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(d.ids)
	return d, nil
}

func isPolicyFile(name string) bool {
	switch path.Ext(name) {
	case ".rego", ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// policyConfigMaps reads a data file that holds Kubernetes objects (its
// first document has apiVersion and kind): manifest is true, and every
// object must be a policy ConfigMap.
func policyConfigMaps(content []byte) (cms []*corev1.ConfigMap, manifest bool, err error) {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if yaml.Unmarshal(content, &head) != nil || head.APIVersion == "" || head.Kind == "" {
		return nil, false, nil // policy data; AddFile reports what does not parse
	}
	objs, err := sluicescheme.DecodeObjects[client.Object](bytes.NewReader(content), sluicescheme.New())
	if err != nil {
		return nil, true, err
	}
	for _, o := range objs {
		cm, ok := o.(*corev1.ConfigMap)
		if !ok {
			return nil, true, fmt.Errorf("holds a %T %q, which is neither policy data nor a policy ConfigMap", o, o.GetName())
		}
		cms = append(cms, cm)
	}
	return cms, true, nil
}

// addTo adds the directory's policy files to b.
func (d *policyDir) addTo(b *policy.Bundle) error {
	for _, id := range d.ids {
		if err := b.AddFile(id, d.files[id], d.path); err != nil {
			return err
		}
	}
	return nil
}

// checkConfigMap reports whether cm deploys exactly the directory's
// policies: labelled policy.sluice.io/bundle=true, in a namespace, and
// with one key per policy file other than tests, of the same content. A
// key names the file whose path it is with "/" written "__"
// (policy.ModuleID): mutating__affinity.rego is mutating/affinity.rego.
func (d *policyDir) checkConfigMap(cm *corev1.ConfigMap) error {
	var problems []string
	if cm.Labels[policy.BundleLabel] != "true" {
		problems = append(problems, fmt.Sprintf("it lacks the label %s=true, so the webhook would not load it", policy.BundleLabel))
	}
	if cm.Namespace == "" {
		problems = append(problems, "it names no namespace; the webhook loads policy ConfigMaps only from its --policy-namespaces")
	}
	keys := map[string]bool{}
	for key, content := range cm.Data {
		id := strings.ReplaceAll(key, "__", "/")
		keys[id] = true
		switch file, ok := d.files[id]; {
		case !ok:
			problems = append(problems, fmt.Sprintf("key %s: the directory has no file %s", key, id))
		case file != content:
			problems = append(problems, fmt.Sprintf("key %s differs from the file %s", key, id))
		}
	}
	for _, id := range d.ids {
		if !keys[id] && !strings.HasSuffix(id, "_test.rego") {
			problems = append(problems, fmt.Sprintf("the file %s is not a key (%s)", id, strings.ReplaceAll(id, "/", "__")))
		}
	}
	if len(cm.BinaryData) > 0 {
		problems = append(problems, "binaryData is not read by the webhook")
	}
	if len(problems) == 0 {
		return nil
	}
	slices.Sort(problems)
	return fmt.Errorf("ConfigMap %s/%s does not deploy %s: %s", cm.Namespace, cm.Name, d.path, strings.Join(problems, "; "))
}

// isExampleSet reports whether dir is a directory of policy directories:
// it has no testdata/ and no policy file of its own, and its
// subdirectories each have a testdata/. `policy test` tests each of them on
// its own, over the default policies.
func isExampleSet(dir string) (subdirs []string, ok bool, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, false, err
	}
	var without []string
	for _, e := range entries {
		switch {
		case strings.HasPrefix(e.Name(), "."):
		case !e.IsDir():
			if isPolicyFile(e.Name()) {
				return nil, false, nil
			}
		case e.Name() == testdataDir:
			return nil, false, nil
		default:
			sub := filepath.Join(dir, e.Name())
			if st, err := os.Stat(filepath.Join(sub, testdataDir)); err == nil && st.IsDir() {
				subdirs = append(subdirs, sub)
			} else {
				without = append(without, e.Name())
			}
		}
	}
	if len(subdirs) == 0 {
		return nil, false, nil
	}
	if len(without) > 0 {
		return nil, false, fmt.Errorf("%s holds example directories, but %s has no %s/: give every example its cases, or test it as a policy directory of its own",
			dir, strings.Join(without, ", "), testdataDir)
	}
	return subdirs, true, nil
}
