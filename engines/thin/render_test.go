package thin_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/thin"
)

// TestRenderedFuse decodes the FUSE DaemonSet and checks what the webhook,
// the CSI plugin and the user's FUSE program rely on.
func TestRenderedFuse(t *testing.T) {
	ds, profile, rt := sample()
	_, out := render(t, ds, profile, rt)
	dsf := enginetest.Decode[appsv1.DaemonSet](t, out, "templates/fuse-daemonset.yaml")
	if dsf.Name != rt.Name+datav1alpha1.FuseDaemonSetSuffix || dsf.Namespace != "team-a" {
		t.Errorf("FUSE DaemonSet is %s/%s, want team-a/imagenet%s", dsf.Namespace, dsf.Name, datav1alpha1.FuseDaemonSetSuffix)
	}
	pod := dsf.Spec.Template.Spec
	// The runtime's nodeSelector replaces the profile's; the FUSE label is always there.
	if diff := cmp.Diff(map[string]string{"fluid.io/f-team-a-imagenet": "true", "gpu": "true"}, pod.NodeSelector); diff != "" {
		t.Errorf("FUSE nodeSelector (-want +got):\n%s", diff)
	}
	for k, v := range dsf.Spec.Selector.MatchLabels {
		if dsf.Spec.Template.Labels[k] != v {
			t.Errorf("pod labels %v do not match the selector's %s=%s", dsf.Spec.Template.Labels, k, v)
		}
	}
	if l := dsf.Spec.Template.Labels; l["app.kubernetes.io/name"] != "thin" || l["app.kubernetes.io/managed-by"] != "sluice" ||
		l[datav1alpha1.LabelDataset] != "team-a-imagenet" || l["role"] != "thin-fuse" {
		t.Errorf("FUSE pod labels = %v", l)
	}
	// Placement concerns workers only: FUSE must run beside any worker.
	if _, ok := dsf.Spec.Template.Labels[placementLabel]; ok {
		t.Errorf("FUSE pod labels %v carry %s, which placement anti-affinity selects", dsf.Spec.Template.Labels, placementLabel)
	}
	if len(pod.Containers) != 1 || pod.Containers[0].Name != "fuse" {
		t.Fatalf("containers = %+v; the webhook copies the first, named fuse", pod.Containers)
	}
	c := pod.Containers[0]
	if c.Image != "registry.example.com/nfs-fuse:v1.1" || c.ImagePullPolicy != corev1.PullAlways {
		t.Errorf("image %s (%s): want the profile's repository and policy with the runtime's tag", c.Image, c.ImagePullPolicy)
	}
	if c.SecurityContext == nil || c.SecurityContext.Privileged == nil || !*c.SecurityContext.Privileged {
		t.Error("the FUSE container must be privileged")
	}
	if diff := cmp.Diff([]string{"/bin/sh", "-c"}, c.Command); diff != "" || c.Lifecycle == nil || c.LivenessProbe == nil {
		t.Errorf("command %q, lifecycle %v, liveness %v: the user's must be kept", c.Command, c.Lifecycle, c.LivenessProbe)
	}
	host := enginetest.MountAt(c, "/runtime-mnt/thin/team-a/imagenet")
	if host == nil || host.MountPropagation == nil || *host.MountPropagation != corev1.MountPropagationBidirectional {
		t.Errorf("the FUSE mount's directory must be mounted Bidirectional: %+v", host)
	} else if v := enginetest.Volume(pod, host.Name); v == nil || v.HostPath == nil || v.HostPath.Path != "/runtime-mnt/thin/team-a/imagenet" {
		t.Errorf("volume of the FUSE mount = %+v", v)
	}
	if !strings.HasPrefix(thin.FusePath("team-a", "imagenet"), host.MountPath+"/") {
		t.Errorf("FusePath %s is not under the mounted host directory %s", thin.FusePath("team-a", "imagenet"), host.MountPath)
	}
	if m := enginetest.MountAt(c, "/dev/fuse"); m == nil || enginetest.Volume(pod, m.Name).HostPath.Path != "/dev/fuse" {
		t.Error("/dev/fuse is not mounted")
	}
	cfg := enginetest.MountAt(c, thin.ConfigDir)
	if cfg == nil || enginetest.Volume(pod, cfg.Name).ConfigMap == nil || enginetest.Volume(pod, cfg.Name).ConfigMap.Name != "imagenet-fuse-config" {
		t.Fatalf("the config ConfigMap is not mounted at %s: %+v", thin.ConfigDir, cfg)
	}
	if items := enginetest.Volume(pod, cfg.Name).ConfigMap.Items; len(items) != 1 || items[0].Path != thin.ConfigFile {
		t.Errorf("config items = %+v", items)
	}
	for secret, key := range map[string]string{"nfs-creds": "password", "nfs-token": "token"} {
		m := enginetest.MountAt(c, "/etc/fluid/secrets/"+secret)
		if m == nil || !m.ReadOnly {
			t.Errorf("Secret %s is not mounted read-only under %s", secret, thin.SecretRoot)
			continue
		}
		v := enginetest.Volume(pod, m.Name)
		if v.Secret == nil || v.Secret.SecretName != secret || len(v.Secret.Items) != 1 || v.Secret.Items[0].Key != key || v.Secret.Items[0].Path != key {
			t.Errorf("volume of Secret %s = %+v, want only key %s", secret, v, key)
		}
	}
	env := map[string]string{}
	for _, e := range c.Env {
		if _, dup := env[e.Name]; dup {
			t.Errorf("env %s appears twice", e.Name)
		}
		env[e.Name] = e.Value
	}
	for k, want := range map[string]string{"LOG_LEVEL": "info", "CACHE_MODE": "page", "THREADS": "8",
		"FLUID_FUSE_MOUNTPOINT": thin.FusePath("team-a", "imagenet"), "MOUNT_OPTIONS": "attr_timeout=30,nolock"} {
		if env[k] != want {
			t.Errorf("env %s = %q, want %q", k, env[k], want)
		}
	}
	if m := enginetest.MountAt(c, "/scripts"); m == nil || enginetest.Volume(pod, "scripts") == nil || enginetest.Volume(pod, "scripts").ConfigMap.Name != "nfs-fuse-scripts" {
		t.Error("the profile's volume and volumeMount are missing")
	}
	if m := enginetest.MountAt(c, "/dev/shm/thin"); m == nil {
		t.Error("the MEM tier is not mounted")
	} else if v := enginetest.Volume(pod, m.Name); v.EmptyDir == nil || v.EmptyDir.Medium != corev1.StorageMediumMemory || v.EmptyDir.SizeLimit.String() != "2Gi" {
		t.Errorf("MEM tier volume = %+v", v)
	}
	if m := enginetest.MountAt(c, "/mnt/ssd2"); m == nil || enginetest.Volume(pod, m.Name).HostPath == nil {
		t.Error("the SSD tier's second path is not a hostPath mount")
	}
}

