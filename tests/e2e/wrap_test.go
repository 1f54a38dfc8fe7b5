package e2e_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// TestWrappedPVCOnSimulatedCluster (issue 32, point 6): a team's NAS PVC
// nas-data, and a ThinRuntime Dataset whose one mount is pvc://nas-data.
// Once the Dataset is Bound the PVC is marked as wrapped by it, and a
// serverless Pod that keeps mounting nas-data runs with the Dataset's FUSE
// as its sidecar, its volume the FUSE mount. Deleting the Dataset (once
// the Pod is gone) removes its runtime, and the mark from the PVC, which
// stays.
func TestWrappedPVCOnSimulatedCluster(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c := cluster.Client
	defer func() {
		if t.Failed() {
			t.Log(cluster.Logs(15))
		}
	}()
	nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-wrap-"}}
	if err := c.Create(ctx, nsObj); err != nil {
		t.Fatal(err)
	}
	ns := nsObj.Name
	key := func(name string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: name} }
	nas := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nas-data"},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Ti")}}}}
	if err := c.Create(ctx, nas); err != nil {
		t.Fatal(err)
	}
	profile := &datav1alpha1.ThinRuntimeProfile{ObjectMeta: metav1.ObjectMeta{Name: ns},
		Spec: datav1alpha1.ThinRuntimeProfileSpec{FileSystemType: "nfs",
			Fuse: datav1alpha1.ThinFuseSpec{VersionSpec: datav1alpha1.VersionSpec{Image: "registry.example.com/nfs-fuse", ImageTag: "v1"},
				Command: []string{"/usr/local/bin/mount-nfs"}}}}
	if err := c.Create(ctx, profile); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), profile) })
	ds := testobj.Dataset("nas", ns, testobj.WithMounts("pvc://nas-data"))
	if err := c.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	rt := &datav1alpha1.ThinRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nas"}, Spec: datav1alpha1.ThinRuntimeSpec{ProfileName: profile.Name}}
	if err := c.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "the Dataset Bound and nas-data marked as wrapped by it", func() (bool, error) {
		if err := c.Get(ctx, key("nas"), ds); err != nil || ds.Status.Phase != datav1alpha1.BoundDatasetPhase {
			return false, err
		}
		err := c.Get(ctx, key("nas-data"), nas)
		return nas.Labels[datav1alpha1.LabelWrappedByDataset] == "nas", err
	})

	reader := readerPod(ns, "reader", "nas-data", map[string]string{datav1alpha1.LabelServerlessInject: "true"})
	waitFor(ctx, t, "the serverless reader of nas-data admitted with Dataset nas's FUSE sidecar", func() (bool, error) {
		// The webhook's cache of wrapped PVCs may be a moment behind the mark.
		if err := c.Create(ctx, reader); err != nil {
			return false, err
		}
		if len(reader.Spec.InitContainers) > 0 && strings.HasPrefix(reader.Spec.InitContainers[0].Name, datav1alpha1.FuseSidecarContainerPrefix) {
			return true, nil
		}
		err := c.Delete(ctx, reader)
		reader = readerPod(ns, "reader", "nas-data", map[string]string{datav1alpha1.LabelServerlessInject: "true"})
		return false, client.IgnoreNotFound(err)
	})
	if img := reader.Spec.InitContainers[0].Image; img != "registry.example.com/nfs-fuse:v1" {
		t.Errorf("the reader's sidecar runs %q, want the profile's FUSE image", img)
	}
	pv := &corev1.PersistentVolume{}
	if err := c.Get(ctx, types.NamespacedName{Name: pvName(ns, "nas")}, pv); err != nil {
		t.Fatal(err)
	}
	for _, v := range reader.Spec.Volumes {
		if v.Name == "data" && (v.HostPath == nil || v.HostPath.Path != pv.Spec.CSI.VolumeAttributes[datav1alpha1.VolumeAttrFluidPath]) {
			t.Errorf("the reader's volume is %+v, want the Dataset's FUSE mount %s", v.VolumeSource, pv.Spec.CSI.VolumeAttributes[datav1alpha1.VolumeAttrFluidPath])
		}
	}
	waitFor(ctx, t, "kwok to run the reader", func() (bool, error) {
		err := c.Get(ctx, client.ObjectKeyFromObject(reader), reader)
		return reader.Status.Phase == corev1.PodRunning, err
	})

	if err := c.Delete(ctx, reader); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, ds); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "the Dataset and its runtime gone, and the mark with them", func() (bool, error) {
		for _, o := range []client.Object{&datav1alpha1.Dataset{}, &datav1alpha1.ThinRuntime{}} {
			if err := c.Get(ctx, key("nas"), o); !apierrors.IsNotFound(err) {
				return false, client.IgnoreNotFound(err)
			}
		}
		err := c.Get(ctx, key("nas-data"), nas)
		return err == nil && nas.Labels[datav1alpha1.LabelWrappedByDataset] == "", err
	})
	if !nas.DeletionTimestamp.IsZero() {
		t.Error("PVC nas-data is being deleted, want it kept")
	}
}
