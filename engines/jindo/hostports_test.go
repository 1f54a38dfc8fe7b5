package jindo_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/jindo"
)

// TestHostPortsAreTheHostNetworkPorts: on the host network (the default)
// the engine names the masters' and workers' ports for the controller to
// allocate (0) or as spec.<component>.ports sets them; on the pod network
// none; disabled components none.
func TestHostPortsAreTheHostNetworkPorts(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*datav1alpha1.JindoRuntime)
		want map[string]int
	}{
		{"host network, three masters", func(*datav1alpha1.JindoRuntime) {}, map[string]int{"master.rpc": 0, "master.raft": 0, "worker.rpc": 0}},
		{"one master, hand-set worker port", func(rt *datav1alpha1.JindoRuntime) {
			rt.Spec.Master.Replicas = 1
			rt.Spec.Worker.Ports = map[string]int{"rpc": 16101}
		}, map[string]int{"master.rpc": 0, "worker.rpc": 16101}},
		{"FUSE alone", func(rt *datav1alpha1.JindoRuntime) { rt.Spec.Master.Disabled, rt.Spec.Worker.Disabled = true, true }, map[string]int{}},
		{"pod network", func(rt *datav1alpha1.JindoRuntime) { rt.Spec.NetworkMode = datav1alpha1.ContainerNetworkMode }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, rt := sample()
			tc.edit(rt)
			got, err := jindo.Engine{}.HostPorts(rt)
			if err != nil || !cmp.Equal(got, tc.want) {
				t.Errorf("HostPorts = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// TestRecordedHostPortsAreRendered: the ports the controller recorded in
// status.hostPorts reach the containers, the Service and the
// configuration on the host network; a hand-set port wins; on the pod
// network the record is not used.
func TestRecordedHostPortsAreRendered(t *testing.T) {
	ds, rt := sample()
	rt.Spec.Worker.Ports = map[string]int{"rpc": 16101}
	rt.Status.HostPorts = map[string]int32{"master.rpc": 20007, "master.raft": 20008, "worker.rpc": 20009}
	r := renderRelease(t, ds, rt)
	if !r.master.Spec.Template.Spec.HostNetwork {
		t.Fatal("the masters are not on the host network by default")
	}
	ports := func(c corev1.Container) map[string]int32 {
		out := map[string]int32{}
		for _, p := range c.Ports {
			out[p.Name] = p.ContainerPort
		}
		return out
	}
	if got := ports(r.master.Spec.Template.Spec.Containers[0]); got["rpc"] != 20007 || got["raft"] != 20008 {
		t.Errorf("master ports %v, want rpc 20007 and raft 20008 (recorded)", got)
	}
	if got := ports(r.worker.Spec.Template.Spec.Containers[0]); got["rpc"] != 16101 {
		t.Errorf("worker ports %v, want rpc 16101 (hand-set over the record)", got)
	}
	svc := map[string]int32{}
	for _, p := range r.service.Spec.Ports {
		svc[p.Name] = p.Port
	}
	if svc["rpc"] != 20007 || svc["raft"] != 20008 {
		t.Errorf("master Service ports %v, want the recorded ones", svc)
	}
	if got := section(t, r.config.Data["jindocache.cfg"], "jindocache-server")["namespace.rpc.port"]; got != "20007" {
		t.Errorf("namespace.rpc.port = %q, want the recorded 20007", got)
	}

	rt.Spec.NetworkMode = datav1alpha1.ContainerNetworkMode
	r = renderRelease(t, ds, rt)
	if got := ports(r.master.Spec.Template.Spec.Containers[0]); got["rpc"] != jindo.DefaultMasterRPCPort {
		t.Errorf("on the pod network master ports %v, want rpc %d", got, jindo.DefaultMasterRPCPort)
	}
}