// TestRenderedConfig decodes the ConfigMap and the JSON the FUSE program reads.
func TestRenderedConfig(t *testing.T) {
	ds, profile, rt := sample()
	_, out := render(t, ds, profile, rt)
	cm := enginetest.Decode[corev1.ConfigMap](t, out, "templates/fuse-config.yaml")
	if cm.Name != "imagenet-fuse-config" {
		t.Errorf("ConfigMap %s", cm.Name)
	}
	doc := cm.Data[thin.ConfigFile]
	if strings.Count(strings.TrimSpace(doc), "\n") != 0 {
		t.Errorf("config.json is not one line:\n%s", doc)
	}
	var got thin.FuseConfig
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("config.json: %v\n%s", err, doc)
	}
	want := thin.FuseConfig{
		TargetPath:     thin.FusePath("team-a", "imagenet"),
		RuntimeOptions: map[string]string{"attr_timeout": "30", "nolock": ""},
		AccessModes:    []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
		Mounts: []thin.ConfigMount{
			{MountPoint: "nfs://10.0.0.5/exports/train", Name: "train", Path: "/train", Options: map[string]string{
				"vers": "4.1", "timeo": "600", "token": "/etc/fluid/secrets/nfs-token/token", "password": "/etc/fluid/secrets/nfs-creds/password"}},
			{MountPoint: "nfs://10.0.0.5/exports/val", Name: "val", Path: "/validation", ReadOnly: true, Options: map[string]string{
				"vers": "4.1", "token": "/etc/fluid/secrets/nfs-token/token"}},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("config.json (-want +got):\n%s", diff)
	}
}

// TestNoSecretValue: encrypt options reach the pods only as Secret volumes;
// neither the values nor any manifest holds a secret value.
func TestNoSecretValue(t *testing.T) {
	ds, profile, rt := sample()
	values, out := render(t, ds, profile, rt)
	data, err := json.Marshal(values)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), secretValue) {
		t.Error("a secret value reached the chart values")
	}
	for name, m := range out {
		if strings.Contains(m, secretValue) {
			t.Errorf("a secret value reached %s", name)
		}
	}
}

