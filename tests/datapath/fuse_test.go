package datapath_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/thin"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// rendered is what the Thin chart renders for the sample that the FUSE
// process needs: its container and pod, and the config file.
type rendered struct {
	Container corev1.Container
	Pod       corev1.PodSpec
	Config    string // config.json as the ConfigMap holds it
	Volume    engines.FuseVolume
}

// render resolves the Thin engine through the API server (it reads the
// profile), renders the chart with the Helm SDK and decodes the FUSE
// DaemonSet and its ConfigMap.
func render(tb testing.TB, s sample) rendered {
	tb.Helper()
	e, err := thin.Engine{}.Resolve(testenv.Context(tb), env.Client, s.Runtime)
	if err != nil {
		tb.Fatal(err)
	}
	values, err := e.Values(s.Dataset, s.Runtime)
	if err != nil {
		tb.Fatal(err)
	}
	out := enginetest.RenderValues(tb, e, values, s.Runtime.Name, s.Runtime.Namespace)
	ds := enginetest.Decode[appsv1.DaemonSet](tb, out, "templates/fuse-daemonset.yaml")
	cm := enginetest.Decode[corev1.ConfigMap](tb, out, "templates/fuse-config.yaml")
	if len(ds.Spec.Template.Spec.Containers) != 1 {
		tb.Fatalf("FUSE pod containers: %+v", ds.Spec.Template.Spec.Containers)
	}
	return rendered{Container: ds.Spec.Template.Spec.Containers[0], Pod: ds.Spec.Template.Spec, Config: cm.Data[thin.ConfigFile], Volume: e.Volume(s.Runtime)}
}

// pod is a FUSE container run as a local process. The pod's paths (its
// volume mounts, which the kubelet would provide) live under Root: the
// test rewrites only those paths (rewrite), in the command line and in the
// config file, and writes what the volumes hold (the config, the Secret's
// keys, an empty cache directory, the host directory of the FUSE mount)
// at the rewritten paths.
type pod struct {
	Root string
	// Argv is the container's command and args, rewritten.
	Argv []string
	cmd  *exec.Cmd
	out  *testenv.LockedBuffer
	// mounts are the container's mount paths, longest first.
	mounts []string
}

// Path is where a path of the pod is on this machine.
func (p *pod) Path(inPod string) string { return filepath.Join(p.Root, inPod) }

// rewrite moves a path of the pod under Root, alone or as a flag's value:
// a path at or under one of the pod's mount paths, or a directory above one
// (which exists in the container for the mount, as /etc/fluid/secrets does
// for the Secrets' mounts).
func (p *pod) rewrite(s string) string {
	if i := strings.Index(s, "=/"); i >= 0 && strings.HasPrefix(s, "-") {
		return s[:i+1] + p.rewrite(s[i+1:])
	}
	for _, m := range p.mounts {
		if s == m || strings.HasPrefix(s, m+"/") || (s != "/" && strings.HasPrefix(m, s+"/")) {
			return p.Root + s
		}
	}
	return s
}

