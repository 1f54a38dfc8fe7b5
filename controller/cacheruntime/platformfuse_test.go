package cacheruntime

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/alluxio"
	"github.com/sluice-data/sluice/engines/jindo"
	"github.com/sluice-data/sluice/engines/juicefs"
	"github.com/sluice-data/sluice/engines/thin"
)

// TestTenantContainerFieldsCoverTheRecipes: the fields audit N7 names
// (env, volumes, volumeMounts, JVM options, arguments, probes, lifecycle,
// pod metadata of a FUSE program) are among the tenant container fields of
// every runtime kind that has them.
func TestTenantContainerFieldsCoverTheRecipes(t *testing.T) {
	want := map[string][]string{
		"JuiceFSRuntime": {"spec.fuse.env", "spec.fuse.volumeMounts", "spec.volumes", "spec.fuse.podMetadata.annotations"},
		"AlluxioRuntime": {"spec.fuse.env", "spec.fuse.volumeMounts", "spec.volumes", "spec.fuse.jvmOptions", "spec.jvmOptions", "spec.fuse.args"},
		"JindoRuntime":   {"spec.fuse.env", "spec.fuse.args", "spec.volumes", "spec.fuse.labels"},
		"ThinRuntime": {"spec.fuse.env", "spec.fuse.volumeMounts", "spec.volumes", "spec.fuse.command", "spec.fuse.args",
			"spec.fuse.lifecycle", "spec.fuse.livenessProbe", "spec.fuse.readinessProbe", "spec.fuse.ports"},
	}
	got := TenantContainerFields()
	for kind, paths := range want {
		for _, p := range paths {
			if !slices.Contains(got[kind], p) {
				t.Errorf("%s %s is not a tenant container field (got %v)", kind, p, got[kind])
			}
		}
	}
}

// TestPlatformFuseHoldsNoTenantValue (audit N7): for every engine, each
// tenant container field (TenantContainerFields) set to a value of its own
// is in none of the FUSE record's template, while the FUSE DaemonSet the
// release renders still carries the recipe's fields (the producer's own
// pods keep them). The engine's image, command and FUSE mount stay.
func TestPlatformFuseHoldsNoTenantValue(t *testing.T) {
	for _, c := range platformCases() {
		t.Run(c.name, func(t *testing.T) {
			fields := TenantContainerFields()[reflect.TypeOf(c.rt).Elem().Name()]
			if len(fields) == 0 {
				t.Fatal("no tenant container fields")
			}
			rt := c.rt.DeepCopyObject().(client.Object)
			markers := map[string]string{}
			for i, p := range fields {
				markers[p] = fmt.Sprintf("zq%dx", i)
				// A field the engine refuses (a component it does not
				// run) reaches nothing: the reconcile stops before Helm.
				// With spec.volumes set, which a volumeMounts field names.
				alone := c.rt.DeepCopyObject().(client.Object)
				for _, q := range []string{"spec.volumes", p} {
					if err := fillAt(reflect.ValueOf(alone), strings.Split(q, "."), markers[p]); err != nil {
						t.Fatalf("setting %s: %v", q, err)
					}
				}
				if _, err := c.eng.Values(c.ds, alone); err != nil {
					t.Logf("%s: refused (%v)", p, err)
					continue
				}
				if err := fillAt(reflect.ValueOf(rt), strings.Split(p, "."), markers[p]); err != nil {
					t.Fatalf("setting %s: %v", p, err)
				}
			}
			ch, err := helm.LoadChart(c.eng.Chart())
			if err != nil {
				t.Fatal(err)
			}
			values, err := c.eng.Values(c.ds, rt)
			if err != nil {
				t.Fatalf("the engine refuses the runtime with every tenant field set: %v", err)
			}
			full, ok, err := renderedFuse(context.Background(), ch, values, rt.GetName(), rt.GetNamespace())
			if err != nil || !ok {
				t.Fatalf("the release's FUSE DaemonSet: found %v, %v", ok, err)
			}
			platform, ok, err := platformFuse(context.Background(), c.eng, ch, c.ds, rt)
			if err != nil || !ok {
				t.Fatalf("the FUSE record: found %v, %v", ok, err)
			}
			fullJSON, platformJSON := lowerJSON(t, full), lowerJSON(t, platform)
			for _, p := range fields {
				if strings.Contains(platformJSON, markers[p]) {
					t.Errorf("the FUSE record holds the value of %s (%s)", p, markers[p])
				}
			}
			for _, p := range c.reachFuse {
				if !strings.Contains(fullJSON, markers[p]) {
					t.Errorf("the FUSE DaemonSet lacks the value of %s (%s): the test does not see what it removes", p, markers[p])
				}
			}
			fc, pc := full.Spec.Containers[0], platform.Spec.Containers[0]
			if fc.Image != pc.Image {
				t.Errorf("the record's image %q, want the engine's %q", pc.Image, fc.Image)
			}
			if c.sameCommand && !slices.Equal(fc.Command, pc.Command) {
				t.Errorf("the record's command %q, want the engine's %q", pc.Command, fc.Command)
			}
			if len(pc.VolumeMounts) == 0 || len(platform.Spec.Volumes) == 0 {
				t.Errorf("the record mounts nothing; want the engine's own volumes (the FUSE mount): %+v", platform.Spec)
			}
		})
	}
}

