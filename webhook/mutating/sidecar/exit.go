package sidecar

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// AppsDoneVolume is the downward API volume through which a wrapped
// sidecar reads the annotation sidecar.sluice.io/apps-done.
const AppsDoneVolume = "sluice-apps-done"

// appsDoneDir is where a wrapped sidecar mounts AppsDoneVolume; the file
// appsDoneDir/apps-done holds the annotation's value ("" while unset).
const appsDoneDir = "/var/run/sluice/apps"

// exitScript runs the FUSE command ("$@") and waits: when the command ends
// by itself the script exits with its status; when the apps-done file says
// "true" it stops the command with TERM (FUSE unmounts) and exits 0, so the
// Pod can succeed; a TERM sent to the container is passed on. It needs sh
// and sleep.
const exitScript = `"$@" &
child=$!
trap 'kill -TERM "$child" 2>/dev/null' TERM INT
while kill -0 "$child" 2>/dev/null; do
  flag=
  read -r flag <` + appsDoneDir + `/apps-done 2>/dev/null
  if [ "$flag" = true ]; then
    kill -TERM "$child" 2>/dev/null
    wait "$child"
    exit 0
  fi
  sleep 2
done
wait "$child"`

// exitScriptName is the wrapper's $0.
const exitScriptName = "sluice-fuse-exit-with-apps"

// errNoCommand refuses a Pod whose sidecar would need wrapping when the
// FUSE template has no command to wrap.
var errNoCommand = errors.New("the FUSE template sets no command (it runs its image's entrypoint), so its sidecar cannot be made to stop when the app containers end; " +
	"use native sidecars (policy data mutating.sidecar.mode) or give the runtime's FUSE a command")

// exitWithApps wraps c's command (which it must have) in exitScript and
// mounts the Pod's apps-done annotation into it. The template's command
// and arguments become the script's arguments, unchanged.
func exitWithApps(pod *corev1.Pod, c *corev1.Container) {
	argv := append([]string{"sh", "-c", exitScript, exitScriptName}, c.Command...)
	c.Command, c.Args = append(argv, c.Args...), nil
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: AppsDoneVolume, MountPath: appsDoneDir, ReadOnly: true})
	if findVolume(pod, AppsDoneVolume) == nil {
		pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: AppsDoneVolume, VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
			Items: []corev1.DownwardAPIVolumeFile{{Path: "apps-done", FieldRef: &corev1.ObjectFieldSelector{
				FieldPath: fmt.Sprintf("metadata.annotations['%s']", datav1alpha1.AnnotationAppsDone)}}},
		}}})
	}
}
