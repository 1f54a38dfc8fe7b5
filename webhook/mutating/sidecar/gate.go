package sidecar

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/sluice-data/sluice/webhook/decision"
	"github.com/sluice-data/sluice/webhook/mutating/mountcheck"
)

// gateTimeoutSeconds bounds how long the app containers wait for the mount.
const gateTimeoutSeconds = 120

// gate holds the Pod's app containers until the sidecar's FUSE mount is live.
// A native sidecar gets a startup probe (the kubelet starts the next
// container only once it succeeds); a regular container gets a postStart
// hook, which the kubelet also waits for before starting the next container.
// Both run mountcheck's fixed script, the mount point an argument, which
// passes once the point is a mounted FUSE file system in the sidecar's
// /proc/self/mountinfo: the FUSE image needs sh (and sleep for a
// container-mode sidecar).
func gate(c *corev1.Container, sc decision.Sidecar) {
	switch sc.Mode {
	case decision.NativeSidecar:
		c.StartupProbe = &corev1.Probe{
			ProbeHandler:     corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: mountcheck.Command(1, sc.MountPath)}},
			PeriodSeconds:    1,
			FailureThreshold: gateTimeoutSeconds,
		}
	case decision.ContainerSidecar:
		if c.Lifecycle == nil {
			c.Lifecycle = &corev1.Lifecycle{}
		}
		c.Lifecycle.PostStart = &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: mountcheck.Command(gateTimeoutSeconds, sc.MountPath)}}
	}
}
