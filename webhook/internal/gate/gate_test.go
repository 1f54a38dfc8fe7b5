package gate_test

import (
	"context"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"sigs.k8s.io/yaml"

	"github.com/sluice-data/sluice/config"
	"github.com/sluice-data/sluice/webhook/internal/gate"
)

func mutatingConfiguration(t *testing.T) *admissionregistrationv1.MutatingWebhookConfiguration {
	t.Helper()
	data, err := config.FS.ReadFile("webhook/mutating.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &admissionregistrationv1.MutatingWebhookConfiguration{}
	if err := yaml.UnmarshalStrict(data, cfg); err != nil {
		t.Fatal(err)
	}
	return cfg
}

func namespace(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelMetadataName: name}}}
}

// TestPodCreateAsTheAPIServerDecides runs Pods through the selectors and
// match conditions of config/webhook/mutating.yaml.
func TestPodCreateAsTheAPIServerDecides(t *testing.T) {
	g := gate.New(mutatingConfiguration(t))
	claim := corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "imagenet"}}}
	pod := func(labels, annotations map[string]string, volumes ...corev1.Volume) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "team-a", Labels: labels, Annotations: annotations},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}, Volumes: volumes}}
	}
	alice := &user.DefaultInfo{Name: "alice"}
	for _, tc := range []struct {
		name    string
		pod     *corev1.Pod
		ns      string
		user    user.Info
		webhook string
		skipped string
	}{
		{"a Pod mounting a claim", pod(nil, nil, claim), "team-a", alice, "claim-pods.mutating.sluice.io", ""},
		{"a Pod labelled for a sidecar", pod(map[string]string{"serverless.fluid.io/inject": "true"}, nil), "team-a", alice, "labelled-pods.mutating.sluice.io", ""},
		// Opting out of injection sends a Pod as one that asked for
		// nothing: the deny rules still judge it (reliability audit M4).
		{"a Pod that opted out", pod(map[string]string{"fluid.io/enable-injection": "false", "serverless.fluid.io/inject": "true"}, nil, claim), "team-a", alice, "claim-pods.mutating.sluice.io", "match condition labelled-for-fluid is false"},
		{"a Pod that opted out, no claim", pod(map[string]string{"fluid.io/enable-injection": "false", "serverless.fluid.io/inject": "true"}, nil), "team-a", alice, "", "match condition mounts-a-claim is false"},
		{"kube-system", pod(nil, nil, claim), "kube-system", alice, "", "namespace kube-system is not selected"},
		{"a mirror Pod", pod(nil, map[string]string{"kubernetes.io/config.mirror": "x"}, claim), "team-a", alice, "", "match condition not-a-mirror-pod is false"},
		{"a kubelet", pod(nil, nil, claim), "team-a", &user.DefaultInfo{Name: "system:node:n1"}, "", "match condition not-from-a-kubelet is false"},
		{"no claim", pod(nil, nil), "team-a", alice, "", "match condition mounts-a-claim is false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := g.PodCreate(context.Background(), tc.pod, namespace(tc.ns), tc.user)
			if err != nil {
				t.Fatal(err)
			}
			if v.Webhook != tc.webhook {
				t.Fatalf("webhook %q (skipped: %q), want %q", v.Webhook, v.Skipped, tc.webhook)
			}
			if tc.skipped != "" && !strings.Contains(strings.Join(v.Skipped, "; "), tc.skipped) {
				t.Errorf("skipped %q, want a reason with %q", v.Skipped, tc.skipped)
			}
		})
	}
}
