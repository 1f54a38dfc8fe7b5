package controller_test

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/hostports"
	"github.com/sluice-data/sluice/engines/jindo"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// TestHostNetworkRuntimesGetDisjointHostPorts: two JindoRuntimes on the
// host network (Jindo's default, as in Fluid) whose pods may share nodes
// get ports of the controller's range that no other runtime holds,
// recorded in their status.hostPorts and rendered into their releases; an
// allocator started afresh from the API server (a restarted controller, a
// new leader) holds the same ones and hands them to nobody else; deleting
// one runtime frees its ports and leaves the other's.
func TestHostNetworkRuntimesGetDisjointHostPorts(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	a, b := hostNetworkJindo(ctx, t, ns, "left"), hostNetworkJindo(ctx, t, ns, "right")
	pa, pb := renderedHostPorts(t, a), renderedHostPorts(t, b)
	rng := hostPorts.Range()
	for name, ports := range map[string]map[string]int32{a.Name: pa, b.Name: pb} {
		for port, p := range ports {
			if int(p) < rng.First || int(p) > rng.Last {
				t.Errorf("%s %s: port %d outside the controller's range %v", name, port, p, rng)
			}
		}
	}
	for port, p := range pa {
		for other, q := range pb {
			if p == q {
				t.Errorf("port %d is %s's %s and %s's %s", p, a.Name, port, b.Name, other)
			}
		}
	}

	// A restarted controller reads the records back before it assigns a
	// port: each runtime keeps its ports, and a new runtime gets others.
	fresh := hostports.New(rng, hostports.Records(env.Client))
	for _, rt := range []*datav1alpha1.JindoRuntime{a, b} {
		want, err := jindo.Engine{}.HostPorts(rt)
		if err != nil {
			t.Fatal(err)
		}
		got, err := fresh.Assign(ctx, hostports.HolderOf("JindoRuntime", rt), want)
		if err != nil {
			t.Fatal(err)
		}
		if rec := map[string]map[string]int32{a.Name: pa, b.Name: pb}[rt.Name]; !cmp.Equal(got, rec) {
			t.Errorf("after a restart %s gets %v, recorded %v", rt.Name, got, rec)
		}
	}
	newcomer, err := fresh.Assign(ctx, hostports.Holder{Kind: "JindoRuntime", Namespace: ns, Name: "newcomer"}, map[string]int{"master.rpc": 0, "worker.rpc": 0})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range newcomer {
		for _, held := range []map[string]int32{pa, pb} {
			for name, q := range held {
				if p == q {
					t.Errorf("after a restart a new runtime got port %d, held as %s", p, name)
				}
			}
		}
	}

	// Deleting a frees its ports; b keeps its own.
	if err := env.Client.Delete(ctx, a); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the runtime is gone", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: a.Name}, &datav1alpha1.JindoRuntime{}))
	})
	eventually(t, 10*time.Second, "its host ports are released", func() bool {
		held, err := hostPorts.Held(ctx, hostports.HolderOf("JindoRuntime", a))
		return err == nil && held == nil
	})
	if held, err := hostPorts.Held(ctx, hostports.HolderOf("JindoRuntime", b)); err != nil || !maps.Equal(held, pb) {
		t.Errorf("the other runtime holds %v (%v), want %v", held, err, pb)
	}
}

// hostNetworkJindo creates a Dataset and its JindoRuntime (one master, one
// worker, host network by default).
func hostNetworkJindo(ctx context.Context, t *testing.T, ns, name string) *datav1alpha1.JindoRuntime {
	t.Helper()
	ds := testobj.Dataset(name, ns, testobj.WithMounts("oss://bucket/"+name))
	ds.Spec.Mounts[0].Options = map[string]string{"fs.oss.endpoint": "oss-cn-hangzhou.aliyuncs.com"}
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	rt := &datav1alpha1.JindoRuntime{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: datav1alpha1.JindoRuntimeSpec{
		Replicas: 1, TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{testobj.Level(datav1alpha1.SSD, "/mnt/jindo", "20Gi")}}}}
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	return rt
}

