package cachecleanup_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/workloads/cachecleanup"
)

// workerWith is a worker pod of runtime namespace/name on node-a with a
// hostPath volume per path, mounted in its container.
func workerWith(namespace, name string, paths ...string) corev1.Pod {
	p := corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name + "-worker-0",
			Labels:          map[string]string{"app.kubernetes.io/instance": name, "app.kubernetes.io/managed-by": "sluice"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: name + "-worker", Controller: ptr.To(true)}}},
		Spec: corev1.PodSpec{NodeName: "node-a", Containers: []corev1.Container{{Name: "worker", Image: "engine:v1"}}},
	}
	for i, hp := range paths {
		vol := "v" + string(rune('a'+i))
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: vol, VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: hp}}})
		p.Spec.Containers[0].VolumeMounts = append(p.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: vol, MountPath: "/cache" + string(rune('a'+i))})
	}
	return p
}

// runJob runs the one container of the node Job rendered for node-a's
// plan, exactly its argv, with each of its mounts made by replacing the
// mount path in the arguments by the volume's host path below root (what
// the kubelet's bind mount of the host directory does).
func runJob(t *testing.T, root string, namespace, name string, pods ...corev1.Pod) {
	t.Helper()
	rt := &datav1alpha1.JuiceFSRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	req := cachecleanup.Request{Runtime: rt, Engine: "juicefs", Nodes: cachecleanup.Plan(pods, namespace, name)}
	release := cachecleanup.ReleaseName(name)
	out := render(t, release, cachecleanup.Build(release, req).At(cachecleanup.StageClean))
	js := jobs(t, out)
	if len(js) != 1 {
		t.Fatalf("%d Jobs rendered, want one (node-a's): %v", len(js), out)
	}
	j := js[cachecleanup.NodeJobName(release, 0)]
	c := j.Spec.Template.Spec.Containers[0]
	argv := slices.Clone(append(c.Command, c.Args...))
	for _, m := range c.VolumeMounts {
		var host string
		for _, v := range j.Spec.Template.Spec.Volumes {
			if v.Name == m.Name && v.HostPath != nil {
				host = v.HostPath.Path
			}
		}
		if host == "" {
			t.Fatalf("mount %s is no hostPath volume", m.Name)
		}
		if err := os.MkdirAll(filepath.Join(root, host), 0o755); err != nil { // DirectoryOrCreate
			t.Fatal(err)
		}
		for i, a := range argv {
			if rest, ok := strings.CutPrefix(a, m.MountPath+"/"); ok {
				argv[i] = filepath.Join(root, host, rest)
			}
		}
	}
	for _, a := range argv[3:] {
		if !strings.HasPrefix(a, root+"/") {
			t.Fatalf("argument %q is not below a mount of the pod", a)
		}
	}
	t.Logf("host view of the Job's argv: %q", argv)
	if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%q: %v: %s", argv, err, out)
	}
}

// tree writes files (and their directories) below root.
func tree(t *testing.T, root string, files ...string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func exists(root, p string) bool {
	_, err := os.Lstat(filepath.Join(root, p))
	return err == nil
}

// TestTheRenderedCommandRemovesOnlyTheRuntimesDirectories runs the argv
// the chart renders against a directory tree standing for a node: the
// runtime's directories below the cache paths /, /etc and /mnt/cache go,
// with what a worker left in them (a symbolic link to /etc among it, which
// rm removes without following); nothing beside them does: not the cache
// paths, another runtime's directory in the same path, a runtime of the
// same name in another namespace, Fluid's <path>/<namespace>/<name>
// layout, the user's files, or hostPath volumes of the pods that are not
// the runtime's (/etc, /var/lib, a .. path).
func TestTheRenderedCommandRemovesOnlyTheRuntimesDirectories(t *testing.T) {
	root := t.TempDir()
	ours := []string{"/.sluice/team-a/imagenet", "/etc/.sluice/team-a/imagenet", "/mnt/cache/.sluice/team-a/imagenet"}
	tree(t, root,
		"/.sluice/team-a/imagenet/blocks/1", "/etc/.sluice/team-a/imagenet/blocks/2",
		"/mnt/cache/.sluice/team-a/imagenet/raw/chunks/0/1", "/mnt/cache/.sluice/team-a/imagenet/.hidden",
		"/etc/passwd", "/var/lib/kubelet/state", "/mnt/cache/user-data", "/mnt/cache/team-a/imagenet/fluid-layout",
		"/mnt/cache/.sluice/team-a/other/blocks/3", "/mnt/cache/.sluice/team-a/imagenet-2/blocks/4", "/mnt/cache/.sluice/team-b/imagenet/blocks/5",
		"/.sluice/team-a/keep")
	// Links a worker could leave in its cache, pointing out of it.
	for _, l := range []struct{ link, target string }{
		{"/mnt/cache/.sluice/team-a/imagenet/escape-dir", "/etc"},
		{"/mnt/cache/.sluice/team-a/imagenet/escape-file", "/etc/passwd"},
		{"/.sluice/team-a/imagenet/escape-root", "/"},
	} {
		if err := os.Symlink(filepath.Join(root, l.target), filepath.Join(root, l.link)); err != nil {
			t.Fatal(err)
		}
	}
	runJob(t, root, "team-a", "imagenet", workerWith("team-a", "imagenet",
		"/.sluice/team-a/imagenet", "/etc/.sluice/team-a/imagenet", "/mnt/cache/.sluice/team-a/imagenet",
		"/etc", "/var/lib", "/mnt/cache/team-a/imagenet", "/mnt/x/../.sluice/team-a/imagenet", "/mnt/cache/.sluice/team-a/other"))
	for _, p := range ours {
		if exists(root, p) {
			t.Errorf("%s is still there", p)
		}
	}
	for _, p := range []string{"/.sluice/team-a/keep", "/etc/passwd", "/etc/.sluice/team-a", "/var/lib/kubelet/state", "/mnt/cache/user-data",
		"/mnt/cache/team-a/imagenet/fluid-layout", "/mnt/cache/.sluice/team-a/other/blocks/3", "/mnt/cache/.sluice/team-a/imagenet-2/blocks/4",
		"/mnt/cache/.sluice/team-b/imagenet/blocks/5"} {
		if !exists(root, p) {
			t.Errorf("%s was removed, which the runtime does not own", p)
		}
	}
	if data, err := os.ReadFile(filepath.Join(root, "/etc/passwd")); err != nil || string(data) != "/etc/passwd" {
		t.Errorf("/etc/passwd after the cleanup: %q, %v", data, err)
	}
}

// TestFluidsLayoutCollisionIsNoCollision: a runtime lib in namespace var
// caching in / would, in Fluid's <path>/<namespace>/<name> layout, own
// /var/lib; its directory is /.sluice/var/lib, and /var/lib stays.
func TestFluidsLayoutCollisionIsNoCollision(t *testing.T) {
	root := t.TempDir()
	tree(t, root, "/var/lib/dpkg/status", "/.sluice/var/lib/blocks/1")
	runJob(t, root, "var", "lib", workerWith("var", "lib", "/.sluice/var/lib", "/var/lib"))
	if exists(root, "/.sluice/var/lib") {
		t.Error("the runtime's directory /.sluice/var/lib is still there")
	}
	if !exists(root, "/var/lib/dpkg/status") {
		t.Error("/var/lib was removed")
	}
}
