package sidecarexit

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func jobPod(restart corev1.RestartPolicy, states ...corev1.ContainerState) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"done.sidecar.fluid.io/inject": "true"}},
		Spec: corev1.PodSpec{RestartPolicy: restart, Containers: []corev1.Container{
			{Name: "fluid-fuse-0"}, {Name: "train"}, {Name: "log"},
		}},
	}
	p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: "fluid-fuse-0", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}})
	for i, s := range states {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: p.Spec.Containers[i+1].Name, State: s})
	}
	return p
}

func exited(code int32) corev1.ContainerState {
	return corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code}}
}

var running = corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}

func TestAppsDone(t *testing.T) {
	annotated := jobPod(corev1.RestartPolicyNever, exited(0), exited(0))
	annotated.Annotations = map[string]string{"sidecar.sluice.io/apps-done": "true"}
	unlabelled := jobPod(corev1.RestartPolicyNever, exited(0), exited(0))
	unlabelled.Labels = nil
	native := jobPod(corev1.RestartPolicyNever, exited(0), exited(0))
	native.Spec.Containers = native.Spec.Containers[1:]
	native.Spec.InitContainers = []corev1.Container{{Name: "fluid-fuse-0"}}
	succeeded := jobPod(corev1.RestartPolicyNever, exited(0), exited(0))
	succeeded.Status.Phase = corev1.PodSucceeded
	deleting := jobPod(corev1.RestartPolicyNever, exited(0), exited(0))
	deleting.DeletionTimestamp = &metav1.Time{}
	tests := []struct {
		name string
		pod  *corev1.Pod
		want bool
	}{
		{"every app ended (Never)", jobPod(corev1.RestartPolicyNever, exited(0), exited(1)), true},
		{"an app still runs", jobPod(corev1.RestartPolicyNever, exited(0), running), false},
		{"an app has no status yet", jobPod(corev1.RestartPolicyNever, exited(0)), false},
		{"OnFailure, every app exited 0", jobPod(corev1.RestartPolicyOnFailure, exited(0), exited(0)), true},
		{"OnFailure, an app failed and will restart", jobPod(corev1.RestartPolicyOnFailure, exited(0), exited(2)), false},
		{"Always restarts its apps", jobPod(corev1.RestartPolicyAlways, exited(0), exited(0)), false},
		{"annotated already", annotated, false},
		{"not injected by the webhook", unlabelled, false},
		{"native sidecar", native, false},
		{"ended already", succeeded, false},
		{"being deleted", deleting, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := AppsDone(tt.pod); got != tt.want {
				t.Fatalf("AppsDone = %v, want %v", got, tt.want)
			}
		})
	}
}
