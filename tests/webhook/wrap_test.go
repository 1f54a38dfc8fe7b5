package webhook_test

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// seedWrappingDataset seeds ThinRuntime Dataset nas of namespace ns, bound,
// whose one mount is pvc://nas-data, with its own PVC, PV and FUSE
// DaemonSet as the controller leaves them; it returns the FUSE path.
func seedWrappingDataset(t *testing.T, ns string) string {
	t.Helper()
	ctx := ctxT(t)
	profile := &datav1alpha1.ThinRuntimeProfile{ObjectMeta: metav1.ObjectMeta{Name: "nfs-" + ns},
		Spec: datav1alpha1.ThinRuntimeProfileSpec{FileSystemType: "nfs",
			Fuse: datav1alpha1.ThinFuseSpec{VersionSpec: datav1alpha1.VersionSpec{Image: "registry.example.com/nfs-fuse"}, Command: []string{"mount-nfs"}}}}
	if err := env.Client.Create(ctx, profile); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), profile) })
	waitForCache()
	ds := testobj.Dataset("nas", ns, testobj.WithMounts("pvc://nas-data"))
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	rt := thinRuntime("nas", ns, profile.Name)
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	bindSeeded(t, ds, rt, "thin")
	fluidPath := "/runtime-mnt/thin/" + ns + "/nas/thin-fuse"
	labels := map[string]string{datav1alpha1.LabelDatasetID: ns + "-nas", datav1alpha1.LabelDatasetNamespace: ns, datav1alpha1.LabelDatasetName: "nas"}
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: ns + "-nas", Labels: labels},
		Spec: corev1.PersistentVolumeSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany},
			Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("100Pi")}, StorageClassName: "fluid",
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: datav1alpha1.CSIDriverName, VolumeHandle: ns + "-nas",
				VolumeAttributes: map[string]string{datav1alpha1.VolumeAttrFluidPath: fluidPath, datav1alpha1.VolumeAttrMountType: "nfs"}}}}}
	if err := env.Client.Create(ctx, pv); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), pv) })
	own := claim(ns, "nas", labels)
	own.Spec.VolumeName = pv.Name
	if err := env.Client.Create(ctx, own); err != nil {
		t.Fatal(err)
	}
	podLabels := map[string]string{"app": "nas-fuse"}
	fuse := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nas" + datav1alpha1.FuseDaemonSetSuffix,
		Labels: map[string]string{datav1alpha1.LabelDataset: ns + "-nas"}},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: podLabels}, Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "fuse", Image: "registry.example.com/nfs-fuse", Command: []string{"mount-nfs"}}}}}}}
	if err := env.Client.Create(ctx, fuse); err != nil {
		t.Fatal(err)
	}
	return fluidPath
}

// claim is a PVC of namespace ns.
func claim(ns, name string, labels map[string]string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Ti")}}}}
}

// fusePath is the hostPath a Pod's volume "data" was rewritten to ("" when
// it still mounts its PVC), and whether the Pod got a FUSE sidecar.
func fusePath(p *corev1.Pod) (string, bool) {
	path := ""
	for _, v := range p.Spec.Volumes {
		if v.Name == "data" && v.HostPath != nil {
			path = v.HostPath.Path
		}
	}
	sidecar := false
	for _, c := range append(p.Spec.InitContainers, p.Spec.Containers...) {
		sidecar = sidecar || c.Name == "fluid-fuse-0"
	}
	return path, sidecar
}

// prefers reports whether a Pod prefers nodes labelled key.
func prefers(p *corev1.Pod, key string) bool {
	if p.Spec.Affinity == nil || p.Spec.Affinity.NodeAffinity == nil {
		return false
	}
	for _, term := range p.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
		for _, e := range term.Preference.MatchExpressions {
			if e.Key == key {
				return true
			}
		}
	}
	return false
}

