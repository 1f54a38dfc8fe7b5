package controller_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// editDataset changes the Dataset's spec, retrying on conflicts (the
// controllers write its status).
func editDataset(t *testing.T, key types.NamespacedName, change func(*datav1alpha1.Dataset)) *datav1alpha1.Dataset {
	t.Helper()
	ds := &datav1alpha1.Dataset{}
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := env.Client.Get(testenv.Context(t), key, ds); err != nil {
			return err
		}
		change(ds)
		return env.Client.Update(testenv.Context(t), ds)
	}); err != nil {
		t.Fatal(err)
	}
	return ds
}

// datasetReady waits until the Dataset's phase is phase and its Ready
// condition has reason, and returns the Dataset.
func datasetReady(t *testing.T, key types.NamespacedName, phase datav1alpha1.DatasetPhase, reason string) *datav1alpha1.Dataset {
	t.Helper()
	ds := &datav1alpha1.Dataset{}
	var c *metav1.Condition
	eventually(t, 20*time.Second, "the Dataset is "+string(phase)+" ("+reason+")", func() bool {
		if env.Client.Get(testenv.Context(t), key, ds) != nil {
			return false
		}
		c = meta.FindStatusCondition(ds.Status.Conditions, "Ready")
		return ds.Status.Phase == phase && c != nil && c.Reason == reason
	})
	return ds
}

// TestAMountEditIsUpdatingUntilTheWorkersRollOut: a mount flag added to a
// bound JuiceFS Dataset is upgraded into the workers' template and the
// Dataset is Updating, naming the workers, until the StatefulSet has
// rolled out; then it is Bound again, and the runtime records the mounts
// it applied.
func TestAMountEditIsUpdatingUntilTheWorkersRollOut(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := func(n string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: n} }
	rt := boundRuntime(t, ns, "logs")
	eventually(t, 10*time.Second, "the runtime records the mounts it serves", func() bool {
		return env.Client.Get(ctx, key("logs"), rt) == nil && len(rt.Status.Mounts) == 1 && rt.Status.Mounts[0].MountPoint == "juicefs:///logs" && rt.Status.MountTime != nil
	})
	sts := &appsv1.StatefulSet{}
	if err := env.Client.Get(ctx, key("logs-worker"), sts); err != nil {
		t.Fatal(err)
	}
	before := sts.Generation

	ds := editDataset(t, key("logs"), func(ds *datav1alpha1.Dataset) { ds.Spec.Mounts[0].Options = map[string]string{"buffer-size": "512"} })
	updating := datasetReady(t, key("logs"), datav1alpha1.UpdatingDatasetPhase, "Updating")
	if c := meta.FindStatusCondition(updating.Status.Conditions, "Ready"); !strings.Contains(c.Message, "juicefs runtime logs is applying the Dataset's mounts: waiting for") {
		t.Errorf("Ready message %q", c.Message)
	}
	eventually(t, 20*time.Second, "Helm upgrades the workers with the new flag", func() bool {
		if env.Client.Get(ctx, key("logs-worker"), sts) != nil || sts.Generation == before {
			return false
		}
		return slices.Contains(sts.Spec.Template.Spec.Containers[0].Command, "--buffer-size=512") && sts.Annotations[engines.MountsAnnotation] == engines.MountsDigest(ds)
	})
	// The StatefulSet controller has not rolled the pods yet: still Updating,
	// and waiting for the workers.
	time.Sleep(2 * time.Second)
	updating = datasetReady(t, key("logs"), datav1alpha1.UpdatingDatasetPhase, "Updating")
	if c := meta.FindStatusCondition(updating.Status.Conditions, "Ready"); !strings.Contains(c.Message, "StatefulSet logs-worker to roll out") {
		t.Errorf("Ready message while the workers roll %q", c.Message)
	}
	if updating.Status.Mounts[0].Options != nil {
		t.Errorf("status.mounts shows the change before it is applied: %+v", updating.Status.Mounts)
	}

	markReady(t, sts)
	bound := datasetReady(t, key("logs"), datav1alpha1.BoundDatasetPhase, "Bound")
	if got := bound.Status.Mounts; len(got) != 1 || got[0].Options["buffer-size"] != "512" {
		t.Errorf("status.mounts once applied: %+v", got)
	}
	eventually(t, 10*time.Second, "the runtime records the new mounts", func() bool {
		return env.Client.Get(ctx, key("logs"), rt) == nil && engines.SameMounts(rt.Status.Mounts, engines.EffectiveMounts(bound))
	})
	eventually(t, 10*time.Second, "events on the Dataset tell the change and its end", func() bool {
		notes := datasetEvents(t, ns, "logs")
		return strings.Contains(notes, "Normal Updating") && strings.Contains(notes, "Normal MountsApplied")
	})
}

