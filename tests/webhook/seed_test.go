package webhook_test

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/testobj"
)

func ctxT(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// seedDataset creates what the controller would have created for a Dataset
// bound to a JuiceFSRuntime: the Dataset (with status), the runtime (with a
// cacheAffinity), the PV and PVC, and the FUSE DaemonSet.
func seedDataset(t *testing.T, ns, name string, phase datav1alpha1.DatasetPhase) {
	t.Helper()
	ctx := ctxT(t)
	c := env.Client
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	ds := testobj.Dataset(name, ns)
	must(c.Create(ctx, ds))
	ds.Status.Phase = phase
	ds.Status.Runtimes = []datav1alpha1.Runtime{{Name: name, Namespace: ns, Type: "juicefs", Category: datav1alpha1.AccelerateCategory}}
	must(c.Status().Update(ctx, ds))

	rt := testobj.JuiceFSRuntime(name, ns, 1)
	rt.Spec.Fuse.NodeSelector = map[string]string{"fuse-capable": "true"}
	must(c.Create(ctx, rt))
	rt.Status.CacheAffinity = &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"zone-a"}},
		}}},
	}}
	must(c.Status().Update(ctx, rt))

	key := datav1alpha1.KeyOf(ds)
	fluidPath := "/runtime-mnt/juicefs/" + ns + "/" + name + "/juicefs-fuse"
	labels := map[string]string{
		datav1alpha1.LabelDatasetID: key.DatasetID(), key.CacheLabelKey(): "true",
		datav1alpha1.LabelDatasetNamespace: ns, datav1alpha1.LabelDatasetName: name,
	}
	pvName := ns + "-" + name
	must(c.Create(ctx, &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: pvName, Labels: labels},
		Spec: corev1.PersistentVolumeSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany},
			Capacity:    corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("100Pi")},
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
				Driver: datav1alpha1.CSIDriverName, VolumeHandle: pvName,
				VolumeAttributes: map[string]string{datav1alpha1.VolumeAttrFluidPath: fluidPath, datav1alpha1.VolumeAttrMountType: "fuse.juicefs"},
			}},
			StorageClassName: "fluid",
		},
	}))
	t.Cleanup(func() {
		_ = c.Delete(context.Background(), &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: pvName}})
	})
	sc := "fluid"
	must(c.Create(ctx, &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany},
			StorageClassName: &sc, VolumeName: pvName,
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("100Pi")}},
		},
	}))
	bidi := corev1.MountPropagationBidirectional
	privileged := true
	must(c.Create(ctx, &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: name + datav1alpha1.FuseDaemonSetSuffix, Namespace: ns},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name + "-fuse"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name + "-fuse"}},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{
						Name: "fuse", Image: "juicedata/juicefs-fuse:ce-v1.2.1",
						SecurityContext: &corev1.SecurityContext{Privileged: &privileged},
						VolumeMounts:    []corev1.VolumeMount{{Name: "fuse-mount", MountPath: "/runtime-mnt/juicefs/" + ns + "/" + name, MountPropagation: &bidi}},
					}},
					Volumes: []corev1.Volume{{Name: "fuse-mount", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/runtime-mnt/juicefs/" + ns + "/" + name}}}},
				},
			},
		},
	}))
}

func datasetPod(name string, labels map[string]string, claim string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "app", Image: "busybox", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}},
			Volumes:    []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}},
		},
	}
}
