package sidecar

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/sluice-data/sluice/webhook/decision"
)

// gateTimeoutSeconds bounds how long the app containers wait for the mount.
const gateTimeoutSeconds = 120

// gate holds the Pod's app containers until the sidecar's FUSE mount is live.
// A native sidecar gets a startup probe (the kubelet starts the next
// container only once it succeeds); a regular container gets a postStart
// hook, which the kubelet also waits for before starting the next container.
// Both run a shell that looks for the mount point in /proc/self/mountinfo,
// so the FUSE image needs sh and grep.
func gate(c *corev1.Container, sc decision.Sidecar) {
	check := fmt.Sprintf("grep -qF -- ' %s ' /proc/self/mountinfo", mountinfoEscape(sc.MountPath))
	switch sc.Mode {
	case decision.NativeSidecar:
		c.StartupProbe = &corev1.Probe{
			ProbeHandler:     corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", check}}},
			PeriodSeconds:    1,
			FailureThreshold: gateTimeoutSeconds,
		}
	case decision.ContainerSidecar:
		wait := fmt.Sprintf("i=0; until %s; do i=$((i+1)); [ $i -ge %d ] && exit 1; sleep 1; done", check, gateTimeoutSeconds)
		if c.Lifecycle == nil {
			c.Lifecycle = &corev1.Lifecycle{}
		}
		c.Lifecycle.PostStart = &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", wait}}}
	}
}

// mountinfoEscaper escapes a path the way /proc/self/mountinfo does, and
// quotes it for a single-quoted shell word. It is built once: a Replacer
// builds its tables on first use, which cost more than the replacing.
var mountinfoEscaper = strings.NewReplacer(" ", `\040`, "\t", `\011`, "\n", `\012`, `\`, `\134`, "'", `'\''`)

func mountinfoEscape(p string) string { return mountinfoEscaper.Replace(p) }
