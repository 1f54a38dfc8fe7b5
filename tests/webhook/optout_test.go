package webhook_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/policy"
)

// TestOptedOutPodsStillMeetDenyRules (reliability audit M4): a platform
// policy denies Pods of one namespace the dataset "secret". A Pod of that
// namespace mounting the dataset's PVC is denied naming the rule whether
// it carries nothing, Fluid's opt-out fluid.io/enable-injection=false or
// a done.sidecar.fluid.io/inject=true it set itself (no injected FUSE
// container in it, or one its author wrote): opting out skips mutation,
// not deny rules. The opted-out Pods were all admitted before. A Pod of the namespace using
// another dataset is admitted, opted out or not.
func TestOptedOutPodsStillMeetDenyRules(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "secret", datav1alpha1.BoundDatasetPhase)
	seedDataset(t, ns, "public", datav1alpha1.BoundDatasetPhase)
	rule := fmt.Sprintf(`package sluice.mutating

import rego.v1

deny contains {"rule": "no-secret-dataset", "message": msg} if {
	input.request.namespace == %q
	some v in input.datasetVolumes
	v.dataset.name == "secret"
	msg := sprintf("Pods in %%s may not use dataset %%s (volume %%q)", [input.request.namespace, v.dataset.name, v.volume])
}
`, ns)
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "deny-secret-" + ns, Namespace: webhook.DefaultNamespace, Labels: map[string]string{policy.BundleLabel: "true"}},
		Data:       map[string]string{"deny_secret_" + strings.ReplaceAll(ns, "-", "_") + ".rego": rule},
	}
	if err := env.Client.Create(ctxT(t), cm); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), cm) })
	waitFor(t, policyLoad, "the platform policy loads", func() bool { return annotation(t, cm) == "ok" })
	waitForCache()

	for _, tc := range []struct {
		name    string
		labels  map[string]string
		dataset string
		denied  bool
	}{
		{"plain", nil, "secret", true},
		{"opted-out", map[string]string{datav1alpha1.LabelEnableInjection: "false"}, "secret", true},
		{"self-declared-done", map[string]string{datav1alpha1.LabelInjectionDone: "true"}, "secret", true},
		{"opted-out-serverless", map[string]string{datav1alpha1.LabelEnableInjection: "false", datav1alpha1.LabelServerlessInject: "true"}, "secret", true},
		{"done-serverless", map[string]string{datav1alpha1.LabelInjectionDone: "true", datav1alpha1.LabelServerlessInject: "true"}, "secret", true},
		{"done-with-a-fuse-container", map[string]string{datav1alpha1.LabelInjectionDone: "true"}, "secret", true},
		{"opted-out-public", map[string]string{datav1alpha1.LabelEnableInjection: "false"}, "public", false},
		{"self-declared-done-public", map[string]string{datav1alpha1.LabelInjectionDone: "true"}, "public", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := datasetPod(tc.name, tc.labels, tc.dataset)
			pod.Namespace = ns
			if tc.name == "done-with-a-fuse-container" { // what an injected Pod looks like, written by its author
				pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: datav1alpha1.FuseSidecarContainerPrefix + "0", Image: "busybox"})
			}
			err := env.Client.Create(ctxT(t), pod)
			switch {
			case !tc.denied && err != nil:
				t.Fatalf("denied: %v", err)
			case !tc.denied:
				return
			case err == nil:
				t.Fatalf("admitted: the Pod's labels skipped the platform's deny rule")
			case !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "rule no-secret-dataset") || !strings.Contains(err.Error(), "may not use dataset secret"):
				t.Fatalf("%v, want denied naming the rule no-secret-dataset", err)
			}
		})
	}
}