// TestRenderedWorker checks the worker StatefulSet: profile image, runtime
// replicas, placement and the Dataset's scheduling constraints.
func TestRenderedWorker(t *testing.T) {
	ds, profile, rt := sample()
	_, out := render(t, ds, profile, rt)
	sts := enginetest.Decode[appsv1.StatefulSet](t, out, "templates/worker-statefulset.yaml")
	if sts.Name != "imagenet-worker" || sts.Spec.Replicas == nil || *sts.Spec.Replicas != 2 {
		t.Errorf("worker %s, replicas %v: want imagenet-worker with spec.replicas 2", sts.Name, sts.Spec.Replicas)
	}
	pod := sts.Spec.Template.Spec
	if c := pod.Containers[0]; c.Image != "registry.example.com/nfs-cache:v1.0" || len(c.Ports) != 1 || c.Ports[0].ContainerPort != 7000 {
		t.Errorf("worker container = %s %v", c.Image, c.Ports)
	}
	if a := pod.Affinity; a == nil || a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution == nil || a.NodeAffinity == nil {
		t.Errorf("shared placement and dataset node affinity not rendered: %+v", a)
	}
	if sts.Spec.Template.Labels[placementLabel] != "Shared" {
		t.Errorf("worker pod labels %v lack %s=Shared", sts.Spec.Template.Labels, placementLabel)
	}
	if len(pod.Tolerations) != 1 || pod.Tolerations[0].Key != "gpu" {
		t.Errorf("worker tolerations = %+v, want the Dataset's", pod.Tolerations)
	}
	if enginetest.MountAt(pod.Containers[0], thin.ConfigDir) == nil {
		t.Error("the worker does not get the config")
	}
	for k, v := range sts.Spec.Selector.MatchLabels {
		if sts.Spec.Template.Labels[k] != v {
			t.Errorf("pod labels %v do not match the selector's %s=%s", sts.Spec.Template.Labels, k, v)
		}
	}
}

// TestWorkerOnlyWhenEnabled: without workers the release is the FUSE
// DaemonSet and its config; either the runtime or the profile enables them.
func TestWorkerOnlyWhenEnabled(t *testing.T) {
	ds, profile, rt := sample()
	rt.Spec.Worker.Enabled = false
	_, out := render(t, ds, profile, rt)
	if m := strings.TrimSpace(out["templates/worker-statefulset.yaml"]); m != "" {
		t.Errorf("worker rendered while disabled:\n%s", m)
	}
	if _, ok := out["templates/fuse-daemonset.yaml"]; !ok {
		t.Error("no FUSE DaemonSet")
	}
	profile.Spec.Worker.Enabled = true
	_, out = render(t, ds, profile, rt)
	sts := enginetest.Decode[appsv1.StatefulSet](t, out, "templates/worker-statefulset.yaml")
	if sts.Name != "imagenet-worker" {
		t.Errorf("a profile that enables workers must render them, got %q", sts.Name)
	}
}

// TestExclusiveContainerNetwork covers the other placement and network mode.
func TestExclusiveContainerNetwork(t *testing.T) {
	ds, profile, rt := sample()
	ds.Spec.Placement = ""
	ds.Spec.NodeAffinity = nil
	rt.Spec.Fuse.NetworkMode = datav1alpha1.ContainerNetworkMode
	rt.Spec.Worker.NetworkMode = datav1alpha1.ContainerNetworkMode
	_, out := render(t, ds, profile, rt)
	dsf := enginetest.Decode[appsv1.DaemonSet](t, out, "templates/fuse-daemonset.yaml")
	sts := enginetest.Decode[appsv1.StatefulSet](t, out, "templates/worker-statefulset.yaml")
	if dsf.Spec.Template.Spec.HostNetwork || sts.Spec.Template.Spec.HostNetwork {
		t.Error("ContainerNetwork must turn host networking off")
	}
	a := sts.Spec.Template.Spec.Affinity
	// Any worker, its own replicas included (one per node), in any namespace; not FUSE.
	want := []corev1.PodAffinityTerm{enginetest.ExclusiveTerm()}
	if diff := cmp.Diff(want, a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution); a.NodeAffinity != nil || diff != "" {
		t.Errorf("exclusive placement affinity (-want +got):\n%s", diff)
	}
	if sts.Labels[placementLabel] != "Exclusive" || sts.Spec.Template.Labels[placementLabel] != "Exclusive" {
		t.Errorf("placement label = %q, want Exclusive for an unset placement", sts.Spec.Template.Labels[placementLabel])
	}
	if _, ok := dsf.Spec.Template.Labels[placementLabel]; ok {
		t.Errorf("FUSE pod labels %v carry %s", dsf.Spec.Template.Labels, placementLabel)
	}
}

