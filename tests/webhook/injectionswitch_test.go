package webhook_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/mutating"
)

// TestGlobalInjectionSwitch (Fluid's DISABLE_INJECTION, read on every
// review as Fluid reads it; the chart's webhook.disableInjection sets the
// equivalent --disable-injection): while it is set, the API server stores
// a serverless Pod and a serverful Pod exactly as written, each with a
// warning saying injection is disabled; the deny rules still judge them
// (a Pod of an unbound Dataset is refused); once unset, Pods are mutated
// again.
func TestGlobalInjectionSwitch(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "models", datav1alpha1.BoundDatasetPhase)
	seedDataset(t, ns, "unbound", datav1alpha1.NotBoundDatasetPhase)
	waitForCache()
	c, warned := warnedClient(t)
	t.Setenv(webhook.DisableInjectionEnv, "true")

	for name, labels := range map[string]map[string]string{"off-serverless": {datav1alpha1.LabelServerlessInject: "true"}, "off-serverful": serverful} {
		pod := datasetPod(name, labels, "models")
		pod.Namespace = ns
		want := pod.Spec.DeepCopy()
		if err := c.Create(ctxT(t), pod); err != nil {
			t.Fatalf("a Pod labelled %v while injection is disabled: %v", labels, err)
		}
		got := &corev1.Pod{}
		if err := env.Client.Get(ctxT(t), client.ObjectKeyFromObject(pod), got); err != nil {
			t.Fatal(err)
		}
		if len(got.Spec.InitContainers) != 0 || len(got.Spec.Containers) != 1 || got.Spec.Affinity != nil ||
			!equality.Semantic.DeepEqual(got.Spec.Volumes, want.Volumes) || got.Spec.Containers[0].VolumeMounts[0].MountPropagation != nil {
			t.Fatalf("a Pod labelled %v was mutated while injection is disabled: %+v", labels, got.Spec)
		}
		if len(got.Annotations) != 0 || got.Labels[datav1alpha1.LabelInjectionDone] != "" {
			t.Fatalf("a Pod labelled %v got metadata: %v %v", labels, got.Labels, got.Annotations)
		}
	}
	if n := strings.Count(warned.String(), mutating.InjectionDisabledWarning); n != 2 {
		t.Fatalf("%d warnings saying injection is disabled, want 2: %s", n, warned)
	}

	denied := datasetPod("off-unbound", serverful, "unbound")
	denied.Namespace = ns
	if err := c.Create(ctxT(t), denied); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "rule dataset-not-bound") {
		t.Fatalf("a Pod of an unbound Dataset while injection is disabled: %v, want the deny rule", err)
	}

	t.Setenv(webhook.DisableInjectionEnv, "false")
	on := datasetPod("on", map[string]string{datav1alpha1.LabelServerlessInject: "true"}, "models")
	on.Namespace = ns
	if err := c.Create(ctxT(t), on); err != nil {
		t.Fatal(err)
	}
	if len(on.Spec.InitContainers) != 1 || on.Spec.InitContainers[0].Name != datav1alpha1.FuseSidecarContainerPrefix+"0" {
		t.Fatalf("injection enabled again, but no FUSE sidecar: %+v", on.Spec.InitContainers)
	}
}
