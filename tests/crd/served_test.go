package crd_test

import (
	"context"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// ctxT is the context of one test step.
func ctxT(t *testing.T) context.Context { return testenv.Context(t) }

// everyKind returns one valid object of each of the ten kinds, in namespace ns.
func everyKind(ns string) []client.Object {
	meta := metav1.ObjectMeta{Name: "demo", Namespace: ns}
	return []client.Object{
		testobj.Dataset("demo", ns),
		&datav1alpha1.AlluxioRuntime{ObjectMeta: meta, Spec: datav1alpha1.AlluxioRuntimeSpec{Replicas: 1,
			TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{testobj.Level(datav1alpha1.Memory, "/dev/shm", "1Gi")}}}},
		testobj.JuiceFSRuntime("demo", ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi")),
		&datav1alpha1.JindoRuntime{ObjectMeta: meta, Spec: datav1alpha1.JindoRuntimeSpec{Replicas: 2}},
		&datav1alpha1.ThinRuntime{ObjectMeta: meta, Spec: datav1alpha1.ThinRuntimeSpec{ProfileName: "nfs"}},
		&datav1alpha1.ThinRuntimeProfile{ObjectMeta: metav1.ObjectMeta{Name: "nfs-" + utilrand.String(6)},
			Spec: datav1alpha1.ThinRuntimeProfileSpec{FileSystemType: "nfs"}},
		testobj.DataLoad("demo", ns, "demo"),
		&datav1alpha1.DataMigrate{ObjectMeta: meta, Spec: datav1alpha1.DataMigrateSpec{
			From: datav1alpha1.DataToMigrate{ExternalStorage: &datav1alpha1.ExternalStorage{URI: "s3://bucket/src"}},
			To:   datav1alpha1.DataToMigrate{DataSet: &datav1alpha1.DatasetToMigrate{Name: "demo", Namespace: ns}}}},
		&datav1alpha1.DataBackup{ObjectMeta: meta, Spec: datav1alpha1.DataBackupSpec{Dataset: "demo", BackupPath: "pvc://backups/demo"}},
		&datav1alpha1.DataProcess{ObjectMeta: meta, Spec: datav1alpha1.DataProcessSpec{
			Dataset:   datav1alpha1.TargetDatasetWithMountPath{Name: "demo", MountPath: "/data"},
			Processor: datav1alpha1.Processor{Script: &datav1alpha1.ScriptProcessor{Source: "ls /data"}}}},
	}
}

// TestEveryKindIsServed creates one object of each kind through the typed
// client, reads it back, lists it, and checks that the spec survived.
func TestEveryKindIsServed(t *testing.T) {
	ns := env.Namespace(t)
	objs := everyKind(ns)
	if len(objs) != len(allKinds) {
		t.Fatalf("everyKind has %d objects for %d kinds", len(objs), len(allKinds))
	}
	for _, obj := range objs {
		gvk, err := env.Client.GroupVersionKindFor(obj)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(gvk.Kind, func(t *testing.T) {
			ctx := ctxT(t)
			want := obj.DeepCopyObject().(client.Object)
			if err := env.Client.Create(ctx, obj); err != nil {
				t.Fatalf("create: %v", err)
			}
			t.Cleanup(func() { _ = env.Client.Delete(context.Background(), obj) })
			got := want.DeepCopyObject().(client.Object)
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got); err != nil {
				t.Fatalf("get: %v", err)
			}
			if got.GetUID() == "" || got.GetCreationTimestamp().Time.IsZero() {
				t.Fatalf("stored object has no UID or creation time: %+v", got)
			}
			if !specContains(t, want, got) {
				t.Fatalf("spec changed on the way through the API server:\nsent   %+v\nstored %+v", want, got)
			}
			list := &metav1.PartialObjectMetadataList{}
			list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
			if err := env.Client.List(ctx, list, client.InNamespace(obj.GetNamespace())); err != nil {
				t.Fatalf("list: %v", err)
			}
			if len(list.Items) == 0 {
				t.Fatal("list returned nothing")
			}
		})
	}
}

// specContains reports whether every field set in want's spec is stored in
// got's spec (got may hold defaults on top).
func specContains(t *testing.T, want, got client.Object) bool {
	t.Helper()
	w, g := specOf(t, want), specOf(t, got)
	return len(missing("spec", w, g)) == 0
}

func specOf(t *testing.T, obj client.Object) any {
	t.Helper()
	m := normalise(t, obj).(map[string]any)
	return m["spec"]
}

