package policies_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/webhook/fixture"
	"github.com/sluice-data/sluice/webhook/mutating"
	"github.com/sluice-data/sluice/webhook/policy"
)

// keyClass is what Sluice does with one of Fluid's label or annotation
// keys.
type keyClass int

const (
	// implemented: Sluice reads or writes the key as Fluid does; where
	// names the files that do (each mentions the key or its constant).
	implemented keyClass = iota
	// warned: a Pod annotated with the key is admitted with a warning
	// naming it (the mutating policies; checked by evaluating them).
	warned
	// inert: Fluid defines the key and reads it nowhere; neither does
	// Sluice. where says so.
	inert
	// notWritten: a key Fluid's components write, never read from users;
	// Sluice does not write it. where says what Sluice does instead (a gap
	// row when nothing).
	notWritten
)

// fluidKeys classifies every Fluid label, annotation and volume-attribute
// key api/v1alpha1 defines (constants named Label*, Annotation* and
// VolumeAttr* whose key is not Sluice's own, *.sluice.io, and the
// per-dataset key builders of labelkeys.go). A Fluid key is never
// accepted and silently ignored: TestEveryFluidKeyIsClassified fails on a
// key missing here, on an implemented key whose files do not mention it,
// and on a warned key whose warning the policies do not give.
var fluidKeys = []struct {
	name  string   // the api/v1alpha1 constant, or DatasetKey method / function
	class keyClass // what Sluice does with it
	where []string // implemented: repo-relative files; otherwise: why
}{
	// Pods: the mutating webhook.
	{"LabelServerlessInject", implemented, []string{"policies/mutating/main.rego", "config/webhook/mutating.yaml"}},
	{"LabelFuseSidecarInject", implemented, []string{"policies/mutating/main.rego", "config/webhook/mutating.yaml"}},
	{"LabelServerfulInject", implemented, []string{"policies/mutating/main.rego", "config/webhook/mutating.yaml"}},
	{"LabelUnprivilegedSidecarInject", implemented, []string{"policies/mutating/sidecar.rego"}},
	{"LabelWorkerSidecarInject", inert, []string{"Fluid defines worker.sidecar.fluid.io/inject (pkg/common/constants.go) and its webhook reads it nowhere"}},
	{"LabelCacheDirInject", implemented, []string{"policies/mutating/sidecar.rego"}},
	{"LabelFuseSidecarPostStartInject", implemented, []string{"policies/mutating/sidecar.rego"}},
	{"LabelAppPostStartInject", implemented, []string{"policies/mutating/apppoststart.rego"}},
	{"LabelInjectionDone", implemented, []string{"webhook/mutating/skipped.go"}},
	{"LabelEnableInjection", implemented, []string{"webhook/mutating/skipped.go", "config/webhook/mutating.yaml"}},
	{"AnnotationServerlessPlatform", implemented, []string{"policies/mutating/platforms.rego"}},
	{"AnnotationSkipPrecheck", implemented, []string{"policies/mutating/admission.rego"}},
	{"AnnotationHostMountPathMode", implemented, []string{"webhook/mutating/sidecar/hostpath.go"}},
	{"AnnotationFilePrefetcherPrefix", warned, []string{"policies/mutating/prefetcher.rego: Sluice has no file prefetcher"}},
	{"AnnotationDatasetsInUse", implemented, []string{"controller/volume/inuse.go"}},
	{"AnnotationPrometheusFuseScrape", notWritten, []string{"Fluid sets it on Pods whose runtime scrapes FUSE metrics from the sidecar; Sluice's webhook does not (gap P22)"}},
	{"LabelSidecarDatasetNamespacePrefix", implemented, []string{"webhook/mutating/sidecar/sidecar.go"}},
	{"LabelSidecarDatasetNamePrefix", implemented, []string{"webhook/mutating/sidecar/sidecar.go"}},
	{"DatasetSchedLabelKey", implemented, []string{"webhook/snapshot/gather.go"}},
	// Data operations.
	{"AnnotationDataflowAffinityLabels", implemented, []string{"controller/operation/affinity.go"}},
	// Datasets, runtimes, PVs and PVCs.
	{"LabelManagedBy", implemented, []string{"engines/workloads/dataop/metadata.go"}},
	{"LabelWrappedBy", notWritten, []string{"Fluid's deprecated alias of fluid.io/managed-by on a pvc:// PVC its ThinRuntime Dataset wraps; Sluice marks such a PVC dataset.sluice.io/wrapped-by"}},
	{"LabelDatasetID", implemented, []string{"controller/volume/volume.go", "webhook/snapshot/gather.go"}},
	{"LabelDataset", implemented, []string{"engines/thin/values.go"}},
	{"LabelFuseGeneration", notWritten, []string{"Fluid records the FUSE generation on the PVC for cleanPolicy OnFuseChanged; Sluice's CSI plugin records it when it stages the volume (csi/node.go)"}},
	{"AnnotationPVCStorageRequest", implemented, []string{"controller/volume/volume.go"}},
	{"AnnotationSkipCheckMountReadyTarget", implemented, []string{"controller/cacheruntime/phases.go", "controller/volume/volume.go", "csi/skipcheck.go"}},
	{"AnnotationCreatedBy", implemented, []string{"controller/volume/volume.go"}},
	// Nodes.
	{"LabelDatasetNum", implemented, []string{"controller/nodelabels/patch.go"}},
	{"LabelExclusive", implemented, []string{"controller/cacheruntime/nodes.go"}},
	{"LabelNodeLocality", implemented, []string{"webhook/snapshot/locality.go"}},
	{"LabelFuseLocality", implemented, []string{"webhook/snapshot/locality.go"}},
	{"DatasetKey.CacheLabelKey", implemented, []string{"controller/cacheruntime/nodes.go"}},
	{"DatasetKey.RuntimeCacheLabelKey", implemented, []string{"controller/cacheruntime/nodes.go"}},
	{"DatasetKey.CapacityLabelKey", implemented, []string{"controller/cacheruntime/nodes.go"}},
	{"DatasetKey.FuseLabelKey", implemented, []string{"controller/volume/volume.go"}},
	// CSI volume attributes.
	{"VolumeAttrFluidPath", implemented, []string{"controller/volume/volume.go", "csi/node.go"}},
	{"VolumeAttrMountType", implemented, []string{"controller/volume/volume.go"}},
	{"VolumeAttrSubPath", implemented, []string{"controller/volume/volume.go", "csi/node.go"}},
	{"VolumeAttrRuntimeNamespace", implemented, []string{"controller/volume/volume.go", "csi/node.go"}},
	{"VolumeAttrRuntimeName", implemented, []string{"controller/volume/volume.go", "csi/node.go"}},
	{"VolumeAttrNodeSelectorKey", implemented, []string{"controller/volume/volume.go", "csi/node.go"}},
	{"VolumeAttrFuseCleanPolicy", implemented, []string{"controller/volume/volume.go", "csi/node.go"}},
	{"VolumeAttrNodePublishMethod", implemented, []string{"csi/symlink.go"}},
}

