package enginetest

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// PlacementLabel is the label of cache workers that placement anti-affinity
// selects.
const PlacementLabel = "fluid.io/dataset-placement"

// Pod is a rendered pod template as pod anti-affinity sees it.
type Pod struct {
	// Role names the pod in messages ("worker", "FUSE", "master").
	Role      string
	Namespace string
	Labels    map[string]string
}

// Placed is one rendered release as placement concerns it.
type Placed struct {
	// Worker is the worker StatefulSet, whose pods carry the placement
	// label and the required anti-affinity.
	Worker *appsv1.StatefulSet
	// Others are the pods of the release's other components (FUSE,
	// masters), which placement must leave alone.
	Others []Pod
}

// WorkerPod is the worker StatefulSet's pod.
func WorkerPod(w *appsv1.StatefulSet) Pod {
	return podOf("worker", w.ObjectMeta, w.Spec.Template)
}

// CheckPlacement renders the engine's chart, with render, for four copies
// of its sample Dataset and runtime: two Exclusive datasets (one explicitly,
// one by default) and two Shared ones, each in a namespace of its own. It
// decodes the worker StatefulSet (templates/worker-statefulset.yaml), the
// FUSE DaemonSet (templates/fuse-daemonset.yaml) and, when the engine runs
// masters, the master StatefulSet (templates/master-statefulset.yaml) of
// each, checks them with CheckWorkersOnly and returns them for the
// engine's own checks.
func CheckPlacement[T testing.TB, R client.Object](t T, sample func() (*datav1alpha1.Dataset, R),
	render func(T, *datav1alpha1.Dataset, R) map[string]string, masters bool) (exclusive, shared []Placed) {
	t.Helper()
	place := func(namespace, name string, placement datav1alpha1.PlacementMode) Placed {
		t.Helper()
		ds, rt := sample()
		ds.Namespace, ds.Name, ds.Spec.Placement = namespace, name, placement
		rt.SetNamespace(namespace)
		rt.SetName(name)
		out := render(t, ds, rt)
		f := Decode[appsv1.DaemonSet](t, out, "templates/fuse-daemonset.yaml")
		p := Placed{
			Worker: Decode[appsv1.StatefulSet](t, out, "templates/worker-statefulset.yaml"),
			Others: []Pod{podOf("FUSE", f.ObjectMeta, f.Spec.Template)},
		}
		if masters {
			m := Decode[appsv1.StatefulSet](t, out, "templates/master-statefulset.yaml")
			p.Others = append(p.Others, podOf("master", m.ObjectMeta, m.Spec.Template))
		}
		return p
	}
	exclusive = []Placed{
		place("team-a", "imagenet", datav1alpha1.ExclusiveMode),
		place("team-c", "laion", datav1alpha1.DefaultMode),
	}
	shared = []Placed{
		place("team-b", "coco", datav1alpha1.ShareMode),
		place("team-d", "mnist", datav1alpha1.ShareMode),
	}
	CheckWorkersOnly(t, exclusive, shared)
	return exclusive, shared
}

// podOf is the pod of a workload's template.
func podOf(role string, workload metav1.ObjectMeta, tmpl corev1.PodTemplateSpec) Pod {
	return Pod{Role: role, Namespace: workload.Namespace, Labels: tmpl.Labels}
}

// Repels reports whether a required pod anti-affinity term of the workers
// selects the pod, which keeps either pod off the other's node (the
// scheduler also checks existing pods' terms against an incoming pod). A
// term applies to its own namespace unless its namespaceSelector is {}
// (every namespace).
func Repels(t testing.TB, w *appsv1.StatefulSet, pod Pod) bool {
	t.Helper()
	a := w.Spec.Template.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		return false
	}
	for _, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		everywhere := term.NamespaceSelector != nil && len(term.NamespaceSelector.MatchLabels) == 0 && len(term.NamespaceSelector.MatchExpressions) == 0
		sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
		if err != nil {
			t.Fatal(err)
		}
		if (everywhere || pod.Namespace == w.Namespace) && sel.Matches(labels.Set(pod.Labels)) {
			return true
		}
	}
	return false
}

// CheckWorkersOnly checks, over releases rendered for datasets in distinct
// namespaces (Exclusive ones, explicit or by default, and Shared ones),
// that Fluid's placement applies to cache workers only:
//   - only worker pods carry PlacementLabel, set to the placement; the other
//     pods carry fluid.io/dataset;
//   - an Exclusive worker keeps every worker (of any dataset, in any
//     namespace) off its node, but never another component's pod (FUSE,
//     whose node app Pods are steered to, or a master);
//   - a Shared worker keeps Exclusive workers away but no other component's
//     pod, nor other datasets' Shared workers.
func CheckWorkersOnly(t testing.TB, exclusive, shared []Placed) {
	t.Helper()
	all := append(append([]Placed{}, exclusive...), shared...)
	for _, r := range all {
		for _, pod := range r.Others {
			if _, ok := pod.Labels[PlacementLabel]; ok || pod.Labels[datav1alpha1.LabelDataset] == "" {
				t.Errorf("%s %s pod labels %v: want %s and no %s", pod.Namespace, pod.Role, pod.Labels, datav1alpha1.LabelDataset, PlacementLabel)
			}
		}
	}
	labelled := func(rs []Placed, mode datav1alpha1.PlacementMode) {
		t.Helper()
		for _, r := range rs {
			if p := r.Worker.Spec.Template.Labels[PlacementLabel]; p != string(mode) {
				t.Errorf("%s worker pods: %s=%q, want %q", r.Worker.Namespace, PlacementLabel, p, mode)
			}
		}
	}
	labelled(exclusive, datav1alpha1.ExclusiveMode)
	labelled(shared, datav1alpha1.ShareMode)
	for _, e := range exclusive {
		for _, r := range all {
			for _, pod := range r.Others {
				if Repels(t, e.Worker, pod) {
					t.Errorf("an Exclusive worker of %s keeps the %s pod of %s off its node", e.Worker.Namespace, pod.Role, pod.Namespace)
				}
			}
			if !Repels(t, e.Worker, WorkerPod(r.Worker)) {
				t.Errorf("an Exclusive worker of %s shares its node with a worker of %s", e.Worker.Namespace, r.Worker.Namespace)
			}
		}
	}
	for _, s := range shared {
		for _, r := range all {
			for _, pod := range r.Others {
				if Repels(t, s.Worker, pod) {
					t.Errorf("a Shared worker of %s keeps the %s pod of %s off its node", s.Worker.Namespace, pod.Role, pod.Namespace)
				}
			}
		}
		for _, e := range exclusive {
			if !Repels(t, s.Worker, WorkerPod(e.Worker)) {
				t.Errorf("a Shared worker of %s may run beside an Exclusive worker of %s", s.Worker.Namespace, e.Worker.Namespace)
			}
		}
		for _, s2 := range shared {
			if s2.Worker.Namespace != s.Worker.Namespace && Repels(t, s.Worker, WorkerPod(s2.Worker)) {
				t.Errorf("a Shared worker of %s keeps Shared workers of %s off its node", s.Worker.Namespace, s2.Worker.Namespace)
			}
		}
	}
}

// ExclusiveTerm is the required pod anti-affinity term of an Exclusive
// worker: no other worker, its own replicas included (one per node), of any
// dataset in any namespace, on its node; FUSE and masters are not selected.
func ExclusiveTerm() corev1.PodAffinityTerm {
	return corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname", NamespaceSelector: &metav1.LabelSelector{},
		LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: PlacementLabel, Operator: metav1.LabelSelectorOpExists}}}}
}
