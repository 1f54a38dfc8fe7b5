package webhook_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/policy"
)

// TestPlatformFromPolicyDataThroughTheAPIServer: a Pod naming a serverless
// platform that does not exist is refused through the real API server;
// once a platform team adds it in a policy ConfigMap's data, the Pod's
// sidecar is unprivileged and gets the platform's environment and its
// extra argument (edge.fluid.io/cache-size), and an argument the platform
// does not read is warned about.
func TestPlatformFromPolicyDataThroughTheAPIServer(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "models", datav1alpha1.BoundDatasetPhase)
	waitForCache()
	c, warned := warnedClient(t)
	newPod := func(name string) *corev1.Pod {
		p := datasetPod(name, sidecarLabels, "models")
		p.Namespace = ns
		p.Annotations = map[string]string{datav1alpha1.AnnotationServerlessPlatform: "edge",
			"edge.fluid.io/cache-size": "10Gi", "edge.fluid.io/speed": "fast"}
		return p
	}

	err := c.Create(ctxT(t), newPod("before"))
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `unknown platform "edge"`) || !strings.Contains(err.Error(), "rule unknown-platform") {
		t.Fatalf("a Pod naming a platform nobody added: %v, want refused naming it", err)
	}

	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "edge-platform", Namespace: webhook.DefaultNamespace, Labels: map[string]string{policy.BundleLabel: "true"}},
		Data: map[string]string{"platforms.yaml": "mutating:\n  platforms:\n    edge:\n      unprivileged: true\n" +
			"      env: {FUSE_MODE: edge}\n      args:\n        cache-size: {env: FUSE_CACHE_SIZE}\n"},
	}
	if err := env.Client.Create(ctxT(t), cm); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), cm) })
	waitFor(t, policyLoad, "the policy data loads", func() bool { return annotation(t, cm) == "ok" })

	pod := newPod("after")
	if err := c.Create(ctxT(t), pod); err != nil {
		t.Fatalf("create: %v", err)
	}
	fuse := pod.Spec.InitContainers[0]
	for _, want := range []corev1.EnvVar{{Name: "FUSE_MODE", Value: "edge"}, {Name: "FUSE_CACHE_SIZE", Value: "10Gi"}} {
		if !slices.Contains(fuse.Env, want) {
			t.Errorf("sidecar env %+v lacks %+v", fuse.Env, want)
		}
	}
	if sc := fuse.SecurityContext; sc == nil || sc.Privileged == nil || *sc.Privileged {
		t.Errorf("the platform's sidecar is privileged: %+v", sc)
	}
	if !strings.Contains(warned.String(), `edge.fluid.io/speed: platform "edge" reads no argument "speed"`) {
		t.Errorf("warnings = %q", warned.String())
	}
}
