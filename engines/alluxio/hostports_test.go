package alluxio_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/alluxio"
)

// TestHostPortsAreTheHostNetworkPorts: the engine names the ports of the
// processes of the pods on the host network (none by default: masters and
// workers run on the pod network), hand-set ones (spec ports or Alluxio
// properties) with their number, and the embedded-journal ports only for a
// quorum of masters.
func TestHostPortsAreTheHostNetworkPorts(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*datav1alpha1.AlluxioRuntime)
		want map[string]int
	}{
		{"pod network (the default)", func(*datav1alpha1.AlluxioRuntime) {}, map[string]int{}},
		{"masters on the host network", func(rt *datav1alpha1.AlluxioRuntime) {
			rt.Spec.Master.NetworkMode = datav1alpha1.HostNetworkMode
			rt.Spec.Master.Ports = map[string]int{"rpc": 19998}
			rt.Spec.Properties = map[string]string{"alluxio.job.master.web.port": "20102"}
		}, map[string]int{"master.rpc": 19998, "master.web": 0, "jobMaster.rpc": 0, "jobMaster.web": 20102}},
		{"masters on the host network with the API gateway", func(rt *datav1alpha1.AlluxioRuntime) {
			rt.Spec.Master.NetworkMode = datav1alpha1.HostNetworkMode
			rt.Spec.APIGateway.Enabled = true
		}, map[string]int{"master.rpc": 0, "master.web": 0, "jobMaster.rpc": 0, "jobMaster.web": 0, "apiGateway.rest": 0}},
		{"a quorum of masters and workers on the host network", func(rt *datav1alpha1.AlluxioRuntime) {
			rt.Spec.Master.Replicas = 3
			rt.Spec.Master.NetworkMode, rt.Spec.Worker.NetworkMode = datav1alpha1.HostNetworkMode, datav1alpha1.HostNetworkMode
			rt.Spec.JobWorker.Properties = map[string]string{"alluxio.job.worker.data.port": "21002"}
		}, map[string]int{
			"master.rpc": 0, "master.web": 0, "master.embedded": 0, "jobMaster.rpc": 0, "jobMaster.web": 0, "jobMaster.embedded": 0,
			"worker.rpc": 0, "worker.web": 0, "jobWorker.rpc": 0, "jobWorker.data": 21002, "jobWorker.web": 0,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, rt := sample()
			tc.edit(rt)
			got, err := alluxio.Engine{}.HostPorts(rt)
			if err != nil || !cmp.Equal(got, tc.want) {
				t.Errorf("HostPorts = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
	_, rt := sample()
	rt.Spec.Worker.NetworkMode = datav1alpha1.HostNetworkMode
	rt.Spec.Worker.Properties = map[string]string{"alluxio.worker.rpc.port": "twenty"}
	if _, err := (alluxio.Engine{}).HostPorts(rt); err == nil {
		t.Error("a port property that is not a number was accepted")
	}
}

// TestRecordedHostPortsAreRendered: on the host network, the ports the
// controller recorded in status.hostPorts reach the containers, the
// masters' Service and every process's properties; a hand-set port wins;
// the pod network does not use the record.
func TestRecordedHostPortsAreRendered(t *testing.T) {
	ds, rt := sample()
	rt.Spec.Master.NetworkMode, rt.Spec.Worker.NetworkMode = datav1alpha1.HostNetworkMode, datav1alpha1.HostNetworkMode
	rt.Spec.Worker.Ports = map[string]int{"web": 23000}
	rt.Status.HostPorts = map[string]int32{"master.rpc": 20000, "master.web": 20001, "jobMaster.rpc": 20002, "jobMaster.web": 20003,
		"worker.rpc": 20004, "worker.web": 20005, "jobWorker.rpc": 20006, "jobWorker.data": 20007, "jobWorker.web": 20008}
	o := decode(t, render(t, ds, rt))
	if !o.master.Spec.Template.Spec.HostNetwork || !o.worker.Spec.Template.Spec.HostNetwork {
		t.Fatal("masters and workers are not on the host network")
	}
	m, jw := container(t, o.master.Spec.Template.Spec, "alluxio-master"), container(t, o.worker.Spec.Template.Spec, "alluxio-job-worker")
	w := container(t, o.worker.Spec.Template.Spec, "alluxio-worker")
	if !hasPort(m, "rpc", 20000) || !hasPort(m, "metrics", 20001) || !hasPort(jw, "job-data", 20007) || !hasPort(w, "rpc", 20004) {
		t.Errorf("container ports: master %v, job worker %v, worker %v; want the recorded ones", m.Ports, jw.Ports, w.Ports)
	}
	if !hasPort(w, "web", 23000) {
		t.Errorf("worker ports %v, want web 23000 (hand-set over the record)", w.Ports)
	}
	if got := o.service.Spec.Ports[0].Port; got != 20000 {
		t.Errorf("masters' Service rpc port %d, want 20000", got)
	}
	site := properties(t, o.config, "alluxio-site.properties")
	for k, want := range map[string]string{"alluxio.master.rpc.port": "20000", "alluxio.worker.web.port": "23000", "alluxio.job.worker.data.port": "20007"} {
		if site[k] != want {
			t.Errorf("%s = %q, want %q", k, site[k], want)
		}
	}

	rt.Spec.APIGateway.Enabled = true
	rt.Status.HostPorts["apiGateway.rest"] = 20009
	o = decode(t, render(t, ds, rt))
	if p := container(t, o.master.Spec.Template.Spec, "alluxio-proxy"); !hasPort(p, "rest", 20009) {
		t.Errorf("API gateway ports %v, want rest 20009 (recorded)", p.Ports)
	}
	if endpoint, _ := (alluxio.Engine{}).APIGateway(rt); endpoint != "imagenet-master-0.imagenet-master.team-a.svc:20009" {
		t.Errorf("API gateway endpoint %q, want the recorded port", endpoint)
	}

	rt.Spec.Master.NetworkMode = ""
	o = decode(t, render(t, ds, rt))
	if m := container(t, o.master.Spec.Template.Spec, "alluxio-master"); !hasPort(m, "rpc", alluxio.MasterRPCPort) {
		t.Errorf("on the pod network master ports %v, want rpc %d", m.Ports, alluxio.MasterRPCPort)
	}
}
