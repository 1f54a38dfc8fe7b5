package webhook_test

import (
	"context"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/mutating/sidecar"
	"github.com/sluice-data/sluice/webhook/policy"
)

// jobPod is a Job-like sidecar Pod (restartPolicy Never) whose FUSE
// template (tests/support/testobj's DaemonSet) runs no command of its own; the
// test gives it one through the runtime's DaemonSet where it needs one.
func jobPod(ns, name string) *corev1.Pod {
	p := datasetPod(name, sidecarLabels, "models")
	p.Namespace = ns
	p.Spec.RestartPolicy = corev1.RestartPolicyNever
	return p
}

// TestJobSidecarsEndThroughTheAPIServer: with native sidecars (this API
// server's version supports them) a Job's Pod is stored with its FUSE
// sidecar as an init container with restartPolicy Always, its command
// unwrapped, which the kubelet stops after the app containers. With
// sidecar.mode container (policy data) the sidecar is a regular container
// whose command runs under the exit wrapper, reading the apps-done
// annotation through a downward API volume; a Pod that restarts its
// containers is not wrapped.
func TestJobSidecarsEndThroughTheAPIServer(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "models", datav1alpha1.BoundDatasetPhase)
	ds := fuseDaemonSet(t, ns, "models")
	ds.Spec.Template.Spec.Containers[0].Command = []string{"juicefs", "mount"}
	ds.Spec.Template.Spec.Containers[0].Args = []string{"redis://meta", "/runtime-mnt/juicefs/" + ns + "/models/juicefs-fuse"}
	if err := env.Client.Update(ctxT(t), ds); err != nil {
		t.Fatal(err)
	}
	waitForCache()

	native := jobPod(ns, "native")
	if err := env.Client.Create(ctxT(t), native); err != nil {
		t.Fatal(err)
	}
	if len(native.Spec.InitContainers) != 1 || *native.Spec.InitContainers[0].RestartPolicy != corev1.ContainerRestartPolicyAlways ||
		!slices.Equal(native.Spec.InitContainers[0].Command, []string{"juicefs", "mount"}) || volumeNamed(native, sidecar.AppsDoneVolume) != nil {
		t.Fatalf("a Job's native sidecar: %+v", native.Spec.InitContainers)
	}

	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "container-sidecars", Namespace: webhook.DefaultNamespace, Labels: map[string]string{policy.BundleLabel: "true"}},
		Data:       map[string]string{"mode.yaml": "mutating:\n  sidecar:\n    mode: container\n"},
	}
	if err := env.Client.Create(ctxT(t), cm); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.Client.Delete(context.Background(), cm)
		// The next tests expect native sidecars: wait until the webhook
		// serves the defaults again.
		waitFor(t, 10*time.Second, "native sidecars again", func() bool {
			p := jobPod(ns, "probe")
			return env.Client.Create(context.Background(), p, client.DryRunAll) == nil && len(p.Spec.InitContainers) == 1
		})
	})
	waitFor(t, policyLoad, "the policy data loads", func() bool { return annotation(t, cm) == "ok" })

	job := jobPod(ns, "job")
	if err := env.Client.Create(ctxT(t), job); err != nil {
		t.Fatal(err)
	}
	fuse := job.Spec.Containers[0]
	if fuse.Name != "fluid-fuse-0" || len(job.Spec.InitContainers) != 0 {
		t.Fatalf("not a container-mode sidecar: %+v", job.Spec)
	}
	if len(fuse.Command) != 8 || fuse.Command[0] != "sh" || !slices.Equal(fuse.Command[3:], []string{"sluice-fuse-exit-with-apps", "juicefs", "mount", "redis://meta", "/runtime-mnt/juicefs/" + ns + "/models/juicefs-fuse"}) || fuse.Args != nil {
		t.Fatalf("command %q args %q: not the exit wrapper over the template's argv", fuse.Command, fuse.Args)
	}
	v := volumeNamed(job, sidecar.AppsDoneVolume)
	if v == nil || v.DownwardAPI == nil || v.DownwardAPI.Items[0].FieldRef.FieldPath != "metadata.annotations['"+datav1alpha1.AnnotationAppsDone+"']" {
		t.Fatalf("apps-done volume = %+v", v)
	}

	server := datasetPod("server", sidecarLabels, "models")
	server.Namespace = ns
	if err := env.Client.Create(ctxT(t), server); err != nil {
		t.Fatal(err)
	}
	if c := server.Spec.Containers[0].Command; !slices.Equal(c, []string{"juicefs", "mount"}) {
		t.Fatalf("a Pod that restarts its containers was wrapped: %q", c)
	}
}

// fuseDaemonSet reads the FUSE DaemonSet seedDataset created.
func fuseDaemonSet(t *testing.T, ns, name string) *appsv1.DaemonSet {
	t.Helper()
	ds := &appsv1.DaemonSet{}
	if err := env.Client.Get(ctxT(t), client.ObjectKey{Namespace: ns, Name: name + datav1alpha1.FuseDaemonSetSuffix}, ds); err != nil {
		t.Fatal(err)
	}
	return ds
}
