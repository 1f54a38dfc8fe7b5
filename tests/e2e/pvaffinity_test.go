package e2e_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// TestPVNodeAffinityPlacesUnmutatedPods: the Dataset's PV requires the
// nodes of the runtime's FUSE nodeSelector, so kube-scheduler places a Pod
// that reads the Dataset where FUSE may run even when no webhook mutated
// it (none runs in this suite; in a cluster, the fail-open entry's Pods
// when the webhook is down).
func TestPVNodeAffinityPlacesUnmutatedPods(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := cluster.Client
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-"}}
	if err := c.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if t.Failed() {
			t.Log(cluster.Logs(15))
		}
	}()
	// One node of the suite may run the Dataset's FUSE.
	fuseKey, fuseNode := "e2e.sluice.io/fuse-"+ns.Name, nodes[len(nodes)-1]
	labelNode(ctx, t, fuseNode, fuseKey, "true")
	defer labelNode(context.Background(), t, fuseNode, fuseKey, "")

	key := types.NamespacedName{Namespace: ns.Name, Name: "reads"}
	ds := testobj.Dataset(key.Name, key.Namespace, testobj.WithMounts("juicefs:///reads"))
	if err := c.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	rt := testobj.JuiceFSRuntime(key.Name, key.Namespace, 1, testobj.Level(datav1alpha1.SSD, "/var/jfsCache", "10Gi"))
	rt.Spec.Fuse.NodeSelector = map[string]string{fuseKey: "true"}
	if err := c.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	pvc := &corev1.PersistentVolumeClaim{}
	waitFor(ctx, t, "the Dataset's PVC to be Bound", func() (bool, error) {
		err := c.Get(ctx, key, pvc)
		return err == nil && pvc.Status.Phase == corev1.ClaimBound, client.IgnoreNotFound(err)
	})
	pv := &corev1.PersistentVolume{}
	if err := c.Get(ctx, types.NamespacedName{Name: pvc.Spec.VolumeName}, pv); err != nil {
		t.Fatal(err)
	}
	if a := pv.Spec.NodeAffinity; a == nil || a.Required == nil || len(a.Required.NodeSelectorTerms) != 1 ||
		len(a.Required.NodeSelectorTerms[0].MatchExpressions) != 1 || a.Required.NodeSelectorTerms[0].MatchExpressions[0].Key != fuseKey {
		t.Fatalf("PV %s nodeAffinity = %+v, want %s In [true]", pv.Name, pv.Spec.NodeAffinity, fuseKey)
	}

	reader := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: key.Namespace},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "read", Image: "busybox"}},
			Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: key.Name}}}}},
	}
	if err := c.Create(ctx, reader); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "kube-scheduler to place the reader", func() (bool, error) {
		err := c.Get(ctx, client.ObjectKeyFromObject(reader), reader)
		return err == nil && reader.Spec.NodeName != "", err
	})
	if reader.Spec.NodeName != fuseNode {
		t.Fatalf("kube-scheduler placed the unmutated reader on %s, not on %s, the only node matching the FUSE nodeSelector", reader.Spec.NodeName, fuseNode)
	}

	if err := c.Delete(ctx, reader, client.GracePeriodSeconds(0)); client.IgnoreNotFound(err) != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, rt); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "the runtime to be cleaned up", func() (bool, error) {
		err := c.Get(ctx, key, &datav1alpha1.JuiceFSRuntime{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
}

// labelNode sets a label on a node, or removes it when value is "".
func labelNode(ctx context.Context, t *testing.T, name, key, value string) {
	t.Helper()
	n := &corev1.Node{}
	if err := cluster.Client.Get(ctx, types.NamespacedName{Name: name}, n); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(n.DeepCopy())
	if value == "" {
		delete(n.Labels, key)
	} else {
		n.Labels[key] = value
	}
	if err := cluster.Client.Patch(ctx, n, patch); err != nil {
		t.Fatal(err)
	}
}
