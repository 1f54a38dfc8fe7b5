package e2e_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// TestHostNetworkRuntimesShareNodes: two JindoRuntimes on the host network
// (Jindo's default, as in Fluid), Shared placement, each with a worker on
// every node: the controller gives them different host ports, so the
// scheduler, which keeps pods listening on one host port off one node,
// places all six workers and both Datasets become Bound. With the fixed
// default ports, the second runtime's workers would stay Pending.
func TestHostNetworkRuntimesShareNodes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
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
	names := []string{"logs", "traces"}
	// Shared workers keep the tests after this one from placing Exclusive
	// ones on their nodes: they go first.
	defer func() {
		for _, name := range names {
			rt := &datav1alpha1.JindoRuntime{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns.Name}}
			if err := c.Delete(ctx, rt); client.IgnoreNotFound(err) != nil {
				t.Error(err)
			}
		}
		waitFor(ctx, t, "the runtimes' workers to be gone", func() (bool, error) {
			pods := &corev1.PodList{}
			err := c.List(ctx, pods, client.InNamespace(ns.Name), client.MatchingLabels{"role": "jindo-worker"})
			return err == nil && len(pods.Items) == 0, err
		})
	}()
	for _, name := range names {
		ds := testobj.Dataset(name, ns.Name, testobj.WithMounts("oss://bucket/"+name))
		ds.Spec.Mounts[0].Options = map[string]string{"fs.oss.endpoint": "oss-cn-hangzhou.aliyuncs.com"}
		ds.Spec.Placement = datav1alpha1.ShareMode
		if err := c.Create(ctx, ds); err != nil {
			t.Fatal(err)
		}
		rt := &datav1alpha1.JindoRuntime{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns.Name}, Spec: datav1alpha1.JindoRuntimeSpec{
			Replicas: int32(len(nodes)), TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{testobj.Level(datav1alpha1.SSD, "/mnt/jindo", "10Gi")}}}}
		if err := c.Create(ctx, rt); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range names {
		key := types.NamespacedName{Namespace: ns.Name, Name: name}
		waitFor(ctx, t, "Dataset "+name+" to be Bound", func() (bool, error) {
			ds := &datav1alpha1.Dataset{}
			if err := c.Get(ctx, key, ds); err != nil {
				return false, err
			}
			return ds.Status.Phase == datav1alpha1.BoundDatasetPhase, nil
		})
	}
	// Every node runs a worker of each runtime, each on its own host port.
	ports := map[string]map[int32]string{} // node -> host port -> pod
	pods := &corev1.PodList{}
	if err := c.List(ctx, pods, client.InNamespace(ns.Name), client.MatchingLabels{"role": "jindo-worker"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName == "" || !p.Spec.HostNetwork {
			t.Errorf("worker %s: node %q, hostNetwork %t", p.Name, p.Spec.NodeName, p.Spec.HostNetwork)
			continue
		}
		for _, cp := range p.Spec.Containers[0].Ports {
			if other, taken := ports[p.Spec.NodeName][cp.ContainerPort]; taken {
				t.Errorf("node %s: %s and %s both listen on host port %d", p.Spec.NodeName, other, p.Name, cp.ContainerPort)
			}
			if ports[p.Spec.NodeName] == nil {
				ports[p.Spec.NodeName] = map[int32]string{}
			}
			ports[p.Spec.NodeName][cp.ContainerPort] = p.Name
		}
	}
	if len(pods.Items) != 2*len(nodes) || len(ports) != len(nodes) {
		t.Errorf("%d workers on %d nodes, want %d on each of the %d nodes", len(pods.Items), len(ports), 2, len(nodes))
	}
}