// apiKeys returns the Fluid keys api/v1alpha1 defines: name -> key (""
// for the key builders of labelkeys.go).
func apiKeys(t *testing.T) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join("..", "api", "v1alpha1", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					vs, ok := spec.(*ast.ValueSpec)
					if !ok || d.Tok != token.CONST {
						continue
					}
					for i, n := range vs.Names {
						if !n.IsExported() || !(strings.HasPrefix(n.Name, "Label") || strings.HasPrefix(n.Name, "Annotation") || strings.HasPrefix(n.Name, "VolumeAttr")) || i >= len(vs.Values) {
							continue
						}
						lit, ok := vs.Values[i].(*ast.BasicLit)
						if !ok || lit.Kind != token.STRING {
							t.Fatalf("%s: constant %s is not a string literal", path, n.Name)
						}
						v, _ := strconv.Unquote(lit.Value)
						if !strings.Contains(v, "sluice.io/") {
							keys[n.Name] = v
						}
					}
				}
			case *ast.FuncDecl:
				if filepath.Base(path) != "labelkeys.go" || !d.Name.IsExported() || !strings.HasSuffix(d.Name.Name, "LabelKey") {
					continue
				}
				name := d.Name.Name
				if d.Recv != nil {
					name = "DatasetKey." + name
				}
				keys[name] = ""
			}
		}
	}
	return keys
}

// TestEveryFluidKeyIsClassified (issue 32, point 9): every Fluid key
// api/v1alpha1 defines is classified in fluidKeys, once; an implemented
// key is mentioned (constant or key) by each file its row names; a warned
// key, on a Pod, makes the mutating policies warn naming it.
func TestEveryFluidKeyIsClassified(t *testing.T) {
	keys := apiKeys(t)
	if len(keys) < 30 {
		t.Fatalf("only %d keys found in api/v1alpha1; the parse is wrong", len(keys))
	}
	seen := map[string]bool{}
	for _, row := range fluidKeys {
		key, ok := keys[row.name]
		switch {
		case !ok:
			t.Errorf("%s is classified but api/v1alpha1 defines no such Fluid key", row.name)
			continue
		case seen[row.name]:
			t.Errorf("%s is classified twice", row.name)
		case len(row.where) == 0:
			t.Errorf("%s: no where", row.name)
		}
		seen[row.name] = true
		switch row.class {
		case implemented:
			for _, file := range row.where {
				data, err := os.ReadFile(filepath.Join("..", file))
				constant := row.name[strings.LastIndex(row.name, ".")+1:]
				if err != nil || !(strings.Contains(string(data), constant) || (key != "" && strings.Contains(string(data), key))) {
					t.Errorf("%s is implemented in %s, which does not mention it (%v)", row.name, file, err)
				}
			}
		case warned:
			warnedKey := key
			if strings.HasSuffix(key, "/") {
				warnedKey += "inject" // a prefix: one key of it
			}
			checkWarned(t, row.name, warnedKey)
		}
	}
	for name, key := range keys {
		if !seen[name] {
			t.Errorf("Fluid key %s (%q) is not classified in fluidKeys: say where Sluice implements it, or warn or refuse it at admission", name, key)
		}
	}
}

// checkWarned evaluates the mutating policies on a Pod labelled for data
// affinity and annotated key: "true", and fails unless a warning names
// the key.
func checkWarned(t *testing.T, name, key string) {
	t.Helper()
	ctx := context.Background()
	b, err := policy.DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}
	p, err := fixture.NewPipeline(ctx, b, []client.Object{ns}, true)
	if err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: ns.Name,
			Labels:      map[string]string{datav1alpha1.LabelServerfulInject: "true"},
			Annotations: map[string]string{key: "true"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "busybox"}}},
	}
	res, err := p.Mutate(ctx, mutating.Request{Pod: pod, Operation: "CREATE", Namespace: ns.Name})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, w := range res.Decision.Warnings {
		if strings.Contains(w, key) {
			return
		}
	}
	t.Errorf("%s is classified as warned, but a Pod carrying %s gets the warnings %q", name, key, res.Decision.Warnings)
}
