package controller_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// TestContainerSidecarsOfEndedPodsAreToldToStop, through the real API
// server: the controller annotates a Job-like Pod (restartPolicy Never)
// whose FUSE sidecar is a regular container sidecar.sluice.io/apps-done=true
// once its app containers have all terminated, not before; a Pod that
// restarts its containers (restartPolicy Always) is never annotated.
func TestContainerSidecarsOfEndedPodsAreToldToStop(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	newPod := func(name string, restart corev1.RestartPolicy) *corev1.Pod {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{datav1alpha1.LabelInjectionDone: "true"}},
			Spec: corev1.PodSpec{RestartPolicy: restart, Containers: []corev1.Container{
				{Name: datav1alpha1.FuseSidecarContainerPrefix + "0", Image: "fuse"},
				{Name: "train", Image: "train"},
			}},
		}
		if err := env.Client.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	setStates := func(p *corev1.Pod, train corev1.ContainerState) {
		t.Helper()
		p.Status.Phase = corev1.PodRunning
		p.Status.ContainerStatuses = []corev1.ContainerStatus{
			{Name: datav1alpha1.FuseSidecarContainerPrefix + "0", Image: "fuse", ImageID: "fuse", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}},
			{Name: "train", Image: "train", ImageID: "train", State: train},
		}
		if err := env.Client.Status().Update(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	annotated := func(p *corev1.Pod) bool {
		got := &corev1.Pod{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(p), got); err != nil {
			t.Fatal(err)
		}
		return got.Annotations[datav1alpha1.AnnotationAppsDone] == "true"
	}
	ended := corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}}

	job := newPod("job", corev1.RestartPolicyNever)
	server := newPod("server", corev1.RestartPolicyAlways)
	setStates(job, corev1.ContainerState{Running: &corev1.ContainerStateRunning{}})
	setStates(server, ended)
	time.Sleep(time.Second)
	if annotated(job) {
		t.Fatal("a Pod whose app still runs was annotated")
	}

	setStates(job, ended)
	eventually(t, 10*time.Second, "the ended Job Pod is annotated apps-done", func() bool { return annotated(job) })
	if annotated(server) {
		t.Fatal("a Pod that restarts its containers was annotated")
	}
}
