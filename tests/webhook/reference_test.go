package webhook_test

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// update changes an object as stored, again on a conflict.
func update(t *testing.T, obj client.Object, change func()) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := env.Client.Get(ctxT(t), client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		change()
		return env.Client.Update(ctxT(t), obj)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// bindReference stands in for the controller (controller/reference): it
// marks the reference dataset ns/name Bound to its ThinRuntime and creates
// its PVC and PV on the referenced Dataset's FUSE mount with the sub-path.
func bindReference(t *testing.T, ns, name, refNS, refName, subPath string) {
	t.Helper()
	ctx := ctxT(t)
	ds := &datav1alpha1.Dataset{}
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, ds); err != nil {
		t.Fatal(err)
	}
	ds.Status.Phase = datav1alpha1.BoundDatasetPhase
	ds.Status.Runtimes = []datav1alpha1.Runtime{{Name: name, Namespace: ns, Type: "thin", Category: datav1alpha1.AccelerateCategory}}
	if err := env.Client.Status().Update(ctx, ds); err != nil {
		t.Fatal(err)
	}
	key, refKey := datav1alpha1.KeyOf(ds), datav1alpha1.DatasetKey{Namespace: refNS, Name: refName}
	labels := map[string]string{
		datav1alpha1.LabelDatasetID: key.DatasetID(), key.CacheLabelKey(): "true",
		datav1alpha1.LabelDatasetNamespace: ns, datav1alpha1.LabelDatasetName: name,
	}
	pvName, size := ns+"-"+name, resource.MustParse("100Pi")
	t.Cleanup(func() {
		_ = env.Client.Delete(context.Background(), &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: pvName}})
	})
	if err := env.Client.Create(ctx, &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: pvName, Labels: labels},
		Spec: corev1.PersistentVolumeSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany}, Capacity: corev1.ResourceList{corev1.ResourceStorage: size},
			StorageClassName: "fluid",
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
				Driver: datav1alpha1.CSIDriverName, VolumeHandle: pvName,
				VolumeAttributes: map[string]string{
					datav1alpha1.VolumeAttrFluidPath: "/runtime-mnt/juicefs/" + refNS + "/" + refName + "/juicefs-fuse",
					datav1alpha1.VolumeAttrSubPath:   subPath, datav1alpha1.VolumeAttrMountType: "fuse.juicefs",
					datav1alpha1.VolumeAttrNodeSelectorKey: refKey.FuseLabelKey(),
				},
			}},
		},
	}); err != nil {
		t.Fatal(err)
	}
	sc := "fluid"
	if err := env.Client.Create(ctx, &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany}, StorageClassName: &sc, VolumeName: pvName,
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}},
		},
	}); err != nil {
		t.Fatal(err)
	}
}

