package e2e_test

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// TestAlluxioHDFSRecipeIsBound: Fluid's HA-HDFS recipe with the API
// gateway and a Dataset owner, as a namespace user applies it (webhook,
// controller with config/rbac's permissions, real scheduler and
// StatefulSet controller): the Dataset becomes Bound, the master pods run
// the proxy and mount the Hadoop configuration the controller read, and
// the runtime's status names the gateway.
func TestAlluxioHDFSRecipeIsBound(t *testing.T) {
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
	key := types.NamespacedName{Namespace: ns.Name, Name: "hadoop"}
	defer func() {
		if err := c.Delete(ctx, &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace}}); client.IgnoreNotFound(err) != nil {
			t.Error(err)
		}
		waitFor(ctx, t, "the runtime's workers to be gone", func() (bool, error) {
			pods := &corev1.PodList{}
			err := c.List(ctx, pods, client.InNamespace(ns.Name), client.MatchingLabels{"role": "alluxio-worker"})
			return err == nil && len(pods.Items) == 0, err
		})
	}()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "hdfs-conf", Namespace: ns.Name},
		Data: map[string]string{"hdfs-site.xml": "<configuration></configuration>", "core-site.xml": "<configuration></configuration>"}}
	if err := c.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	ds := testobj.Dataset(key.Name, ns.Name, testobj.WithMounts("hdfs://mycluster/"))
	ds.Spec.Owner = &datav1alpha1.User{UID: ptr.To[int64](1201), GID: ptr.To[int64](1201)}
	if err := c.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	rt := &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: ns.Name}, Spec: datav1alpha1.AlluxioRuntimeSpec{
		Replicas: 1, HadoopConfig: "hdfs-conf", APIGateway: datav1alpha1.AlluxioCompTemplateSpec{Enabled: true},
		TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{testobj.Level(datav1alpha1.Memory, "/dev/shm", "1Gi")}}}}
	if err := c.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "the Dataset to be Bound", func() (bool, error) {
		err := c.Get(ctx, key, ds)
		return err == nil && ds.Status.Phase == datav1alpha1.BoundDatasetPhase, err
	})
	pod := &corev1.Pod{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: ns.Name, Name: "hadoop-master-0"}, pod); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(pod.Spec.Containers, func(c corev1.Container) bool { return c.Name == "alluxio-proxy" }) {
		t.Errorf("master pod containers %v lack the proxy", pod.Spec.Containers)
	}
	if !slices.ContainsFunc(pod.Spec.Volumes, func(v corev1.Volume) bool { return v.ConfigMap != nil && v.ConfigMap.Name == "hdfs-conf" }) {
		t.Errorf("master pod volumes %+v lack the Hadoop configuration", pod.Spec.Volumes)
	}
	waitFor(ctx, t, "the status to name the API gateway", func() (bool, error) {
		err := c.Get(ctx, key, rt)
		return err == nil && rt.Status.APIGateway.Endpoint == "hadoop-master-0.hadoop-master."+ns.Name+".svc:39999", err
	})
}
