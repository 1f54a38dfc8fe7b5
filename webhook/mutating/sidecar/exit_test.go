package sidecar

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/sluice-data/sluice/webhook/decision"
)

func exitDecision(mode decision.SidecarMode) *decision.Mutating {
	d := decide(mode, false, false)
	d.Sidecars[0].ExitWithApps = true
	return d
}

func TestContainerSidecarOfAJobIsWrappedToExitWithTheApps(t *testing.T) {
	vs := vols()
	vs[0].Fuse.Container.Command = []string{"juicefs", "mount"}
	vs[0].Fuse.Container.Args = []string{"redis://meta", "/runtime-mnt/ds/fuse"}
	p := appPod()
	if err := (Mutator{}).Mutate(p, exitDecision(decision.ContainerSidecar), vs); err != nil {
		t.Fatal(err)
	}
	sc := p.Spec.Containers[0]
	want := []string{"sh", "-c", exitScript, exitScriptName, "juicefs", "mount", "redis://meta", "/runtime-mnt/ds/fuse"}
	if !slices.Equal(sc.Command, want) || sc.Args != nil {
		t.Fatalf("command %q args %q, want %q and none", sc.Command, sc.Args, want)
	}
	if !slices.ContainsFunc(sc.VolumeMounts, func(m corev1.VolumeMount) bool {
		return equality.Semantic.DeepEqual(m, corev1.VolumeMount{Name: AppsDoneVolume, MountPath: appsDoneDir, ReadOnly: true})
	}) {
		t.Fatalf("the apps-done file is not mounted: %+v", sc.VolumeMounts)
	}
	v := findVolume(p, AppsDoneVolume)
	if v == nil || v.DownwardAPI == nil || v.DownwardAPI.Items[0].FieldRef.FieldPath != "metadata.annotations['sidecar.sluice.io/apps-done']" {
		t.Fatalf("apps-done volume = %+v", v)
	}
	again := p.DeepCopy()
	if err := (Mutator{}).Mutate(again, exitDecision(decision.ContainerSidecar), vs); err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(again, p) {
		t.Error("a second pass changed the Pod")
	}
	if !slices.Equal(vs[0].Fuse.Container.Command, []string{"juicefs", "mount"}) {
		t.Error("the shared FUSE template changed")
	}

	native := appPod()
	if err := (Mutator{}).Mutate(native, exitDecision(decision.NativeSidecar), vs); err != nil {
		t.Fatal(err)
	}
	if c := native.Spec.InitContainers[0].Command; !slices.Equal(c, []string{"juicefs", "mount"}) || findVolume(native, AppsDoneVolume) != nil {
		t.Fatalf("a native sidecar, which ends by itself, was wrapped: %q", c)
	}
}

func TestATemplateWithoutCommandCannotExitWithTheApps(t *testing.T) {
	p := appPod()
	before := p.DeepCopy()
	err := (Mutator{}).Mutate(p, exitDecision(decision.ContainerSidecar), vols())
	if err == nil || !strings.Contains(err.Error(), `sidecar for volume "data" (dataset ns/ds): the FUSE template sets no command`) {
		t.Fatalf("error = %v", err)
	}
	if len(p.Spec.Containers) != len(before.Spec.Containers) || len(p.Spec.Volumes) != len(before.Spec.Volumes) {
		t.Fatal("the Pod changed before the error")
	}
}

// script is a running wrapper; done receives its Wait's result once.
type script struct {
	done <-chan error
}

// runExitScript starts the wrapper with dash over argv, its apps-done file
// in a temporary directory.
func runExitScript(t *testing.T, argv ...string) (*script, string) {
	t.Helper()
	if _, err := exec.LookPath("dash"); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	body := strings.ReplaceAll(exitScript, appsDoneDir, dir)
	cmd := exec.Command("dash", append([]string{"-c", body, exitScriptName}, argv...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }() // one Wait per process
	return &script{done: done}, filepath.Join(dir, "apps-done")
}

// waitExit waits up to within for the wrapper to end, with its exit code.
func waitExit(t *testing.T, s *script, within time.Duration) (int, bool) {
	t.Helper()
	select {
	case err := <-s.done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), true
		}
		return 0, true
	case <-time.After(within):
		return 0, false
	}
}

func TestExitScriptStopsTheFUSECommandWhenTheAppsAreDone(t *testing.T) {
	cmd, file := runExitScript(t, "sleep", "60")
	// The kubelet writes the file empty while the annotation is unset.
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, exited := waitExit(t, cmd, 3*time.Second); exited {
		t.Fatal("the wrapper ended before the apps were done")
	}
	if err := os.WriteFile(file, []byte("true"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, exited := waitExit(t, cmd, 5*time.Second)
	if !exited || code != 0 {
		t.Fatalf("after apps-done: exited %v with %d, want 0 within 5s", exited, code)
	}
}

func TestExitScriptPassesOnTheCommandsOwnEnd(t *testing.T) {
	cmd, _ := runExitScript(t, "sh", "-c", "exit 3")
	code, exited := waitExit(t, cmd, 5*time.Second)
	if !exited || code != 3 {
		t.Fatalf("exited %v with %d, want the command's 3", exited, code)
	}
}
