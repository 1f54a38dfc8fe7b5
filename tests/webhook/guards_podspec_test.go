package webhook_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/policy"
)

// nodeReachingProcesses are DataProcesses whose pod would reach the node
// through a field the first guards did not judge (audit N13): each is
// denied with the rule and the field.
func nodeReachingProcesses(ns string) []struct {
	name string
	obj  *datav1alpha1.DataProcess
	want string
} {
	process := func(name string, change func(*corev1.PodSpec)) *datav1alpha1.DataProcess {
		spec := &corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}
		change(spec)
		return &datav1alpha1.DataProcess{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: datav1alpha1.DataProcessSpec{
			Dataset:   datav1alpha1.TargetDatasetWithMountPath{Name: "cp", Namespace: ns, MountPath: "/data"},
			Processor: datav1alpha1.Processor{Job: &datav1alpha1.JobProcessor{PodSpec: spec}}}}
	}
	script := &datav1alpha1.DataProcess{ObjectMeta: metav1.ObjectMeta{Name: "script-nfs", Namespace: ns}, Spec: datav1alpha1.DataProcessSpec{
		Dataset: datav1alpha1.TargetDatasetWithMountPath{Name: "cp", Namespace: ns, MountPath: "/data"},
		Processor: datav1alpha1.Processor{Script: &datav1alpha1.ScriptProcessor{VersionSpec: datav1alpha1.VersionSpec{Image: "busybox"}, Source: "ls",
			Volumes: []corev1.Volume{{Name: "share", VolumeSource: corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: "10.0.0.2", Path: "/"}}}}}}}}
	return []struct {
		name string
		obj  *datav1alpha1.DataProcess
		want string
	}{
		{"nodeName", process("node-name", func(s *corev1.PodSpec) { s.NodeName = "control-plane-1" }),
			"spec.processor.job.podSpec.nodeName: nodeName is not allowed for DataProcess pods"},
		{"hostPort", process("host-port", func(s *corev1.PodSpec) {
			s.InitContainers = []corev1.Container{{Name: "i", Image: "busybox", Ports: []corev1.ContainerPort{{ContainerPort: 80, HostPort: 80}}}}
		}), "spec.processor.job.podSpec.initContainers[0].ports[0].hostPort: hostPort is not allowed for DataProcess pods"},
		{"seLinux spc_t", process("spc", func(s *corev1.PodSpec) {
			s.Containers[0].SecurityContext = &corev1.SecurityContext{SELinuxOptions: &corev1.SELinuxOptions{Type: "spc_t"}}
		}), "spec.processor.job.podSpec.containers[0].securityContext.seLinuxOptions: seLinuxOptions is not allowed for DataProcess pods"},
		{"nfs volume", process("nfs", func(s *corev1.PodSpec) {
			s.Volumes = []corev1.Volume{{Name: "share", VolumeSource: corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: "10.0.0.2", Path: "/"}}}}
		}), "spec.processor.job.podSpec.volumes[0].nfs: volume nfs is not allowed for DataProcess pods"},
		{"unconfined seccomp", process("seccomp", func(s *corev1.PodSpec) {
			s.SecurityContext = &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeUnconfined}}
		}), "spec.processor.job.podSpec.securityContext.seccompProfile.type: seccompProfile Unconfined is not allowed for DataProcess pods"},
		{"privilege escalation", process("escalation", func(s *corev1.PodSpec) {
			s.Containers[0].SecurityContext = &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(true)}
		}), "spec.processor.job.podSpec.containers[0].securityContext.allowPrivilegeEscalation: allowPrivilegeEscalation is not allowed for DataProcess pods"},
		{"script nfs volume", script, "spec.processor.script.volumes[0].nfs: volume nfs is not allowed for DataProcess pods"},
	}
}

// TestDefaultGuardsJudgeEveryNodeReachingPodSpecField is the audit's N13
// proof through the real API server: as a ServiceAccount that may create
// only data.fluid.io objects, a DataProcess whose pod names its node
// (skipping the scheduler and the control-plane taints), binds a host
// port, runs as SELinux spc_t, mounts an NFS export, runs unconfined by
// seccomp or allows privilege escalation is denied, naming the field and
// the rule process-privilege. A policy ConfigMap's processPrivileges for
// the namespace lifts each there.
func TestDefaultGuardsJudgeEveryNodeReachingPodSpecField(t *testing.T) {
	ns := env.Namespace(t)
	tenant := tenantClient(t, ns)
	waitForCache()
	for _, tt := range nodeReachingProcesses(ns) {
		err := tenant.Create(ctxT(t), tt.obj, client.DryRunAll)
		for _, want := range []string{tt.want, "(rule process-privilege)"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("%s: want a denial containing %q, got %v", tt.name, want, err)
			}
		}
	}

	guards := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "guards-podspec-" + ns, Namespace: webhook.DefaultNamespace, Labels: map[string]string{policy.BundleLabel: "true"}},
		Data: map[string]string{"guards.yaml": "validating:\n  guards:\n    " + ns + ":\n" +
			"      processPrivileges: [nodeName, hostPort, seLinuxOptions, volume nfs, seccompProfile Unconfined, allowPrivilegeEscalation]\n"},
	}
	if err := env.Client.Create(ctxT(t), guards); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), guards) })
	waitFor(t, policyLoad, "the guards load", func() bool { return annotation(t, guards) == "ok" })
	for _, tt := range nodeReachingProcesses(ns) {
		if err := tenant.Create(ctxT(t), tt.obj, client.DryRunAll); err != nil && strings.Contains(err.Error(), "(rule process-privilege)") {
			t.Fatalf("%s, in a namespace whose guards allow it: %v", tt.name, err)
		}
	}
}
