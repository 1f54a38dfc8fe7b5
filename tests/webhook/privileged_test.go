package webhook_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testobj"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/policy"
)

// privilegedCase is a runtime a namespace user writes, and what its
// admission must say: the denial's fragments, or admitted when want is
// empty.
type privilegedCase struct {
	name string
	obj  client.Object
	want []string
}

// privilegedEscapes are the examples of issue 30 (audit N1) and a variant
// of each on every engine: a tenant value that would run in a container
// with host privileges. Each denial names the field and the rule.
func privilegedEscapes(ns, profile string) []privilegedCase {
	const rule = "(rule privileged-container)"
	hook := &corev1.Lifecycle{PostStart: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", "chroot /host sh"}}}}

	// A: a ThinRuntime's postStart hook in its privileged FUSE container,
	// and a variant through an exec liveness probe of the host-network worker.
	thinHook := thinRuntime("thin-hook", ns, profile)
	thinHook.Spec.Fuse.Lifecycle = hook
	thinProbe := thinRuntime("thin-probe", ns, profile)
	thinProbe.Spec.Worker.LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", "x"}}}}

	// B: a JuiceFS worker whose PATH leads to a downwardAPI volume of the
	// tenant's script, mounted over a directory of the tenant's choice.
	jfs := testobj.JuiceFSRuntime("jfs-path", ns, 1, testobj.Level(datav1alpha1.Memory, "/dev/shm", "1Gi"))
	jfs.Spec.Worker.Env = []corev1.EnvVar{{Name: "PATH", Value: "/opt/x:/usr/bin:/bin"}}
	jfs.Spec.Worker.VolumeMounts = []corev1.VolumeMount{{Name: "x", MountPath: "/opt/x"}}
	jfs.Spec.Volumes = []corev1.Volume{{Name: "x", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
		Items: []corev1.DownwardAPIVolumeFile{{Path: "juicefs", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations['x']"}}}}}}}
	jfs.Spec.Worker.PodMetadata.Annotations = map[string]string{"x": "#!/bin/sh\nchroot /host sh\n"}
	jfsFuse := testobj.JuiceFSRuntime("jfs-preload", ns, 1, testobj.Level(datav1alpha1.Memory, "/dev/shm", "1Gi"))
	jfsFuse.Spec.Fuse.Env = []corev1.EnvVar{{Name: "LD_PRELOAD", Value: "/runtime-mnt/x.so"}}

	// C: a JVM flag that runs a command in Alluxio's privileged FUSE, and
	// variants through spec.jvmOptions (every process) and the master's
	// environment on the host network.
	alluxioOOM := alluxioRuntime("alluxio-oom", ns)
	alluxioOOM.Spec.Fuse.JvmOptions = []string{"-Xmx1G", "-XX:OnOutOfMemoryError=sh -c 'chroot /host sh'"}
	alluxioAll := alluxioRuntime("alluxio-agent", ns)
	alluxioAll.Spec.JvmOptions = []string{"-javaagent:/runtime-mnt/a.jar"}
	alluxioMaster := alluxioRuntime("alluxio-master", ns)
	alluxioMaster.Spec.Master.NetworkMode = datav1alpha1.HostNetworkMode
	alluxioMaster.Spec.Master.Env = map[string]string{"JAVA_TOOL_OPTIONS": "-javaagent:/x.jar"}

	// Jindo: a FUSE program's arguments that are no mount options, and
	// its environment.
	jindoArgs := jindoRuntime("jindo-args", ns)
	jindoArgs.Spec.Fuse.Args = []string{"-okernel_cache", "bash"}
	jindoArgs.Spec.Fuse.Env = map[string]string{"BASH_ENV": "/runtime-mnt/x"}

	return []privilegedCase{
		{"thin postStart hook", thinHook, []string{"spec.fuse.lifecycle: reaches the privileged Thin FUSE container, which runs with host privileges", rule}},
		{"thin worker exec probe", thinProbe, []string{"spec.worker.livenessProbe: reaches the Thin worker container", rule}},
		{"juicefs worker PATH and mount", jfs, []string{`spec.worker.env[0]: "PATH" is not allowed in the privileged JuiceFS worker container`,
			"spec.worker.volumeMounts: reaches the privileged JuiceFS worker container", rule}},
		{"juicefs fuse LD_PRELOAD", jfsFuse, []string{`spec.fuse.env[0]: "LD_PRELOAD" is not allowed in the privileged JuiceFS FUSE container`, rule}},
		{"alluxio fuse OnOutOfMemoryError", alluxioOOM, []string{`spec.fuse.jvmOptions[1]: "-XX:OnOutOfMemoryError=sh -c 'chroot /host sh'" is not allowed`, rule}},
		{"alluxio javaagent for every process", alluxioAll, []string{`spec.jvmOptions[0]: "-javaagent:/runtime-mnt/a.jar" is not allowed`, rule}},
		{"alluxio master env on the host network", alluxioMaster, []string{`spec.master.env.JAVA_TOOL_OPTIONS: "JAVA_TOOL_OPTIONS" is not allowed in the Alluxio master container`, rule}},
		{"jindo fuse args and env", jindoArgs, []string{`spec.fuse.args[1]: "bash" is not allowed in the privileged JindoCache FUSE container`,
			`spec.fuse.env.BASH_ENV: "BASH_ENV" is not allowed`, rule}},
	}
}

// privilegedAdmitted are values of the same fields that stay data, or
// reach a container without host privileges: admitted by default.
func privilegedAdmitted(ns string) []privilegedCase {
	jfs := testobj.JuiceFSRuntime("jfs-log", ns, 1, testobj.Level(datav1alpha1.Memory, "/dev/shm", "1Gi"))
	jfs.Spec.Fuse.Env = []corev1.EnvVar{{Name: "JFS_LOG_LEVEL", Value: "debug"}, {Name: "NODE_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}}}
	alluxio := alluxioRuntime("alluxio-heap", ns)
	alluxio.Spec.Fuse.JvmOptions = []string{"-Xmx4G", "-XX:MaxDirectMemorySize=16G"}
	alluxio.Spec.Fuse.Args = []string{"fuse", "--fuse-opts=kernel_cache,ro,max_read=131072"}
	alluxio.Spec.Master.Env = map[string]string{"JAVA_TOOL_OPTIONS": "-Xmx1G"} // the master is on the pod network
	return []privilegedCase{{"juicefs log level", jfs, nil}, {"alluxio heap, mount options, pod-network master", alluxio, nil}}
}

func thinRuntime(name, ns, profile string) *datav1alpha1.ThinRuntime {
	return &datav1alpha1.ThinRuntime{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: datav1alpha1.ThinRuntimeSpec{ProfileName: profile}}
}

func jindoRuntime(name, ns string) *datav1alpha1.JindoRuntime {
	return &datav1alpha1.JindoRuntime{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: datav1alpha1.JindoRuntimeSpec{Replicas: 1, TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{testobj.Level(datav1alpha1.Memory, "/dev/shm", "1Gi")}}}}
}

// TestTenantValuesStayOutOfPrivilegedContainers is issue 30's proof of
// the privileged-container rule (audit N1) through the real API server,
// as a ServiceAccount allowed only data.fluid.io objects in its
// namespace: every example is denied naming its field and the rule; the
// same fields with values that stay data are admitted; a policy
// ConfigMap's privilegedFields for the namespace admits a listed field
// there and only there.
func TestTenantValuesStayOutOfPrivilegedContainers(t *testing.T) {
	ns, other := env.Namespace(t), env.Namespace(t)
	profile := &datav1alpha1.ThinRuntimeProfile{ObjectMeta: metav1.ObjectMeta{Name: "privileged-" + ns},
		Spec: datav1alpha1.ThinRuntimeProfileSpec{FileSystemType: "fuse.sample",
			Fuse: datav1alpha1.ThinFuseSpec{VersionSpec: datav1alpha1.VersionSpec{Image: "registry.example.com/fuse"}, Command: []string{"fuse-mount"}}}}
	if err := env.Client.Create(ctxT(t), profile); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), profile) })
	waitForCache()

	tenants := map[string]client.Client{ns: tenantClient(t, ns), other: tenantClient(t, other)}
	for _, tt := range privilegedEscapes(ns, profile.Name) {
		err := tenants[ns].Create(ctxT(t), tt.obj, client.DryRunAll)
		for _, want := range tt.want {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: want a denial containing %q, got %v", tt.name, want, err)
			}
		}
	}
	for _, tt := range privilegedAdmitted(ns) {
		if err := tenants[ns].Create(ctxT(t), tt.obj, client.DryRunAll); err != nil {
			t.Errorf("%s: want it admitted, got %v", tt.name, err)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	allow := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "privileged-" + ns, Namespace: webhook.DefaultNamespace, Labels: map[string]string{policy.BundleLabel: "true"}},
		Data: map[string]string{"privileged.yaml": "validating:\n  guards:\n    " + ns + ":\n" +
			"      privilegedFields: [spec.fuse.lifecycle]\n"},
	}
	if err := env.Client.Create(ctxT(t), allow); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), allow) })
	waitFor(t, policyLoad, "the privileged fields load", func() bool { return annotation(t, allow) == "ok" })

	hook := privilegedEscapes(ns, profile.Name)[0]
	if err := tenants[ns].Create(ctxT(t), hook.obj, client.DryRunAll); err != nil {
		t.Errorf("%s in %s, whose policy data lists spec.fuse.lifecycle: %v", hook.name, ns, err)
	}
	elsewhere := privilegedEscapes(other, profile.Name)[0]
	if err := tenants[other].Create(ctxT(t), elsewhere.obj, client.DryRunAll); err == nil || !strings.Contains(err.Error(), "privileged-container") {
		t.Errorf("%s in %s, which the policy data of %s does not cover: want a privileged-container denial, got %v", elsewhere.name, other, ns, err)
	}
}
