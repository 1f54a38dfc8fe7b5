package apppoststart

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/sluice-data/sluice/webhook/decision"
	"github.com/sluice-data/sluice/webhook/mutating/mountcheck"
	"github.com/sluice-data/sluice/webhook/snapshot"
)

// Mutator applies decision.AppPostStart.
type Mutator struct{}

// Name implements mutating.Mutator.
func (Mutator) Name() string { return "apppoststart" }

// Mutate implements mutating.Mutator. It checks every entry before it
// changes a container, so that an error leaves the Pod as it was.
func (Mutator) Mutate(pod *corev1.Pod, d *decision.Mutating, _ []snapshot.DatasetVolume) error {
	hooks := make([]*corev1.LifecycleHandler, len(d.AppPostStart))
	targets := make([]*corev1.Container, len(d.AppPostStart))
	for i, a := range d.AppPostStart {
		c := container(pod, a.Container)
		if c == nil {
			return fmt.Errorf("postStart mount wait: the Pod has no container %q", a.Container)
		}
		hook := &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: mountcheck.Command(int(a.TimeoutSeconds), a.MountPaths...)}}
		if c.Lifecycle != nil && c.Lifecycle.PostStart != nil && !equality.Semantic.DeepEqual(c.Lifecycle.PostStart, hook) {
			return fmt.Errorf("postStart mount wait: container %q already has a postStart hook", a.Container)
		}
		hooks[i], targets[i] = hook, c
	}
	for i, c := range targets {
		if c.Lifecycle == nil {
			c.Lifecycle = &corev1.Lifecycle{}
		}
		c.Lifecycle.PostStart = hooks[i]
	}
	return nil
}

func container(pod *corev1.Pod, name string) *corev1.Container {
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == name {
			return &pod.Spec.Containers[i]
		}
	}
	return nil
}