// TestReferenceDatasetThroughTheAPIServer: a Dataset in a second namespace
// that references the first's is denied until the referenced Dataset lets
// that namespace reference it (annotation data.sluice.io/referable-from);
// once bound, a reader in the second namespace gets the referenced
// Dataset's data affinity and FUSE node selector, a serverless reader its
// FUSE sidecar (its ConfigMap read as the copy in the second namespace)
// with the volume rewritten to the FUSE mount's sub-path; while the
// referenced Dataset is not Bound, readers are denied naming it.
func TestReferenceDatasetThroughTheAPIServer(t *testing.T) {
	nsA, nsB := env.Namespace(t), env.Namespace(t)
	seedDataset(t, nsA, "phy", datav1alpha1.BoundDatasetPhase)
	fuse := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: nsA, Name: "phy" + datav1alpha1.FuseDaemonSetSuffix}}
	update(t, fuse, func() {
		spec := &fuse.Spec.Template.Spec
		spec.Volumes = append(spec.Volumes, corev1.Volume{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "phy-config"}}}})
		c := &spec.Containers[0]
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "config", MountPath: "/etc/phy"})
		c.Env = []corev1.EnvVar{{Name: "METAURL", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "jfs-secret"}, Key: "metaurl"}}}}
	})
	recordFuse(t, nsA, "phy", nil) // the controller's record, what nsB's sidecar is built from

	ref := testobj.Dataset("refdemo", nsB, testobj.WithMounts("dataset://"+nsA+"/phy/train"))
	err := env.Client.Create(ctxT(t), ref.DeepCopy())
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "rule reference-not-allowed") || !strings.Contains(err.Error(), "data.sluice.io/referable-from") {
		t.Fatalf("a reference to a Dataset of another namespace that did not opt in: %v", err)
	}
	phy := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: nsA, Name: "phy"}}
	update(t, phy, func() { phy.Annotations = map[string]string{datav1alpha1.AnnotationReferableFrom: nsB} })
	waitForCache()
	if err := env.Client.Create(ctxT(t), ref); err != nil {
		t.Fatalf("a reference the referenced Dataset allows: %v", err)
	}
	bindReference(t, nsB, "refdemo", nsA, "phy", "train")
	waitForCache()

	reader := datasetPod("reader", serverful, "refdemo")
	reader.Namespace = nsB
	if err := env.Client.Create(ctxT(t), reader); err != nil {
		t.Fatalf("a reader of the reference dataset: %v", err)
	}
	if reader.Annotations[datav1alpha1.AnnotationDatasetsInUse] != "refdemo" {
		t.Errorf("datasets-in-use = %q, want the reference dataset", reader.Annotations[datav1alpha1.AnnotationDatasetsInUse])
	}
	na := reader.Spec.Affinity.NodeAffinity
	if na == nil || len(na.PreferredDuringSchedulingIgnoredDuringExecution) == 0 ||
		na.PreferredDuringSchedulingIgnoredDuringExecution[0].Preference.MatchExpressions[0].Key != "fluid.io/s-"+nsA+"-phy" {
		t.Fatalf("the reader does not prefer the referenced Dataset's cache nodes: %+v", reader.Spec.Affinity)
	}
	if req := na.RequiredDuringSchedulingIgnoredDuringExecution; req == nil || req.NodeSelectorTerms[0].MatchExpressions[0].Key != "fuse-capable" {
		t.Errorf("the referenced runtime's FUSE node selector is not required: %+v", req)
	}

	serve := datasetPod("serve", map[string]string{datav1alpha1.LabelServerlessInject: "true"}, "refdemo")
	serve.Namespace = nsB
	if err := env.Client.Create(ctxT(t), serve); err != nil {
		t.Fatalf("a serverless reader of the reference dataset: %v", err)
	}
	if len(serve.Spec.InitContainers) != 1 || serve.Spec.InitContainers[0].Image != "juicedata/juicefs-fuse:ce-v1.2.1" {
		t.Fatalf("no FUSE sidecar of the referenced runtime: %+v", serve.Spec.InitContainers)
	}
	// Audit N2: the hostPath is the FUSE mount itself; the sub-path is the
	// app mount's subPath, which the kubelet resolves refusing links out.
	if v := volumeNamed(serve, "data"); v == nil || v.HostPath == nil || v.HostPath.Path != "/runtime-mnt/juicefs/"+nsA+"/phy/juicefs-fuse" {
		t.Fatalf("the volume is not rewritten to the referenced FUSE mount: %+v", v)
	}
	if m := serve.Spec.Containers[0].VolumeMounts[0]; m.Name != "data" || m.SubPath != "train" {
		t.Fatalf("the app mount does not take the reference's sub-path as its subPath: %+v", m)
	}
	if v := volumeNamed(serve, "config"); v == nil || v.ConfigMap == nil || v.ConfigMap.Name != datav1alpha1.ReferenceCopyName("refdemo", "phy-config") {
		t.Errorf("the sidecar does not read the copy of the FUSE ConfigMap: %+v", v)
	}
	if got := serve.Labels[datav1alpha1.LabelSidecarDatasetNamespacePrefix+"fluid-fuse-0"]; got != nsB {
		t.Errorf("the sidecar's dataset namespace label = %q, want the reference dataset's", got)
	}

	setStatus := func(phase datav1alpha1.DatasetPhase) {
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if err := env.Client.Get(ctxT(t), client.ObjectKeyFromObject(phy), phy); err != nil {
				return err
			}
			phy.Status.Phase = phase
			return env.Client.Status().Update(ctxT(t), phy)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	setStatus(datav1alpha1.NotBoundDatasetPhase)
	time.Sleep(time.Second)
	late := datasetPod("late", serverful, "refdemo")
	late.Namespace = nsB
	err = env.Client.Create(ctxT(t), late)
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "whose Dataset "+nsA+"/phy is not Bound (phase NotBound)") {
		t.Fatalf("a reader while the referenced Dataset is not Bound: %v", err)
	}
}