// TestStatusSubresource writes a Dataset's status through the status
// subresource and checks that the main resource ignores status and the
// status subresource ignores spec.
func TestStatusSubresource(t *testing.T) {
	ctx := ctxT(t)
	ns := env.Namespace(t)
	ds := testobj.Dataset("demo", ns)
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	ds.Status = datav1alpha1.DatasetStatus{
		Phase:        datav1alpha1.BoundDatasetPhase,
		UfsTotal:     "10.0GiB",
		CacheStates:  datav1alpha1.CacheStateList{datav1alpha1.Cached: "1GiB", datav1alpha1.CachedPercentage: "10.0%"},
		OperationRef: map[string]string{"DataLoad": "warmup"},
		Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Bound",
			Message: "bound to JuiceFSRuntime demo", LastTransitionTime: metav1.Now()}},
	}
	ds.Spec.Placement = datav1alpha1.ShareMode // must be ignored by the status write
	if err := env.Client.Status().Update(ctx, ds); err != nil {
		t.Fatalf("status update: %v", err)
	}
	got := &datav1alpha1.Dataset{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(ds), got); err != nil {
		t.Fatal(err)
	}
	if got.Status.Phase != datav1alpha1.BoundDatasetPhase || got.Status.OperationRef["DataLoad"] != "warmup" || len(got.Status.Conditions) != 1 {
		t.Fatalf("status not stored: %+v", got.Status)
	}
	if got.Spec.Placement != "" {
		t.Fatalf("status update changed spec.placement to %q", got.Spec.Placement)
	}
	got.Status.Phase = datav1alpha1.FailedDatasetPhase
	got.Spec.Placement = datav1alpha1.ExclusiveMode
	if err := env.Client.Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	again := &datav1alpha1.Dataset{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(ds), again); err != nil {
		t.Fatal(err)
	}
	if again.Status.Phase != datav1alpha1.BoundDatasetPhase || again.Spec.Placement != datav1alpha1.ExclusiveMode {
		t.Fatalf("main-resource update: phase %q (want Bound), placement %q (want Exclusive)", again.Status.Phase, again.Spec.Placement)
	}
}

// TestScaleSubresource scales every runtime kind through its scale
// subresource, as `kubectl scale` and the HorizontalPodAutoscaler do.
func TestScaleSubresource(t *testing.T) {
	ns := env.Namespace(t)
	for _, obj := range everyKind(ns) {
		if _, isRuntime := runtimeStatusOf(obj); !isRuntime {
			continue
		}
		gvk, _ := env.Client.GroupVersionKindFor(obj)
		t.Run(gvk.Kind, func(t *testing.T) {
			ctx := ctxT(t)
			if err := env.Client.Create(ctx, obj); err != nil {
				t.Fatal(err)
			}
			status, _ := runtimeStatusOf(obj)
			status.CurrentWorkerNumberScheduled = 1
			status.Selector = "app=demo,role=worker"
			if err := env.Client.Status().Update(ctx, obj); err != nil {
				t.Fatal(err)
			}
			scale := &autoscalingv1.Scale{}
			if err := env.Client.SubResource("scale").Get(ctx, obj, scale); err != nil {
				t.Fatalf("get scale: %v", err)
			}
			if scale.Status.Replicas != 1 || scale.Status.Selector != "app=demo,role=worker" {
				t.Fatalf("scale status = %+v", scale.Status)
			}
			scale.Spec.Replicas = 4
			if err := env.Client.SubResource("scale").Update(ctx, obj, client.WithSubResourceBody(scale)); err != nil {
				t.Fatalf("update scale: %v", err)
			}
			fresh := obj.DeepCopyObject().(client.Object)
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), fresh); err != nil {
				t.Fatal(err)
			}
			if got := replicasOf(fresh); got != 4 {
				t.Fatalf("spec.replicas = %d after scaling to 4", got)
			}
		})
	}
}

func runtimeStatusOf(obj client.Object) (*datav1alpha1.RuntimeStatus, bool) {
	switch r := obj.(type) {
	case *datav1alpha1.AlluxioRuntime:
		return &r.Status, true
	case *datav1alpha1.JuiceFSRuntime:
		return &r.Status, true
	case *datav1alpha1.JindoRuntime:
		return &r.Status, true
	case *datav1alpha1.ThinRuntime:
		return &r.Status, true
	}
	return nil, false
}

func replicasOf(obj client.Object) int32 {
	switch r := obj.(type) {
	case *datav1alpha1.AlluxioRuntime:
		return r.Spec.Replicas
	case *datav1alpha1.JuiceFSRuntime:
		return r.Spec.Replicas
	case *datav1alpha1.JindoRuntime:
		return r.Spec.Replicas
	case *datav1alpha1.ThinRuntime:
		return r.Spec.Replicas
	}
	return -1
}

// TestEnvVarsAndVolumesRoundTrip checks that embedded core types keep their
// structure, e.g. a JuiceFS worker's env var from a field reference.
func TestEnvVarsAndVolumesRoundTrip(t *testing.T) {
	ctx := ctxT(t)
	ns := env.Namespace(t)
	rt := testobj.JuiceFSRuntime("demo", ns, 1)
	rt.Spec.Worker.Env = []corev1.EnvVar{{Name: "NODE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}}}
	rt.Spec.Volumes = []corev1.Volume{{Name: "cfg", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "jfs"}}}}
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	got := &datav1alpha1.JuiceFSRuntime{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(rt), got); err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(got.Spec.Worker.Env, rt.Spec.Worker.Env) {
		t.Fatalf("env: %+v", got.Spec.Worker.Env)
	}
	if got.Spec.Volumes[0].Secret == nil || got.Spec.Volumes[0].Secret.SecretName != "jfs" {
		t.Fatalf("volumes: %+v", got.Spec.Volumes)
	}
}
