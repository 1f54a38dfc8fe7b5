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
	"github.com/sluice-data/sluice/tests/support/testobj"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/policy"
)

// podEscapes are specs whose pods would run on the control plane or with
// the node's privileges: each denial names its rule and field.
func podEscapes(ns string) []struct {
	name string
	obj  client.Object
	want []string
} {
	controlPlane := testobj.Dataset("cp", ns, testobj.WithMounts("juicefs:///cp"))
	controlPlane.Spec.Tolerations = []corev1.Toleration{{Key: "node-role.kubernetes.io/control-plane", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	everywhere := &datav1alpha1.DataLoad{ObjectMeta: metav1.ObjectMeta{Name: "everywhere", Namespace: ns},
		Spec: datav1alpha1.DataLoadSpec{Dataset: datav1alpha1.TargetDataset{Name: "cp"}, Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}}}
	backup := &datav1alpha1.DataBackup{ObjectMeta: metav1.ObjectMeta{Name: "kubelet", Namespace: ns},
		Spec: datav1alpha1.DataBackupSpec{Dataset: "cp", BackupPath: "local:///var/lib/kubelet"}}
	process := &datav1alpha1.DataProcess{ObjectMeta: metav1.ObjectMeta{Name: "root", Namespace: ns}, Spec: datav1alpha1.DataProcessSpec{
		Dataset: datav1alpha1.TargetDatasetWithMountPath{Name: "cp", Namespace: ns, MountPath: "/data"},
		Processor: datav1alpha1.Processor{Job: &datav1alpha1.JobProcessor{PodSpec: &corev1.PodSpec{HostNetwork: true,
			Containers: []corev1.Container{{Name: "c", Image: "busybox", SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(true)}}}}}}}}
	return []struct {
		name string
		obj  client.Object
		want []string
	}{
		{"control-plane toleration", controlPlane, []string{`spec.tolerations[0]: tolerates taint "node-role.kubernetes.io/control-plane", which is reserved`, "(rule toleration)"}},
		{"toleration of every taint", everywhere, []string{"spec.tolerations[0]: tolerates every taint", "(rule toleration)"}},
		{"local backup path", backup, []string{`spec.backupPath: local path "/var/lib/kubelet" is not under an allowed prefix`, "(rule local-mount)"}},
		{"privileged process", process, []string{
			"spec.processor.job.podSpec.hostNetwork: hostNetwork is not allowed for DataProcess pods",
			"spec.processor.job.podSpec.containers[0].securityContext.privileged: privileged is not allowed", "(rule process-privilege)"}},
	}
}

// TestDefaultGuardsKeepPodsOffTheControlPlaneAndTheHost (audit H2, the
// specs the first guards left out) through the real API server: a
// namespace user is denied a Dataset tolerating the control-plane taint,
// a DataLoad tolerating every taint, a DataBackup to local:///var/lib/kubelet
// and a privileged host-network DataProcess, each naming its rule and
// field; a policy ConfigMap's guards for the namespace lift those rules
// there (whatever else the operations' own rules say).
func TestDefaultGuardsKeepPodsOffTheControlPlaneAndTheHost(t *testing.T) {
	ns := env.Namespace(t)
	tenant := tenantClient(t, ns)
	for _, tt := range podEscapes(ns) {
		err := tenant.Create(ctxT(t), tt.obj, client.DryRunAll)
		for _, want := range tt.want {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("%s: want a denial containing %q, got %v", tt.name, want, err)
			}
		}
	}

	guards := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "guards-pods-" + ns, Namespace: webhook.DefaultNamespace, Labels: map[string]string{policy.BundleLabel: "true"}},
		Data: map[string]string{"guards.yaml": "validating:\n  guards:\n    " + ns + ":\n" +
			"      reservedTaints: []\n" +
			"      localPaths: [/var/lib/kubelet]\n" +
			"      processPrivileges: [hostNetwork, privileged]\n" +
			"      reservedHostPaths: []\n"},
	}
	if err := env.Client.Create(ctxT(t), guards); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), guards) })
	waitFor(t, policyLoad, "the guards load", func() bool { return annotation(t, guards) == "ok" })
	for _, tt := range podEscapes(ns) {
		err := tenant.Create(ctxT(t), tt.obj, client.DryRunAll)
		if err != nil && strings.Contains(err.Error(), tt.want[len(tt.want)-1]) {
			t.Fatalf("%s, in a namespace whose guards allow it: %v", tt.name, err)
		}
	}
}
