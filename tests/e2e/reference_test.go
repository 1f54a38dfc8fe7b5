package e2e_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// readerPod is a Pod in ns reading the dataset PVC claim, with labels.
func readerPod(ns, name, claim string, labels map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec: corev1.PodSpec{TerminationGracePeriodSeconds: ptr.To[int64](0),
			Containers: []corev1.Container{{Name: "read", Image: "busybox", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}},
			Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}},
	}
}

// TestReferenceDatasetOnSimulatedCluster: a JuiceFS Dataset in one
// namespace that lets a second namespace reference it; a Dataset there
// whose one mount is dataset://<first>/imagenet/train is admitted, gets its
// ThinRuntime from the controller and is Bound with no second release. A
// reader in the second namespace that requires the data
// (fluid.io/dataset.refdemo.sched=required) is placed by kube-scheduler on
// the node caching the first Dataset; a serverless reader gets the first
// Dataset's FUSE as its sidecar, on the FUSE mount with the sub-path as
// its mount's subPath. Deleting the
// first Dataset waits while the reference exists; once the readers and the
// reference are gone (its ThinRuntime, PV and PVC with it), the first
// Dataset, its runtime and release go too.
func TestReferenceDatasetOnSimulatedCluster(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c := cluster.Client
	defer func() {
		if t.Failed() {
			t.Log(cluster.Logs(15))
		}
	}()
	var nss []string
	for _, prefix := range []string{"e2e-phy-", "e2e-ref-"} {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix}}
		if err := c.Create(ctx, ns); err != nil {
			t.Fatal(err)
		}
		nss = append(nss, ns.Name)
	}
	nsA, nsB := nss[0], nss[1]
	phyKey, refKey := types.NamespacedName{Namespace: nsA, Name: "imagenet"}, types.NamespacedName{Namespace: nsB, Name: "refdemo"}

	phy := testobj.Dataset(phyKey.Name, nsA, testobj.WithMounts("juicefs:///imagenet"))
	phy.Annotations = map[string]string{datav1alpha1.AnnotationReferableFrom: nsB}
	if err := c.Create(ctx, phy); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, testobj.JuiceFSRuntime(phyKey.Name, nsA, 1, testobj.Level(datav1alpha1.SSD, "/var/jfsCache", "10Gi"))); err != nil {
		t.Fatal(err)
	}
	cacheKey := ""
	var cacheNodes []string
	waitFor(ctx, t, "the referenced Dataset Bound, its worker Ready on a labelled node", func() (bool, error) {
		if err := c.Get(ctx, phyKey, phy); err != nil || phy.Status.Phase != datav1alpha1.BoundDatasetPhase {
			return false, err
		}
		cacheKey = datav1alpha1.KeyOf(phy).CacheLabelKey()
		running, labelled, err := workersAndLabels(ctx, c, phyKey, cacheKey)
		cacheNodes = labelled
		return len(running) == 1 && slices.Equal(running, labelled), err
	})

	ref := testobj.Dataset(refKey.Name, nsB, testobj.WithMounts("dataset://"+nsA+"/imagenet/train"))
	if err := c.Create(ctx, ref); err != nil {
		t.Fatalf("creating the reference dataset: %v", err)
	}
	waitFor(ctx, t, "the reference dataset Bound through its ThinRuntime", func() (bool, error) {
		if err := c.Get(ctx, refKey, ref); err != nil {
			return false, err
		}
		rt := &datav1alpha1.ThinRuntime{}
		if err := c.Get(ctx, refKey, rt); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return ref.Status.Phase == datav1alpha1.BoundDatasetPhase && rt.Spec.ProfileName == "", nil
	})
	if err := c.Get(ctx, phyKey, phy); err != nil || !slices.Equal(phy.Status.DatasetRef, []string{nsB + "/refdemo"}) {
		t.Fatalf("the referenced Dataset's datasetRef: %v %v", phy.Status.DatasetRef, err)
	}

	// The required reader lands on the cache node; the serverless one runs
	// the first Dataset's FUSE.
	required := readerPod(nsB, "required", "refdemo", map[string]string{
		datav1alpha1.LabelServerfulInject: "true", datav1alpha1.DatasetSchedLabelKey("refdemo"): datav1alpha1.SchedRequired})
	sidecar := readerPod(nsB, "sidecar", "refdemo", map[string]string{datav1alpha1.LabelServerlessInject: "true"})
	for _, p := range []*corev1.Pod{required, sidecar} {
		if err := c.Create(ctx, p); err != nil {
			t.Fatalf("creating reader %s: %v", p.Name, err)
		}
	}
	waitFor(ctx, t, "kube-scheduler to place the required reader on the cache node, and kwok to run both", func() (bool, error) {
		for _, p := range []*corev1.Pod{required, sidecar} {
			if err := c.Get(ctx, client.ObjectKeyFromObject(p), p); err != nil || p.Status.Phase != corev1.PodRunning {
				return false, err
			}
		}
		return true, nil
	})
	if !slices.Contains(cacheNodes, required.Spec.NodeName) {
		t.Errorf("the required reader runs on %s, not on the cache node %v", required.Spec.NodeName, cacheNodes)
	}
	terms := required.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) == 0 || !slices.ContainsFunc(terms[0].MatchExpressions, func(e corev1.NodeSelectorRequirement) bool { return e.Key == cacheKey }) {
		t.Errorf("the required reader's affinity does not require %s: %+v", cacheKey, terms)
	}
	if len(sidecar.Spec.InitContainers) == 0 || !strings.HasPrefix(sidecar.Spec.InitContainers[0].Name, datav1alpha1.FuseSidecarContainerPrefix) ||
		!strings.Contains(sidecar.Spec.InitContainers[0].Image, "juicefs") {
		t.Fatalf("the serverless reader has no FUSE sidecar of the referenced runtime: %+v", sidecar.Spec.InitContainers)
	}
	// Audit N2: the hostPath is the FUSE mount itself, the sub-path the app
	// mount's subPath.
	for _, v := range sidecar.Spec.Volumes {
		if v.Name == "data" && (v.HostPath == nil || !strings.HasSuffix(v.HostPath.Path, "/"+nsA+"/imagenet/juicefs-fuse")) {
			t.Errorf("the serverless reader's volume is not the referenced FUSE mount: %+v", v.VolumeSource)
		}
	}
	for _, c := range sidecar.Spec.Containers {
		for _, m := range c.VolumeMounts {
			if m.Name == "data" && m.SubPath != "train" {
				t.Errorf("container %s mounts the data volume with subPath %q, want the reference's sub-path train", c.Name, m.SubPath)
			}
		}
	}

	// Deletion order: the referenced Dataset waits for the reference.
	if err := c.Delete(ctx, phy); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "the referenced Dataset's deletion to wait for the reference", func() (bool, error) {
		if err := c.Get(ctx, phyKey, phy); err != nil {
			return false, err
		}
		cond := meta.FindStatusCondition(phy.Status.Conditions, "Deleting")
		return cond != nil && cond.Reason == "Referenced" && strings.Contains(cond.Message, nsB+"/refdemo"), nil
	})
	for _, p := range []*corev1.Pod{required, sidecar} {
		if err := c.Delete(ctx, p); client.IgnoreNotFound(err) != nil {
			t.Fatal(err)
		}
	}
	if err := c.Delete(ctx, ref); err != nil {
		t.Fatal(err)
	}
	gone := func(key types.NamespacedName, obj client.Object) (bool, error) {
		err := c.Get(ctx, key, obj)
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	}
	waitFor(ctx, t, "the reference dataset, its ThinRuntime, PV and PVC to go, then the referenced Dataset, its runtime and PV", func() (bool, error) {
		for _, o := range []struct {
			key types.NamespacedName
			obj client.Object
		}{
			{refKey, &datav1alpha1.Dataset{}}, {refKey, &datav1alpha1.ThinRuntime{}}, {refKey, &corev1.PersistentVolumeClaim{}},
			{types.NamespacedName{Name: pvName(nsB, "refdemo")}, &corev1.PersistentVolume{}},
			{phyKey, &datav1alpha1.Dataset{}}, {phyKey, &datav1alpha1.JuiceFSRuntime{}},
			{types.NamespacedName{Name: pvName(nsA, "imagenet")}, &corev1.PersistentVolume{}},
		} {
			if ok, err := gone(o.key, o.obj); !ok || err != nil {
				return false, err
			}
		}
		return true, nil
	})
}
