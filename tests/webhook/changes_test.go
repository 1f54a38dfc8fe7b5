package webhook_test

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// dryRunPod sends a Pod using claim through admission without storing it
// and returns the admitted Pod or the denial.
func dryRunPod(t *testing.T, ns, claim string, labels map[string]string) (*corev1.Pod, error) {
	t.Helper()
	pod := datasetPod("probe", labels, claim)
	pod.Namespace = ns
	err := env.Client.Create(ctxT(t), pod, client.DryRunAll)
	return pod, err
}

func requiredKey(p *corev1.Pod) string {
	if p.Spec.Affinity == nil || p.Spec.Affinity.NodeAffinity == nil || p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	return p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions[0].Key
}

// The webhook reuses a dataset volume while none of the objects it was built
// from changes; each kind of change must reach the next Pod.
func TestChangedDatasetObjectsReachTheNextPod(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "imagenet", datav1alpha1.BoundDatasetPhase)
	waitForCache()
	if p, err := dryRunPod(t, ns, "imagenet", serverful); err != nil || requiredKey(p) != "fuse-capable" {
		t.Fatalf("before any change: required key %q, error %v", requiredKey(p), err)
	}

	// The runtime's FUSE node selector (spec).
	rt := &datav1alpha1.JuiceFSRuntime{}
	if err := env.Client.Get(ctxT(t), client.ObjectKey{Namespace: ns, Name: "imagenet"}, rt); err != nil {
		t.Fatal(err)
	}
	rt.Spec.Fuse.NodeSelector = map[string]string{"gpu": "true"}
	if err := env.Client.Update(ctxT(t), rt); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "the runtime's new FUSE node selector", func() bool {
		p, err := dryRunPod(t, ns, "imagenet", serverful)
		return err == nil && requiredKey(p) == "gpu"
	})

	// The Dataset's phase (status).
	ds := &datav1alpha1.Dataset{}
	if err := env.Client.Get(ctxT(t), client.ObjectKey{Namespace: ns, Name: "imagenet"}, ds); err != nil {
		t.Fatal(err)
	}
	ds.Status.Phase = datav1alpha1.NotBoundDatasetPhase
	if err := env.Client.Status().Update(ctxT(t), ds); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "the dataset-not-bound denial", func() bool {
		_, err := dryRunPod(t, ns, "imagenet", serverful)
		return err != nil && strings.Contains(err.Error(), "dataset-not-bound")
	})
	ds.Status.Phase = datav1alpha1.BoundDatasetPhase
	if err := env.Client.Status().Update(ctxT(t), ds); err != nil {
		t.Fatal(err)
	}

	// The FUSE DaemonSet going away.
	serverless := map[string]string{datav1alpha1.LabelServerlessInject: "true"}
	waitFor(t, 5*time.Second, "a sidecar Pod admitted again", func() bool {
		_, err := dryRunPod(t, ns, "imagenet", serverless)
		return err == nil
	})
	fuse := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "imagenet" + datav1alpha1.FuseDaemonSetSuffix}}
	if err := env.Client.Delete(ctxT(t), fuse); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "the sidecar-without-fuse denial", func() bool {
		_, err := dryRunPod(t, ns, "imagenet", serverless)
		return err != nil && strings.Contains(err.Error(), "sidecar-without-fuse")
	})
}