// placementLabel is the label of cache workers that placement anti-affinity selects.
const placementLabel = enginetest.PlacementLabel

// TestPlacementConcernsWorkersOnly: Fluid's placement applies to cache
// workers only. Only worker pods carry the placement label, an Exclusive
// worker keeps every other worker (of any dataset, in any namespace) off
// its node but never a FUSE pod, whose node app Pods are steered to, and an
// Exclusive dataset's FUSE never keeps Shared workers away.
func TestPlacementConcernsWorkersOnly(t *testing.T) {
	_, profile, _ := sample()
	enginetest.CheckPlacement(t, func() (*datav1alpha1.Dataset, *datav1alpha1.ThinRuntime) {
		ds, _, rt := sample()
		return ds, rt
	}, func(t *testing.T, ds *datav1alpha1.Dataset, rt *datav1alpha1.ThinRuntime) map[string]string {
		_, out := render(t, ds, profile, rt)
		return out
	}, false)
}

// TestLongDatasetID: "<namespace>-<name>" longer than a label value allows
// gives way to the Dataset's UID in the fluid.io/dataset label.
func TestLongDatasetID(t *testing.T) {
	ds, profile, rt := sample()
	ds.Namespace = strings.Repeat("n", 40)
	rt.Namespace = ds.Namespace
	ds.Name = strings.Repeat("d", 30)
	rt.Name = ds.Name
	_, out := render(t, ds, profile, rt)
	dsf := enginetest.Decode[appsv1.DaemonSet](t, out, "templates/fuse-daemonset.yaml")
	if got := dsf.Spec.Template.Labels[datav1alpha1.LabelDataset]; got != string(ds.UID) {
		t.Errorf("fluid.io/dataset = %q, want the UID %s", got, ds.UID)
	}
}

// TestMinimalRuntime: a runtime that only names a profile with a FUSE image
// renders a FUSE DaemonSet and its config, nothing else.
func TestMinimalRuntime(t *testing.T) {
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "logs", Namespace: "default"},
		Spec: datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{{MountPoint: "local:///var/log"}}}}
	profile := &datav1alpha1.ThinRuntimeProfile{ObjectMeta: metav1.ObjectMeta{Name: "bind"}, Spec: datav1alpha1.ThinRuntimeProfileSpec{
		FileSystemType: "fuse.bindfs", Fuse: datav1alpha1.ThinFuseSpec{VersionSpec: datav1alpha1.VersionSpec{Image: "example.com/bindfs@sha256:0123"}}}}
	rt := &datav1alpha1.ThinRuntime{ObjectMeta: metav1.ObjectMeta{Name: "logs", Namespace: "default"}, Spec: datav1alpha1.ThinRuntimeSpec{ProfileName: "bind"}}
	_, out := render(t, ds, profile, rt)
	if diff := cmp.Diff([]string{"templates/fuse-config.yaml", "templates/fuse-daemonset.yaml"}, helm.SortedKeys(out)); diff != "" {
		t.Fatalf("templates (-want +got):\n%s", diff)
	}
	dsf := enginetest.Decode[appsv1.DaemonSet](t, out, "templates/fuse-daemonset.yaml")
	cm := enginetest.Decode[corev1.ConfigMap](t, out, "templates/fuse-config.yaml")
	c := dsf.Spec.Template.Spec.Containers[0]
	if c.Image != "example.com/bindfs@sha256:0123" || c.ImagePullPolicy != corev1.PullIfNotPresent || len(c.Command) != 0 {
		t.Errorf("container %s %s %q: want the image as given, IfNotPresent and its own entrypoint", c.Image, c.ImagePullPolicy, c.Command)
	}
	if n := len(dsf.Spec.Template.Spec.Volumes); n != 3 {
		t.Errorf("%d volumes, want the mount directory, /dev/fuse and the config", n)
	}
	var cfg thin.FuseConfig
	if err := json.Unmarshal([]byte(cm.Data[thin.ConfigFile]), &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Mounts) != 1 || cfg.Mounts[0].Path != "/" || len(cfg.AccessModes) != 1 || cfg.AccessModes[0] != corev1.ReadOnlyMany {
		t.Errorf("config = %+v: one unnamed mount at /, ReadOnlyMany by default", cfg)
	}
}