// renderedHostPorts waits for the runtime's recorded host ports and its
// master and worker StatefulSets, checks that these run on the host
// network listening on the recorded ports, and returns them.
func renderedHostPorts(t *testing.T, rt *datav1alpha1.JindoRuntime) map[string]int32 {
	t.Helper()
	ctx := testenv.Context(t)
	key := types.NamespacedName{Namespace: rt.Namespace, Name: rt.Name}
	eventually(t, 20*time.Second, rt.Name+" records its host ports", func() bool {
		return env.Client.Get(ctx, key, rt) == nil && len(rt.Status.HostPorts) == 2
	})
	ports := rt.Status.HostPorts
	for sts, name := range map[string]string{rt.Name + "-master": "master.rpc", rt.Name + "-worker": "worker.rpc"} {
		obj := &appsv1.StatefulSet{}
		eventually(t, 20*time.Second, "Helm installs "+sts, func() bool {
			return env.Client.Get(ctx, types.NamespacedName{Namespace: rt.Namespace, Name: sts}, obj) == nil
		})
		spec := obj.Spec.Template.Spec
		if !spec.HostNetwork || !hasContainerPort(spec.Containers[0], "rpc", ports[name]) {
			t.Errorf("%s: hostNetwork %t, ports %v; want the host network and rpc %d (%s)", sts, spec.HostNetwork, spec.Containers[0].Ports, ports[name], name)
		}
	}
	return ports
}

func hasContainerPort(c corev1.Container, name string, port int32) bool {
	for _, p := range c.Ports {
		if p.Name == name && p.ContainerPort == port {
			return true
		}
	}
	return false
}

// TestHostNetworkAlluxioRuntimesGetDisjointHostPorts: two AlluxioRuntimes
// whose masters and workers are switched to the host network get every
// port of their master and worker pods from the controller's range,
// disjoint, rendered into their StatefulSets and the clients'
// properties.
func TestHostNetworkAlluxioRuntimesGetDisjointHostPorts(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	held := map[int32]string{}
	for _, name := range []string{"left", "right"} {
		if err := env.Client.Create(ctx, testobj.Dataset(name, ns, testobj.WithMounts("s3://bucket/"+name))); err != nil {
			t.Fatal(err)
		}
		rt := &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: datav1alpha1.AlluxioRuntimeSpec{
			Replicas: 1, TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{testobj.Level(datav1alpha1.Memory, "/dev/shm", "2Gi")}}}}
		rt.Spec.Master.NetworkMode, rt.Spec.Worker.NetworkMode = datav1alpha1.HostNetworkMode, datav1alpha1.HostNetworkMode
		if err := env.Client.Create(ctx, rt); err != nil {
			t.Fatal(err)
		}
		key := types.NamespacedName{Namespace: ns, Name: name}
		eventually(t, 20*time.Second, name+" records its host ports", func() bool {
			return env.Client.Get(ctx, key, rt) == nil && len(rt.Status.HostPorts) == 9
		})
		for port, p := range rt.Status.HostPorts {
			if other, dup := held[p]; dup {
				t.Errorf("port %d is %s and %s/%s", p, other, name, port)
			}
			held[p] = name + "/" + port
		}
		cm := &corev1.ConfigMap{}
		eventually(t, 20*time.Second, "Helm installs "+name+"-config", func() bool {
			return env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name + "-config"}, cm) == nil
		})
		if want := fmt.Sprintf("alluxio.master.rpc.port=%d\n", rt.Status.HostPorts["master.rpc"]); !strings.Contains(cm.Data["alluxio-site.properties"], want) {
			t.Errorf("the clients' properties lack %q", want)
		}
		for sts, want := range map[string]map[string]string{
			name + "-master": {"alluxio-master/rpc": "master.rpc", "alluxio-job-master/job-rpc": "jobMaster.rpc"},
			name + "-worker": {"alluxio-worker/rpc": "worker.rpc", "alluxio-job-worker/job-data": "jobWorker.data"},
		} {
			obj := &appsv1.StatefulSet{}
			eventually(t, 20*time.Second, "Helm installs "+sts, func() bool {
				return env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: sts}, obj) == nil
			})
			if !obj.Spec.Template.Spec.HostNetwork {
				t.Errorf("%s is not on the host network", sts)
			}
			for cp, record := range want {
				ctr, port, _ := strings.Cut(cp, "/")
				found := false
				for _, c := range obj.Spec.Template.Spec.Containers {
					found = found || c.Name == ctr && hasContainerPort(c, port, rt.Status.HostPorts[record])
				}
				if !found {
					t.Errorf("%s: container %s has no port %s = %d (%s)", sts, ctr, port, rt.Status.HostPorts[record], record)
				}
			}
		}
	}
}
