package controller_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// TestFuseRecordHoldsNoTenantContainerFields (reliability audit N7, the
// audit's recipe): namespace B's JuiceFSRuntime sets spec.fuse.env PATH,
// an nfs volume of B's host (spec.volumes) and its volumeMount. B's own
// FUSE DaemonSet runs them; the FUSE record, the template other
// namespaces' sidecars are built from, holds none of them, and keeps the
// engine's image, command and FUSE mount.
func TestFuseRecordHoldsNoTenantContainerFields(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	// B's platform lets B's own FUSE run them (the controller judges
	// runtimes with the guards too).
	allowed := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: policyNamespace, Name: "guards-" + ns, Labels: map[string]string{policies.BundleLabel: "true"}},
		Data:       map[string]string{"guards.yaml": "validating:\n  guards:\n    " + ns + ":\n      privilegedFields: [spec.fuse.volumeMounts, spec.fuse.env]\n      envNames: [PATH]\n"},
	}
	if err := env.Client.Create(ctx, allowed); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), allowed) })
	if err := env.Client.Create(ctx, testobj.Dataset("shared", ns, testobj.WithMounts("juicefs:///shared"))); err != nil {
		t.Fatal(err)
	}
	rt := testobj.JuiceFSRuntime("shared", ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi"))
	rt.Spec.Volumes = []corev1.Volume{{Name: "t", VolumeSource: corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: "nfs.tenant-b.example.com", Path: "/t"}}}}
	rt.Spec.Fuse.VolumeMounts = []corev1.VolumeMount{{Name: "t", MountPath: "/opt/t"}}
	rt.Spec.Fuse.Env = []corev1.EnvVar{{Name: "PATH", Value: "/opt/t:/usr/bin:/bin"}}
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}

	fuse, record := &appsv1.DaemonSet{}, &corev1.PodTemplate{}
	fuseKey := types.NamespacedName{Namespace: ns, Name: "shared" + datav1alpha1.FuseDaemonSetSuffix}
	recordKey := types.NamespacedName{Namespace: fuseRecords, Name: datav1alpha1.FuseRecordName(rt.UID)}
	within := testenv.Stretch(30 * time.Second)
	for start := time.Now(); env.Client.Get(ctx, fuseKey, fuse) != nil || env.Client.Get(ctx, recordKey, record) != nil; time.Sleep(200 * time.Millisecond) {
		if time.Since(start) > within {
			got := &datav1alpha1.JuiceFSRuntime{}
			_ = env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "shared"}, got)
			t.Fatalf("Helm creates the FUSE DaemonSet and the controller its record: not within %v; runtime conditions %+v; events:\n%s", within, got.Status.Conditions, runtimeEvents(t, ns, "shared"))
		}
	}
	tenant := []string{"PATH", "/opt/t", "nfs.tenant-b.example.com"}
	// B's own FUSE runs B's fields: the same namespace's pods are B's.
	own := jsonOf(t, fuse.Spec.Template.Spec)
	for _, s := range tenant {
		if !strings.Contains(own, s) {
			t.Fatalf("B's FUSE DaemonSet lacks %q: %s", s, own)
		}
	}
	spec := &record.Template.Spec
	if len(spec.Containers) != 1 {
		t.Fatalf("the record has %d containers", len(spec.Containers))
	}
	c := spec.Containers[0]
	for _, e := range c.Env {
		if e.Name == "PATH" {
			t.Errorf("the record sets B's env %s=%s", e.Name, e.Value)
		}
	}
	for _, v := range spec.Volumes {
		if v.NFS != nil || v.Name == "t" {
			t.Errorf("the record holds B's volume %+v", v)
		}
	}
	for _, m := range c.VolumeMounts {
		if m.MountPath == "/opt/t" {
			t.Errorf("the record mounts B's volume at %s", m.MountPath)
		}
	}
	if got := jsonOf(t, spec); strings.Contains(got, "tenant-b.example.com") || strings.Contains(got, "/opt/t") {
		t.Errorf("the record holds a value of B's: %s", got)
	}
	fc := fuse.Spec.Template.Spec.Containers[0]
	if c.Image != fc.Image || !slices.Equal(c.Command, fc.Command) || !slices.Equal(c.Args, fc.Args) {
		t.Errorf("the record runs %s %q %q, want the engine's %s %q %q", c.Image, c.Command, c.Args, fc.Image, fc.Command, fc.Args)
	}
	mounted := false
	for _, m := range c.VolumeMounts {
		mounted = mounted || (m.MountPropagation != nil && *m.MountPropagation == corev1.MountPropagationBidirectional)
	}
	if !mounted {
		t.Errorf("the record lacks the engine's FUSE mount: %+v", c.VolumeMounts)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
