package juicefs_test

import (
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/juicefs"
)

// TestFluidDocumentedManifests renders the JuiceFS manifests of Fluid's
// documentation (docs/en/samples/juicefs_runtime.md: community and
// enterprise editions and "other configurations";
// docs/zh/samples/juicefs/juicefs_cache_dir.md) and checks that each
// formats or authorises its volume and mounts its sub-directory with
// the options it gives.
func TestFluidDocumentedManifests(t *testing.T) {
	quota := resource.MustParse("40Gi")
	dataset := func(opts map[string]string, secrets ...string) *datav1alpha1.Dataset {
		m := datav1alpha1.Mount{Name: "minio", MountPoint: "juicefs:///demo", Options: opts}
		for _, s := range secrets {
			m.EncryptOptions = append(m.EncryptOptions, secretOption(s))
		}
		return &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "jfsdemo", Namespace: "default"}, Spec: datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{m}}}
	}
	runtime := func(change func(*datav1alpha1.JuiceFSRuntimeSpec)) *datav1alpha1.JuiceFSRuntime {
		rt := &datav1alpha1.JuiceFSRuntime{ObjectMeta: metav1.ObjectMeta{Name: "jfsdemo", Namespace: "default"}, Spec: datav1alpha1.JuiceFSRuntimeSpec{Replicas: 1,
			TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{{MediumType: datav1alpha1.Memory, Path: "/dev/shm", Quota: &quota, Low: "0.1"}}}}}
		change(&rt.Spec)
		return rt
	}
	for _, tc := range []struct {
		name      string
		ds        *datav1alpha1.Dataset
		rt        *datav1alpha1.JuiceFSRuntime
		setup     []string // in the FUSE command, in order
		fuseMount []string
	}{
		{"community edition",
			dataset(map[string]string{"bucket": "http://minio:9000/minio/test", "storage": "minio"}, "metaurl", "access-key", "secret-key"),
			runtime(func(*datav1alpha1.JuiceFSRuntimeSpec) {}),
			[]string{"juicefs", "format", "<METAURL>", "minio", "--access-key=<ACCESS_KEY>", "--bucket=http://minio:9000/minio/test", "--secret-key=<SECRET_KEY>", "--storage=minio"},
			[]string{"--cache-dir=/dev/shm", "--cache-size=40960", "--free-space-ratio=0.1", "--subdir=/demo"}},
		{"other configurations",
			dataset(nil, "metaurl"),
			runtime(func(s *datav1alpha1.JuiceFSRuntimeSpec) {
				s.Configs = &[]string{"trash-days=0"}
				s.JuiceFSVersion = datav1alpha1.VersionSpec{Image: "registry.cn-hangzhou.aliyuncs.com/juicefs/mount", ImageTag: "nightly"}
				s.Fuse.Image, s.Fuse.ImageTag = "registry.cn-hangzhou.aliyuncs.com/juicefs/mount", "nightly"
				s.Fuse.Options, s.Fuse.NetworkMode = map[string]string{"verbose": ""}, datav1alpha1.ContainerNetworkMode
			}),
			[]string{"juicefs", "format", "<METAURL>", "minio", "--no-update", "--trash-days=0"},
			[]string{"--verbose", "--subdir=/demo"}},
		{"enterprise edition",
			dataset(map[string]string{"bucket": "https://b.s3.amazonaws.com"}, "token", "access-key", "secret-key"),
			runtime(func(*datav1alpha1.JuiceFSRuntimeSpec) {}),
			[]string{"juicefs", "auth", "minio", "--token=<TOKEN>", "--accesskey=<ACCESS_KEY>", "--secretkey=<SECRET_KEY>", "--bucket=https://b.s3.amazonaws.com"},
			[]string{"/sbin/mount.juicefs", "minio", "-o"}},
		{"cache directory of FUSE",
			dataset(nil, "metaurl"),
			runtime(func(s *datav1alpha1.JuiceFSRuntimeSpec) {
				s.Fuse.Options = map[string]string{"cache-size": "0", "cache-dir": "/fuse/cache"}
			}),
			[]string{"juicefs", "format", "<METAURL>", "minio", "--no-update"},
			[]string{"--cache-dir=/fuse/cache", "--cache-size=0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := render(t, tc.ds, tc.rt)
			fuse := enginetest.Decode[appsv1.DaemonSet](t, out, "templates/fuse-daemonset.yaml").Spec.Template.Spec
			a := argv(fuse.Containers[0])
			i := slices.Index(a, tc.setup[0])
			if i < 0 || i+len(tc.setup) > len(a) || !slices.Equal(a[i:i+len(tc.setup)], tc.setup) {
				t.Errorf("FUSE argv %q lacks the set-up %q", a, tc.setup)
			}
			for _, w := range tc.fuseMount {
				if !slices.Contains(a[i+len(tc.setup):], w) {
					t.Errorf("FUSE argv %q does not mount with %q", a, w)
				}
			}
			if tc.name == "cache directory of FUSE" && !slices.ContainsFunc(fuse.Volumes, func(v corev1.Volume) bool {
				return v.HostPath != nil && v.HostPath.Path == "/fuse/cache/.sluice/default/jfsdemo"
			}) {
				t.Errorf("FUSE volumes %+v lack the runtime's host directory below /fuse/cache", fuse.Volumes)
			}
			if strings.Contains(strings.Join(a, " "), "redis://") {
				t.Error("a secret value reached the command")
			}
		})
	}
	// Fluid's sample writes quota: 40960 (bytes, 0 MiB, which Fluid turns
	// into --cache-size=0, no cache): refused, naming the field.
	rt := runtime(func(s *datav1alpha1.JuiceFSRuntimeSpec) {
		q := resource.MustParse("40960")
		s.TieredStore.Levels[0].Quota = &q
	})
	_, err := juicefs.Engine{}.Values(dataset(nil, "metaurl"), rt)
	enginetest.WantInvalid(t, err, "spec.tieredstore.levels[0].quota")
}
