package testobj

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// SeedDataset creates what the controller would have created for a Dataset
// bound to a JuiceFSRuntime: the Dataset (with status), the runtime (with a
// FUSE nodeSelector and a cacheAffinity), the PV and PVC labelled as a
// dataset's, and the FUSE DaemonSet. The PV is cluster-scoped; the caller
// deletes it (named "<ns>-<name>") when it matters.
func SeedDataset(ctx context.Context, c client.Client, ns, name string, phase datav1alpha1.DatasetPhase) (err error) {
	must := func(e error) {
		if e != nil && err == nil {
			err = e
		}
	}
	ds := Dataset(name, ns)
	must(c.Create(ctx, ds))
	must(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(ds), ds); err != nil {
			return err
		}
		ds.Status.Phase = phase
		ds.Status.Runtimes = []datav1alpha1.Runtime{{Name: name, Namespace: ns, Type: "juicefs", Category: datav1alpha1.AccelerateCategory}}
		return c.Status().Update(ctx, ds)
	}))

	if err != nil {
		return err
	}
	rt := JuiceFSRuntime(name, ns, 1)
	rt.Spec.Fuse.NodeSelector = map[string]string{"fuse-capable": "true"}
	must(c.Create(ctx, rt))
	cacheAffinity := &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"zone-a"}},
		}}},
	}}
	// A controller may be writing the runtime too: retry on conflicts.
	must(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(rt), rt); err != nil {
			return err
		}
		rt.Status.CacheAffinity = cacheAffinity
		return c.Status().Update(ctx, rt)
	}))
	if err != nil {
		return err
	}

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
	// Where a controller runs, the runtime's release may have created the
	// FUSE DaemonSet first; either one serves.
	must(ignoreExists(c.Create(ctx, &appsv1.DaemonSet{
		// Labelled as the engine charts label it: the webhook caches
		// only DaemonSets so labelled.
		ObjectMeta: metav1.ObjectMeta{Name: name + datav1alpha1.FuseDaemonSetSuffix, Namespace: ns,
			Labels: map[string]string{datav1alpha1.LabelDataset: ns + "-" + name}},
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
	})))
	return err
}

func ignoreExists(err error) error {
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}