// TestAPodOfAWrappedPVCIsADatasetPod (issue 32, point 6): a serverless Pod
// that mounts nas-data, the PVC ThinRuntime Dataset nas wraps (marked as
// the controller marks it), gets the Dataset's FUSE sidecar and its volume
// is the Dataset's FUSE mount; a serverful one keeps its PVC and
// prefers the Dataset's cache nodes. A PVC marked by hand for a Dataset that does not mount
// it, or in a namespace without that Dataset, gives nothing: such Pods
// mount their PVC unchanged; and once the mark is removed, neither does
// nas-data.
func TestAPodOfAWrappedPVCIsADatasetPod(t *testing.T) {
	ns, other := env.Namespace(t), env.Namespace(t)
	ctx := ctxT(t)
	fluidPath := seedWrappingDataset(t, ns)
	mark := map[string]string{datav1alpha1.LabelWrappedByDataset: "nas"}
	for _, pvc := range []*corev1.PersistentVolumeClaim{claim(ns, "forged", mark), claim(other, "nas-data", mark), claim(ns, "nas-data", nil)} {
		if err := env.Client.Create(ctx, pvc); err != nil {
			t.Fatal(err)
		}
	}
	serverless := map[string]string{datav1alpha1.LabelServerlessInject: "true"}
	// Before the controller marks it, nas-data is a PVC like any other
	// (and the webhook has seen it so).
	p, err := dryRunPod(t, ns, "nas-data", serverless)
	if path, sidecar := fusePath(p); err != nil || path != "" || sidecar {
		t.Errorf("the Pod of nas-data before the mark: rewritten to %q, sidecar %v, %v; want it unchanged", path, sidecar, err)
	}
	if err := env.Client.Patch(ctx, claim(ns, "nas-data", nil), client.RawPatch(types.MergePatchType,
		[]byte(`{"metadata":{"labels":{"`+datav1alpha1.LabelWrappedByDataset+`":"nas"}}}`))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the serverless Pod of nas-data gets Dataset nas's FUSE", func() bool {
		p, err := dryRunPod(t, ns, "nas-data", serverless)
		path, sidecar := fusePath(p)
		return err == nil && path == fluidPath && sidecar
	})
	p, err = dryRunPod(t, ns, "nas-data", serverless)
	if err != nil || p.Annotations[datav1alpha1.AnnotationDatasetsInUse] != "nas" {
		t.Errorf("the serverless Pod of nas-data: annotations %v, %v; want it to use Dataset nas", p.Annotations, err)
	}
	p, err = dryRunPod(t, ns, "nas-data", serverful)
	cacheKey := datav1alpha1.KeyOf(&datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nas"}}).CacheLabelKey()
	if path, _ := fusePath(p); err != nil || path != "" || !prefers(p, cacheKey) {
		t.Errorf("the serverful Pod of nas-data: rewritten to %q, affinity %+v, %v; want its PVC, preferring Dataset nas's cache nodes (%s)", path, p.Spec.Affinity, err, cacheKey)
	}

	for _, c := range []struct{ what, ns, claim string }{
		{"a PVC marked by hand for a Dataset that does not mount it", ns, "forged"},
		{"a PVC of a namespace without the Dataset its mark names", other, "nas-data"},
	} {
		p, err := dryRunPod(t, c.ns, c.claim, serverless)
		if path, sidecar := fusePath(p); err != nil || path != "" || sidecar {
			t.Errorf("%s: rewritten to %q, sidecar %v, %v; want the Pod unchanged", c.what, path, sidecar, err)
		}
	}

	if err := env.Client.Patch(ctx, claim(ns, "nas-data", nil), client.RawPatch(types.MergePatchType,
		[]byte(`{"metadata":{"labels":{"`+datav1alpha1.LabelWrappedByDataset+`":null}}}`))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the Pod of nas-data unchanged once the mark is gone", func() bool {
		p, err := dryRunPod(t, ns, "nas-data", serverless)
		path, sidecar := fusePath(p)
		return err == nil && path == "" && !sidecar
	})
}