// startFuse prepares the pod's volumes under a temp root and starts the
// container's command line, stopping it (and unmounting) when the test
// ends; it fails the test unless the mount comes up.
func startFuse(tb testing.TB, t tools, s sample, r rendered) *pod {
	tb.Helper()
	p, exited := launchFuse(tb, t, s, r)
	target := p.Path(r.Volume.Path)
	deadline := time.Now().Add(60 * time.Second)
	for mounted(target) != r.Volume.MountType {
		select {
		case <-exited:
			tb.Fatalf("the FUSE command %q exited: %v\n%s", p.Argv, p.cmd.ProcessState, p.out.String())
		default:
		}
		if time.Now().After(deadline) {
			tb.Fatalf("no %s mount at %s after 60s (mount table: %q)\n%s", r.Volume.MountType, target, mounted(target), p.out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return p
}

// fuseFails runs the container's command line, which must exit with an
// error within a minute, and returns its output.
func fuseFails(tb testing.TB, t tools, s sample, r rendered) string {
	tb.Helper()
	p, exited := launchFuse(tb, t, s, r)
	select {
	case <-exited:
	case <-time.After(60 * time.Second):
		tb.Fatalf("the FUSE command %q still runs after 60s\n%s", p.Argv, p.out.String())
	}
	if p.cmd.ProcessState.Success() || mounted(p.Path(r.Volume.Path)) != "" {
		tb.Fatalf("the FUSE command %q succeeded\n%s", p.Argv, p.out.String())
	}
	return p.out.String()
}

// launchFuse prepares the pod's volumes under a temp root and starts the
// container's command line; the channel closes when the process exits.
func launchFuse(tb testing.TB, t tools, s sample, r rendered) (*pod, <-chan struct{}) {
	tb.Helper()
	p := &pod{Root: tb.TempDir(), out: &testenv.LockedBuffer{}}
	for _, m := range r.Container.VolumeMounts {
		if m.MountPath != "/dev/fuse" { // the host's own, as hostPath /dev/fuse gives
			p.mounts = append(p.mounts, filepath.Clean(m.MountPath))
		}
	}
	sort.Slice(p.mounts, func(i, j int) bool { return len(p.mounts[i]) > len(p.mounts[j]) })
	volumes := map[string]corev1.Volume{}
	for _, v := range r.Pod.Volumes {
		volumes[v.Name] = v
	}
	for _, m := range r.Container.VolumeMounts {
		if m.MountPath == "/dev/fuse" {
			continue
		}
		dir := p.Path(m.MountPath)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
		v := volumes[m.Name]
		switch {
		case v.ConfigMap != nil:
			for _, item := range v.ConfigMap.Items {
				if item.Key != thin.ConfigFile {
					tb.Fatalf("config item %+v", item)
				}
				write(tb, filepath.Join(dir, item.Path), p.rewriteConfig(tb, r.Config))
			}
		case v.Secret != nil:
			if v.Secret.SecretName != s.Secret.Name {
				tb.Fatalf("the pod mounts Secret %q; the sample's is %q", v.Secret.SecretName, s.Secret.Name)
			}
			for _, item := range v.Secret.Items {
				data, ok := s.Secret.Data[item.Key]
				if !ok {
					tb.Fatalf("Secret %s has no key %q", s.Secret.Name, item.Key)
				}
				write(tb, filepath.Join(dir, item.Path), string(data))
			}
		case v.EmptyDir != nil, v.HostPath != nil:
			// An empty directory (a hostPath DirectoryOrCreate starts empty here).
		default:
			tb.Fatalf("volume %s of the FUSE pod: the test does not provide %+v", v.Name, v.VolumeSource)
		}
	}
	for _, a := range append(append([]string{}, r.Container.Command...), r.Container.Args...) {
		p.Argv = append(p.Argv, p.rewrite(a))
	}
	if len(p.Argv) == 0 {
		tb.Fatal("the FUSE container has no command")
	}
	program := p.Argv[0]
	if !filepath.IsAbs(program) {
		program = filepath.Join(t.bin, program) // the image's PATH
	}
	cmd := &exec.Cmd{Path: program, Args: p.Argv, Stdout: p.out, Stderr: p.out,
		Env: append([]string{"PATH=" + t.bin + ":/usr/local/bin:/usr/bin:/bin", "HOME=" + p.Root}, envOf(tb, r.Container)...)}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("starting %q: %v", p.Argv, err)
	}
	p.cmd = cmd
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	tb.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM) // as the kubelet stops a container
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if mounted(p.Path(r.Volume.Path)) != "" {
			_ = syscall.Unmount(p.Path(r.Volume.Path), syscall.MNT_DETACH)
		}
	})
	return p, exited
}

// rewriteConfig moves the config's paths (target path, Secret files)
// under Root.
func (p *pod) rewriteConfig(tb testing.TB, raw string) string {
	tb.Helper()
	var cfg thin.FuseConfig
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		tb.Fatalf("the rendered config.json: %v", err)
	}
	cfg.TargetPath = p.rewrite(cfg.TargetPath)
	for i := range cfg.Mounts {
		for k, v := range cfg.Mounts[i].Options {
			cfg.Mounts[i].Options[k] = p.rewrite(v)
		}
	}
	data, err := json.Marshal(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return string(data) + "\n"
}

// envOf is the container's environment; the sample sets only plain values.
func envOf(tb testing.TB, c corev1.Container) []string {
	var out []string
	for _, e := range c.Env {
		if e.ValueFrom != nil {
			tb.Fatalf("env %s: the test provides plain values only", e.Name)
		}
		out = append(out, e.Name+"="+e.Value)
	}
	return out
}

func write(tb testing.TB, file, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		tb.Fatal(err)
	}
}

// mounted is the file-system type of the mount at dir in this process's
// mount table, "" when none.
func mounted(dir string) string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	fstype := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options... - fstype source super
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 || unescape(fields[4]) != dir {
			continue
		}
		for i, f := range fields {
			if f == "-" && i+1 < len(fields) {
				fstype = fields[i+1] // the last mount at dir is the one seen
			}
		}
	}
	return fstype
}

// detachUnder lazily unmounts every mount at or under dir, deepest first.
func detachUnder(dir string) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return
	}
	var points []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) > 4 {
			if p := unescape(fields[4]); p == dir || strings.HasPrefix(p, dir+"/") {
				points = append(points, p)
			}
		}
	}
	f.Close()
	sort.Slice(points, func(i, j int) bool { return len(points[i]) > len(points[j]) })
	for _, p := range points {
		_ = syscall.Unmount(p, syscall.MNT_DETACH)
	}
}

// unescape undoes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var c byte
			if _, err := fmt.Sscanf(s[i+1:i+4], "%03o", &c); err == nil {
				b.WriteByte(c)
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// namespace creates a namespace for a test or benchmark.
func namespace(tb testing.TB) string {
	tb.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "datapath-"}}
	if err := env.Client.Create(testenv.Context(tb), ns); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = env.Client.Delete(context.Background(), ns) })
	return ns.Name
}