// mountJob waits for the runtime's mount Job of the Dataset's mounts.
func mountJob(t *testing.T, ds *datav1alpha1.Dataset) *batchv1.Job {
	t.Helper()
	job := &batchv1.Job{}
	name := engines.MountJobName(ds.Name, engines.MountsDigest(ds))
	eventually(t, 20*time.Second, "Helm creates the mount Job "+name, func() bool {
		return env.Client.Get(testenv.Context(t), types.NamespacedName{Namespace: ds.Namespace, Name: name}, job) == nil
	})
	return job
}

// TestAnAlluxioMountEditWaitsForItsMountJob: an S3 mount added to a bound
// Alluxio Dataset restarts no master (the master StatefulSet's template is
// unchanged) and is applied by the release's mount Job, which receives the
// new mount as arguments; the Dataset is Updating until the Job succeeds.
// A change whose Job fails leaves it Failed (MountsFailed), until the
// mounts are back to what the runtime applied.
func TestAnAlluxioMountEditWaitsForItsMountJob(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := func(n string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: n} }
	ds := testobj.Dataset("coco", ns)
	ds.Spec.Mounts = []datav1alpha1.Mount{{MountPoint: "s3://bucket/train", Name: "train"}}
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	rt := &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Name: "coco", Namespace: ns}, Spec: datav1alpha1.AlluxioRuntimeSpec{
		Replicas: 1, TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{testobj.Level(datav1alpha1.Memory, "/dev/shm", "2Gi")}}}}
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	readyMastersAndWorkers(t, ns, "coco")
	bound := datasetReady(t, key("coco"), datav1alpha1.BoundDatasetPhase, "Bound")
	finishJob(t, mountJob(t, bound), "", "") // the install's Job, which a bound Dataset does not wait for
	eventually(t, 10*time.Second, "the runtime records the mounts it serves", func() bool {
		return env.Client.Get(ctx, key("coco"), rt) == nil && len(rt.Status.Mounts) == 1
	})
	master := &appsv1.StatefulSet{}
	if err := env.Client.Get(ctx, key("coco-master"), master); err != nil {
		t.Fatal(err)
	}
	template := master.Spec.Template.DeepCopy()

	added := editDataset(t, key("coco"), func(ds *datav1alpha1.Dataset) {
		ds.Spec.Mounts = append(ds.Spec.Mounts, datav1alpha1.Mount{MountPoint: "s3://bucket/val", Name: "val"})
	})
	job := mountJob(t, added)
	// Updating first waits for the upgrade of the release, then for the
	// Job the upgrade created.
	updating := datasetReady(t, key("coco"), datav1alpha1.UpdatingDatasetPhase, "Updating")
	eventually(t, 10*time.Second, "the Updating Dataset waits for Job "+job.Name, func() bool {
		if env.Client.Get(ctx, key("coco"), updating) != nil {
			return false
		}
		c := meta.FindStatusCondition(updating.Status.Conditions, "Ready")
		return updating.Status.Phase == datav1alpha1.UpdatingDatasetPhase && c != nil && strings.Contains(c.Message, "Job "+job.Name+" to finish")
	})
	steps := append(slices.Clone(job.Spec.Template.Spec.InitContainers), job.Spec.Template.Spec.Containers...)
	if !slices.ContainsFunc(steps, func(c corev1.Container) bool {
		return slices.Contains(c.Command, "/val") && slices.Contains(c.Command, "s3://bucket/val")
	}) {
		t.Errorf("no step of the Job mounts /val from s3://bucket/val: %+v", steps)
	}
	if err := env.Client.Get(ctx, key("coco-master"), master); err != nil || master.Annotations[engines.MountsAnnotation] != engines.MountsDigest(added) {
		t.Fatalf("master StatefulSet: %v, annotations %v", err, master.Annotations)
	}
	if !equalTemplates(template, &master.Spec.Template) {
		t.Error("an S3 mount edit changed the master's pod template: the master would restart")
	}
	finishJob(t, job, "", "")
	applied := datasetReady(t, key("coco"), datav1alpha1.BoundDatasetPhase, "Bound")
	if len(applied.Status.Mounts) != 2 {
		t.Errorf("status.mounts once applied: %+v", applied.Status.Mounts)
	}
	eventually(t, 10*time.Second, "the runtime records the two mounts", func() bool {
		return env.Client.Get(ctx, key("coco"), rt) == nil && len(rt.Status.Mounts) == 2
	})

	// A change whose Job fails: Failed, naming the Job; the old Job is gone.
	removed := editDataset(t, key("coco"), func(ds *datav1alpha1.Dataset) { ds.Spec.Mounts = ds.Spec.Mounts[1:] })
	failing := mountJob(t, removed)
	finishJob(t, failing, "BackoffLimitExceeded", "Job has reached the specified backoff limit")
	failed := datasetReady(t, key("coco"), datav1alpha1.FailedDatasetPhase, "MountsFailed")
	if c := meta.FindStatusCondition(failed.Status.Conditions, "Ready"); !strings.Contains(c.Message, "Job "+failing.Name+" failed: Job has reached the specified backoff limit") {
		t.Errorf("Ready message %q", c.Message)
	}
	if err := env.Client.Get(ctx, key(job.Name), &batchv1.Job{}); !apierrors.IsNotFound(err) {
		t.Errorf("the superseded mount Job %s: %v", job.Name, err)
	}
	// Back to the mounts the runtime applied: Bound, with no Job to wait for.
	editDataset(t, key("coco"), func(ds *datav1alpha1.Dataset) { ds.Spec.Mounts = applied.Spec.Mounts })
	datasetReady(t, key("coco"), datav1alpha1.BoundDatasetPhase, "Bound")
}