// TestPlatformRuntimeLeavesTheRuntime: the copy is cleared, the runtime
// the reconcile holds is not.
func TestPlatformRuntimeLeavesTheRuntime(t *testing.T) {
	rt := &datav1alpha1.JuiceFSRuntime{Spec: datav1alpha1.JuiceFSRuntimeSpec{Fuse: datav1alpha1.JuiceFSFuseSpec{
		Env: []corev1.EnvVar{{Name: "PATH", Value: "/opt/t"}}, Options: map[string]string{"attr-cache": "1"}}}}
	cp, err := platformRuntime(rt)
	if err != nil {
		t.Fatal(err)
	}
	got := cp.(*datav1alpha1.JuiceFSRuntime)
	if len(got.Spec.Fuse.Env) != 0 || got.Spec.Fuse.Options["attr-cache"] != "1" {
		t.Errorf("the platform's copy: env %v (want none), options %v (want kept)", got.Spec.Fuse.Env, got.Spec.Fuse.Options)
	}
	if len(rt.Spec.Fuse.Env) != 1 {
		t.Errorf("the runtime's env was cleared too: %v", rt.Spec.Fuse.Env)
	}
}

type platformCase struct {
	name string
	eng  engines.Engine
	ds   *datav1alpha1.Dataset
	rt   client.Object
	// reachFuse are tenant fields whose values the FUSE DaemonSet shows.
	reachFuse []string
	// sameCommand: the engine's FUSE command does not depend on the
	// tenant's fields (a Thin override replaces the profile's).
	sameCommand bool
}

