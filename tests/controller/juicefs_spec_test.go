package controller_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// TestJuiceFSSecondMountIsInvalidSpec: a JuiceFS Dataset with two mounts
// is not silently cut to the first: the runtime's Ready condition says
// InvalidSpec, naming spec.mounts[1], and no release is installed.
func TestJuiceFSSecondMountIsInvalidSpec(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	ds := testobj.Dataset("twice", ns, testobj.WithMounts("juicefs:///a", "juicefs:///b"))
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	rt := testobj.JuiceFSRuntime("twice", ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi"))
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: ns, Name: "twice"}
	var c *metav1.Condition
	eventually(t, 20*time.Second, "the runtime is not Ready for an invalid spec", func() bool {
		if env.Client.Get(ctx, key, rt) != nil {
			return false
		}
		c = meta.FindStatusCondition(rt.Status.Conditions, "Ready")
		return c != nil && c.Reason == "InvalidSpec"
	})
	if !strings.Contains(c.Message, "spec.mounts[1]") || !strings.Contains(c.Message, "mounts one JuiceFS volume") {
		t.Errorf("Ready message %q does not name spec.mounts[1]", c.Message)
	}
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "twice-worker"}, &appsv1.StatefulSet{}); err == nil {
		t.Error("workers were installed for an invalid spec")
	}
}

// TestJuiceFSCommunityReleaseFormatsFirst: a community-edition Dataset
// (metaurl, keys from a Secret, storage and bucket, a sub-directory) and a
// runtime with FUSE options, runtime-level labels and an extra volume
// install into the real API server: the workers and FUSE format the
// volume in an init container, mount the sub-directory with JuiceFS flags,
// carry the runtime's labels and mount the volume.
func TestJuiceFSCommunityReleaseFormatsFirst(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	secret := func(name string) datav1alpha1.EncryptOption {
		return datav1alpha1.EncryptOption{Name: name, ValueFrom: datav1alpha1.EncryptOptionSource{SecretKeyRef: datav1alpha1.SecretKeySelector{Name: "jfs", Key: name}}}
	}
	ds := testobj.Dataset("cedata", ns, testobj.WithMounts("juicefs:///team/data"))
	ds.Spec.Mounts[0].Options = map[string]string{"storage": "s3", "bucket": "https://b.s3.amazonaws.com", "trash-days": "0"}
	ds.Spec.Mounts[0].EncryptOptions = []datav1alpha1.EncryptOption{secret("metaurl"), secret("access-key"), secret("secret-key")}
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	rt := testobj.JuiceFSRuntime("cedata", ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache1:/mnt/cache2", "10Gi"))
	rt.Spec.Fuse.Options = map[string]string{"attrcacheto": "60", "allow_other": ""}
	rt.Spec.PodMetadata.Labels = map[string]string{"team": "a"}
	rt.Spec.Volumes = []corev1.Volume{{Name: "ca", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "ca"}}}}}
	rt.Spec.Fuse.VolumeMounts = []corev1.VolumeMount{{Name: "ca", MountPath: "/etc/jfs-ca"}}
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	sts, fuse := &appsv1.StatefulSet{}, &appsv1.DaemonSet{}
	key := func(name string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: name} }
	eventually(t, 20*time.Second, "Helm installs the workers and the FUSE DaemonSet", func() bool {
		if env.Client.Get(ctx, key("cedata"), rt) == nil {
			if c := meta.FindStatusCondition(rt.Status.Conditions, "Ready"); c != nil && c.Reason == "InvalidSpec" {
				t.Fatalf("the runtime is invalid: %s", c.Message)
			}
		}
		return env.Client.Get(ctx, key("cedata-worker"), sts) == nil && env.Client.Get(ctx, key("cedata-fuse"), fuse) == nil
	})
	wantFormat := []string{"juicefs", "format", "$(METAURL)", "cedata", "--access-key=$(ACCESS_KEY)", "--bucket=https://b.s3.amazonaws.com",
		"--secret-key=$(SECRET_KEY)", "--storage=s3", "--trash-days=0"}
	// Workers format in an init container; FUSE in its own container,
	// before it mounts, so that a FUSE sidecar does too.
	if init := sts.Spec.Template.Spec.InitContainers; len(init) != 1 || init[0].Name != "format" || !slices.Equal(init[0].Command, wantFormat) {
		t.Errorf("worker init containers %+v, want format %q", init, wantFormat)
	}
	fuseCmd := fuse.Spec.Template.Spec.Containers[0].Command
	if i := slices.Index(fuseCmd, "format"); i < 1 || i-1+len(wantFormat) > len(fuseCmd) || !slices.Equal(fuseCmd[i-1:i-1+len(wantFormat)], wantFormat) ||
		slices.Index(fuseCmd, "mount") < i {
		t.Errorf("FUSE command %q does not format (%q) before it mounts", fuseCmd, wantFormat)
	}
	for what, pod := range map[string]corev1.PodTemplateSpec{"workers": sts.Spec.Template, "FUSE": fuse.Spec.Template} {
		if pod.Labels["team"] != "a" {
			t.Errorf("%s: labels %v lack the runtime's team=a", what, pod.Labels)
		}
		vols := map[string]bool{}
		for _, v := range pod.Spec.Volumes {
			vols[v.Name] = true
		}
		if !vols["cache-0"] || !vols["cache-1"] {
			t.Errorf("%s: volumes %v lack the tier's two cache directories", what, vols)
		}
	}
	cmd := fuse.Spec.Template.Spec.Containers[0].Command
	for _, want := range []string{"--subdir=/team/data", "--attr-cache=60", "--cache-dir=/mnt/cache1:/mnt/cache2", "--cache-size=10240", "allow_other"} {
		if !slices.Contains(cmd, want) {
			t.Errorf("FUSE command %q lacks %q", cmd, want)
		}
	}
	if m := fuse.Spec.Template.Spec.Containers[0].VolumeMounts; !slices.ContainsFunc(m, func(v corev1.VolumeMount) bool { return v.Name == "ca" && v.MountPath == "/etc/jfs-ca" }) {
		t.Errorf("FUSE volume mounts %+v lack spec.volumes' ca", m)
	}
}