func equalTemplates(a, b *corev1.PodTemplateSpec) bool {
	return a.String() == b.String()
}

// TestAnInvalidRuntimeFailsTheDatasetUntilFixed: a runtime whose spec its
// engine refuses leaves its Dataset Failed (InvalidSpec, naming the field)
// before binding; fixed, the Dataset is NotBound while the runtime starts,
// then Bound.
func TestAnInvalidRuntimeFailsTheDatasetUntilFixed(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := func(n string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: n} }
	if err := env.Client.Create(ctx, testobj.Dataset("raw", ns, testobj.WithMounts("juicefs:///raw"))); err != nil {
		t.Fatal(err)
	}
	rt := testobj.JuiceFSRuntime("raw", ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi"))
	rt.Spec.RunAs = &datav1alpha1.User{UID: ptr.To[int64](1000), GID: ptr.To[int64](1000), UserName: "app", GroupName: "app"}
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	failed := datasetReady(t, key("raw"), datav1alpha1.FailedDatasetPhase, "InvalidSpec")
	if c := meta.FindStatusCondition(failed.Status.Conditions, "Ready"); !strings.Contains(c.Message, "juicefs runtime raw: spec.runAs") {
		t.Errorf("Ready message %q does not name the runtime and the field", c.Message)
	}
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := env.Client.Get(ctx, key("raw"), rt); err != nil {
			return err
		}
		rt.Spec.RunAs = nil
		return env.Client.Update(ctx, rt)
	}); err != nil {
		t.Fatal(err)
	}
	datasetReady(t, key("raw"), datav1alpha1.NotBoundDatasetPhase, "NotBound")
	sts := &appsv1.StatefulSet{}
	eventually(t, 20*time.Second, "Helm installs the workers", func() bool { return env.Client.Get(ctx, key("raw-worker"), sts) == nil })
	markReady(t, sts)
	datasetReady(t, key("raw"), datav1alpha1.BoundDatasetPhase, "Bound")
}

// TestARefusedMountEditFailsTheBoundDataset: a change of a bound JuiceFS
// Dataset's volume (admitted while no webhook runs, as in this
// environment) is refused at reconcile: the Dataset is Failed (InvalidSpec,
// naming the field), the release is not upgraded, and Pods may still use
// the volume it serves; reverted, the Dataset is Bound again.
func TestARefusedMountEditFailsTheBoundDataset(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := func(n string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: n} }
	rt := boundRuntime(t, ns, "vol")
	eventually(t, 10*time.Second, "the runtime records the mounts it serves", func() bool {
		return env.Client.Get(ctx, key("vol"), rt) == nil && len(rt.Status.Mounts) == 1
	})
	sts := &appsv1.StatefulSet{}
	if err := env.Client.Get(ctx, key("vol-worker"), sts); err != nil {
		t.Fatal(err)
	}
	before := sts.Generation
	editDataset(t, key("vol"), func(ds *datav1alpha1.Dataset) { ds.Spec.Mounts[0].MountPoint = "juicefs:///elsewhere" })
	failed := datasetReady(t, key("vol"), datav1alpha1.FailedDatasetPhase, "InvalidSpec")
	if c := meta.FindStatusCondition(failed.Status.Conditions, "Ready"); !strings.Contains(c.Message, "spec.mounts[0].mountPoint") ||
		!strings.Contains(c.Message, `was "juicefs:///vol", now "juicefs:///elsewhere"`) {
		t.Errorf("Ready message %q does not name the field and the change", c.Message)
	}
	if len(failed.Status.Runtimes) != 1 {
		t.Errorf("a Failed bound Dataset lost its runtime: %+v", failed.Status.Runtimes)
	}
	if err := env.Client.Get(ctx, key("vol-worker"), sts); err != nil || sts.Generation != before {
		t.Errorf("the workers were upgraded for a refused change: %v, generation %d (was %d)", err, sts.Generation, before)
	}
	editDataset(t, key("vol"), func(ds *datav1alpha1.Dataset) { ds.Spec.Mounts[0].MountPoint = "juicefs:///vol" })
	datasetReady(t, key("vol"), datav1alpha1.BoundDatasetPhase, "Bound")
}
