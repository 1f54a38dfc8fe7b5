package webhook_test

import (
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// bindSeeded records a Dataset as bound to its runtime of type typ, and the
// runtime as serving the Dataset's mounts, as the controller does.
func bindSeeded(t *testing.T, ds *datav1alpha1.Dataset, rt datav1alpha1.RuntimeObject, typ string) {
	t.Helper()
	ctx := ctxT(t)
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(ds), ds); err != nil {
			return err
		}
		ds.Status.Phase = datav1alpha1.BoundDatasetPhase
		ds.Status.Runtimes = []datav1alpha1.Runtime{{Name: ds.Name, Namespace: ds.Namespace, Type: typ, Category: datav1alpha1.AccelerateCategory}}
		return env.Client.Status().Update(ctx, ds)
	}); err != nil {
		t.Fatal(err)
	}
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(rt), rt); err != nil {
			return err
		}
		rt.GetRuntimeStatus().Mounts = engines.EffectiveMounts(ds)
		return env.Client.Status().Update(ctx, rt)
	}); err != nil {
		t.Fatal(err)
	}
}

// tryEdit sends a change of the stored Dataset through admission without
// storing it.
func tryEdit(t *testing.T, ds *datav1alpha1.Dataset, change func(*datav1alpha1.Dataset)) error {
	t.Helper()
	edited := &datav1alpha1.Dataset{}
	if err := env.Client.Get(ctxT(t), client.ObjectKeyFromObject(ds), edited); err != nil {
		t.Fatal(err)
	}
	change(edited)
	return env.Client.Update(ctxT(t), edited, client.DryRunAll)
}

// TestMountEditAdmission, through the real API server and the validating
// webhook: a change of a bound Dataset's mounts that its engine cannot
// apply is denied naming each field and the rule mount-edit (JuiceFS's
// volume and fixed format settings, Alluxio's root under storage), while
// a change the engine applies is admitted.
func TestMountEditAdmission(t *testing.T) {
	ns := env.Namespace(t)
	ctx := ctxT(t)

	jfs := testobj.Dataset("vol", ns, testobj.WithMounts("juicefs:///vol"))
	jfs.Spec.Mounts[0].Options = map[string]string{"block-size": "4096"}
	if err := env.Client.Create(ctx, jfs); err != nil {
		t.Fatal(err)
	}
	jrt := testobj.JuiceFSRuntime("vol", ns, 1, testobj.Level(datav1alpha1.Memory, "/dev/shm", "1Gi"))
	if err := env.Client.Create(ctx, jrt); err != nil {
		t.Fatal(err)
	}
	bindSeeded(t, jfs, jrt, "juicefs")
	var err error
	waitFor(t, 5*time.Second, "the mount-edit denial", func() bool {
		err = tryEdit(t, jfs, func(ds *datav1alpha1.Dataset) {
			ds.Spec.Mounts[0].MountPoint = "juicefs:///other"
			ds.Spec.SharedOptions = map[string]string{"compress": "lz4"}
		})
		return err != nil && strings.Contains(err.Error(), "rule mount-edit")
	})
	for _, want := range []string{
		`spec.mounts[0].mountPoint: the mount point (the volume's sub-directory) of the JuiceFS volume a bound Dataset mounts cannot change (was "juicefs:///vol", now "juicefs:///other")`,
		`spec.sharedOptions["compress"]: juicefs format keeps compress of an existing volume (was unset, now "lz4")`,
	} {
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("denial %v does not say %q", err, want)
		}
	}
	if err := tryEdit(t, jfs, func(ds *datav1alpha1.Dataset) { ds.Spec.Mounts[0].Options["buffer-size"] = "512" }); err != nil {
		t.Errorf("a mount flag added to a bound JuiceFS Dataset: %v", err)
	}

	lake := testobj.Dataset("lake", ns, testobj.WithMounts("s3://bucket/lake"))
	if err := env.Client.Create(ctx, lake); err != nil {
		t.Fatal(err)
	}
	art := alluxioRuntime("lake", ns)
	if err := env.Client.Create(ctx, art); err != nil {
		t.Fatal(err)
	}
	bindSeeded(t, lake, art, "alluxio")
	waitFor(t, 5*time.Second, "the root's mount-edit denial", func() bool {
		err = tryEdit(t, lake, func(ds *datav1alpha1.Dataset) { ds.Spec.Mounts[0].MountPoint = "s3://bucket/other" })
		return err != nil && strings.Contains(err.Error(), "rule mount-edit")
	})
	if want := "spec.mounts[0]: the root under storage of a bound Alluxio Dataset (s3://bucket/lake) cannot change"; !strings.Contains(err.Error(), want) {
		t.Errorf("denial %v does not say %q", err, want)
	}
	err = tryEdit(t, lake, func(ds *datav1alpha1.Dataset) {
		ds.Spec.Mounts[0].Name = "lake"
		ds.Spec.Mounts = append(ds.Spec.Mounts, datav1alpha1.Mount{MountPoint: "s3://bucket/more", Name: "more"})
	})
	if err == nil || !strings.Contains(err.Error(), "spec.mounts: the sole mount without name or path (s3://bucket/lake) is the bound Alluxio Dataset's root") {
		t.Errorf("a second mount beside a bound Alluxio root: %v", err)
	}
}

// TestPodsOfAServedDatasetAreAdmitted: a Pod using a Dataset whose mounts
// are being changed (Updating), or whose bound runtime could not apply its
// spec (Failed, still bound), is admitted: the runtime serves it.
func TestPodsOfAServedDatasetAreAdmitted(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "updating", datav1alpha1.UpdatingDatasetPhase)
	seedDataset(t, ns, "failed", datav1alpha1.FailedDatasetPhase)
	waitForCache()
	for _, name := range []string{"updating", "failed"} {
		if _, err := dryRunPod(t, ns, name, serverful); err != nil {
			t.Errorf("a Pod of the %s Dataset: %v", name, err)
		}
	}
}
