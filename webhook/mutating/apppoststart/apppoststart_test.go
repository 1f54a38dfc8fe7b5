package apppoststart

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/sluice-data/sluice/webhook/decision"
	"github.com/sluice-data/sluice/webhook/mutating/mountcheck"
)

func pod() *corev1.Pod {
	return &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{
		{Name: "fluid-fuse-0"},
		{Name: "app", Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}}}},
		{Name: "other"},
	}}}
}

func TestAppContainersWaitForTheirMounts(t *testing.T) {
	p := pod()
	d := &decision.Mutating{AppPostStart: []decision.AppPostStart{{Container: "app", MountPaths: []string{"/data", "/models"}, TimeoutSeconds: 30}}}
	if err := (Mutator{}).Mutate(p, d, nil); err != nil {
		t.Fatal(err)
	}
	app := p.Spec.Containers[1]
	if app.Lifecycle.PostStart == nil || !slices.Equal(app.Lifecycle.PostStart.Exec.Command, mountcheck.Command(30, "/data", "/models")) {
		t.Fatalf("postStart = %+v", app.Lifecycle.PostStart)
	}
	if app.Lifecycle.PreStop == nil {
		t.Error("the container's preStop hook was lost")
	}
	if p.Spec.Containers[0].Lifecycle != nil || p.Spec.Containers[2].Lifecycle != nil {
		t.Error("a container the decision does not name got a hook")
	}
	again := p.DeepCopy()
	if err := (Mutator{}).Mutate(again, d, nil); err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(again, p) {
		t.Error("a second pass changed the Pod")
	}
}

func TestErrorsLeaveThePodUnchanged(t *testing.T) {
	hooked := pod()
	hooked.Spec.Containers[2].Lifecycle = &corev1.Lifecycle{PostStart: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"warm-up"}}}}
	tests := []struct {
		name string
		pod  *corev1.Pod
		want string
	}{
		{"missing container", pod(), `no container "other"`},
		{"a hook of the user's", hooked, `container "other" already has a postStart hook`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &decision.Mutating{AppPostStart: []decision.AppPostStart{
				{Container: "app", MountPaths: []string{"/data"}, TimeoutSeconds: 5},
				{Container: "other", MountPaths: []string{"/data"}, TimeoutSeconds: 5},
			}}
			if tt.name == "missing container" {
				tt.pod.Spec.Containers = tt.pod.Spec.Containers[:2]
			}
			before := tt.pod.DeepCopy()
			err := (Mutator{}).Mutate(tt.pod, d, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
			if !equality.Semantic.DeepEqual(before, tt.pod) {
				t.Error("the Pod changed before the error")
			}
		})
	}
}
