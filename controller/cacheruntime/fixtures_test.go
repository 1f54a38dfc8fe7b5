package cacheruntime

import (
	"bytes"
	"io/fs"
	"os"
	"path"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/policies"
)

// TestPolicyFixturesHoldWhatTheControllerWrites: every runtime
// status.cacheAffinity written by hand in the policies' fixture cases
// (policies/testdata and policies/examples/*/testdata) is what this
// controller writes for a Dataset of that fixture whose workers run on
// nodes in the zones and regions the fixture names (one node per term and
// zone), so the webhook is tested on the input it gets.
func TestPolicyFixturesHoldWhatTheControllerWrites(t *testing.T) {
	trees := map[string]fs.FS{"policies": policies.FS, "policies/examples": os.DirFS("../../policies/examples")}
	checked := 0
	for root, fsys := range trees {
		err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.Name() != "objects.yaml" {
				return err
			}
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			objs, err := sluicescheme.DecodeObjects[client.Object](bytes.NewReader(data), sluicescheme.New())
			if err != nil {
				t.Errorf("%s/%s: %v", root, p, err)
				return nil
			}
			checked += checkFixture(t, path.Join(root, p), objs)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 10 {
		t.Fatalf("only %d fixture runtimes with a cacheAffinity found", checked)
	}
}

// checkFixture compares each runtime's cacheAffinity among objs with the
// controller's, and returns how many it compared.
func checkFixture(t *testing.T, file string, objs []client.Object) int {
	datasets := map[client.ObjectKey]*datav1alpha1.Dataset{}
	for _, o := range objs {
		if ds, ok := o.(*datav1alpha1.Dataset); ok {
			datasets[client.ObjectKeyFromObject(ds)] = ds
		}
	}
	n := 0
	for _, o := range objs {
		rt, ok := o.(datav1alpha1.RuntimeObject)
		if !ok || rt.GetRuntimeStatus().CacheAffinity == nil {
			continue
		}
		n++
		written := rt.GetRuntimeStatus().CacheAffinity
		ds := datasets[client.ObjectKeyFromObject(rt)]
		if ds == nil {
			t.Errorf("%s: runtime %s has a cacheAffinity but no Dataset", file, rt.GetName())
			continue
		}
		// The worker template as the charts render it: the Dataset's
		// required node affinity.
		tmpl := &corev1.PodSpec{}
		if na := ds.Spec.NodeAffinity; na != nil && na.Required != nil {
			tmpl.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: na.Required.DeepCopy()}}
		}
		got := cacheAffinity(tmpl, workerNodes(written))
		if d := cmp.Diff(written, got); d != "" {
			t.Errorf("%s: runtime %s: the fixture's cacheAffinity is not the controller's for workers in its zones (-fixture +controller):\n%s", file, rt.GetName(), d)
		}
	}
	return n
}

// workerNodes are nodes in the zones and regions a cacheAffinity names:
// for each term and each of its zone values, a node labelled with that
// zone, the term's first region value, and the first value of each of the
// term's other In requirements.
func workerNodes(aff *corev1.NodeAffinity) []*corev1.Node {
	var nodes []*corev1.Node
	if aff.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	for _, term := range aff.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		base, zones := map[string]string{}, []string{""}
		for _, r := range term.MatchExpressions {
			if r.Operator != corev1.NodeSelectorOpIn || len(r.Values) == 0 {
				continue
			}
			if r.Key == corev1.LabelTopologyZone {
				zones = r.Values
			} else if _, set := base[r.Key]; !set {
				base[r.Key] = r.Values[0]
			}
		}
		for _, z := range zones {
			labels := map[string]string{}
			for k, v := range base {
				labels[k] = v
			}
			if z != "" {
				labels[corev1.LabelTopologyZone] = z
			}
			nodes = append(nodes, node("worker-"+z, labels))
		}
	}
	return nodes
}