func platformCases() []platformCase {
	meta := metav1.ObjectMeta{Name: "shared", Namespace: "team-b", UID: "7e0b2c3d-0000-4000-8000-000000000001"}
	quota := resource.MustParse("10Gi")
	levels := datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{{MediumType: datav1alpha1.SSD, Path: "/mnt/cache", Quota: &quota}}}
	dataset := func(mounts ...datav1alpha1.Mount) *datav1alpha1.Dataset {
		return &datav1alpha1.Dataset{ObjectMeta: meta, Spec: datav1alpha1.DatasetSpec{Mounts: mounts}}
	}
	secret := func(name, key string) datav1alpha1.EncryptOptionSource {
		return datav1alpha1.EncryptOptionSource{SecretKeyRef: datav1alpha1.SecretKeySelector{Name: name, Key: key}}
	}
	profile := &datav1alpha1.ThinRuntimeProfile{ObjectMeta: metav1.ObjectMeta{Name: "nfs-fuse"}, Spec: datav1alpha1.ThinRuntimeProfileSpec{
		FileSystemType: "fuse.nfs-fuse",
		Fuse: datav1alpha1.ThinFuseSpec{VersionSpec: datav1alpha1.VersionSpec{Image: "registry.example.com/nfs-fuse", ImageTag: "v1"},
			Command: []string{"/mount.sh"}},
	}}
	return []platformCase{
		{name: "juicefs", eng: juicefs.Engine{},
			ds: dataset(datav1alpha1.Mount{MountPoint: "juicefs:///shared", Name: "shared",
				EncryptOptions: []datav1alpha1.EncryptOption{{Name: "metaurl", ValueFrom: secret("jfs", "metaurl")}}}),
			rt:        &datav1alpha1.JuiceFSRuntime{ObjectMeta: meta, Spec: datav1alpha1.JuiceFSRuntimeSpec{Replicas: 1, TieredStore: levels}},
			reachFuse: []string{"spec.fuse.env", "spec.fuse.volumeMounts", "spec.volumes", "spec.fuse.podMetadata.annotations"}, sameCommand: true},
		{name: "alluxio", eng: alluxio.Engine{},
			ds:        dataset(datav1alpha1.Mount{MountPoint: "s3://b/p", Name: "p"}),
			rt:        &datav1alpha1.AlluxioRuntime{ObjectMeta: meta, Spec: datav1alpha1.AlluxioRuntimeSpec{Replicas: 1, TieredStore: levels}},
			reachFuse: []string{"spec.fuse.env", "spec.fuse.volumeMounts", "spec.volumes", "spec.fuse.jvmOptions", "spec.jvmOptions", "spec.fuse.args"}, sameCommand: true},
		{name: "jindo", eng: jindo.Engine{},
			ds:        dataset(datav1alpha1.Mount{MountPoint: "oss://b/p", Name: "p", Options: map[string]string{"fs.oss.endpoint": "oss.example.com"}}),
			rt:        &datav1alpha1.JindoRuntime{ObjectMeta: meta, Spec: datav1alpha1.JindoRuntimeSpec{Replicas: 1, TieredStore: levels}},
			reachFuse: []string{"spec.fuse.env", "spec.fuse.args", "spec.fuse.labels"}, sameCommand: true},
		{name: "thin", eng: thin.ProfileEngine{Profile: profile},
			ds: dataset(datav1alpha1.Mount{MountPoint: "nfs://10.0.0.5/exports", Name: "e"}),
			rt: &datav1alpha1.ThinRuntime{ObjectMeta: meta, Spec: datav1alpha1.ThinRuntimeSpec{ProfileName: "nfs-fuse", TieredStore: levels}},
			reachFuse: []string{"spec.fuse.env", "spec.fuse.volumeMounts", "spec.volumes", "spec.fuse.command", "spec.fuse.args",
				"spec.fuse.lifecycle", "spec.fuse.livenessProbe", "spec.fuse.readinessProbe", "spec.fuse.ports"}},
	}
}

func lowerJSON(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return strings.ToLower(string(raw))
}

// markerVolume is the name of the volume fillAt puts in spec.volumes, which
// the volumeMounts it fills mount.
const markerVolume = "tenant-volume"

// fillAt sets the field at the path segments under v to a value of its
// type carrying marker. A type it does not know fails, so that a field
// the trust table adds later is filled here too.
func fillAt(v reflect.Value, segs []string, marker string) error {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	if len(segs) > 0 {
		child, ok := engines.JSONField(v, segs[0])
		if !ok {
			return fmt.Errorf("no field %q in %s", segs[0], v.Type())
		}
		return fillAt(child, segs[1:], marker)
	}
	var val any
	switch v.Interface().(type) {
	case []corev1.EnvVar:
		val = []corev1.EnvVar{{Name: strings.ToUpper(marker), Value: marker}}
	case []corev1.Volume:
		val = []corev1.Volume{{Name: markerVolume, VolumeSource: corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: marker + ".example.com", Path: "/t"}}}}
	case []corev1.VolumeMount:
		val = []corev1.VolumeMount{{Name: markerVolume, MountPath: "/opt/" + marker}}
	case []corev1.ContainerPort:
		val = []corev1.ContainerPort{{Name: marker, ContainerPort: 4242}}
	case []string:
		val = []string{"-D" + marker + "=1"}
	case map[string]string:
		val = map[string]string{marker: marker}
	case map[string]int:
		val = map[string]int{marker: 4242}
	case corev1.Lifecycle:
		val = corev1.Lifecycle{PostStart: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{marker}}}}
	case corev1.Probe:
		val = corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{marker}}}}
	default:
		return fmt.Errorf("no value for a field of type %s: add one to fillAt", v.Type())
	}
	v.Set(reflect.ValueOf(val))
	return nil
}
