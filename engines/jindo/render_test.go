package jindo_test

import (
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/jindo"
)

// release is a rendered chart decoded strictly into typed objects; absent
// templates leave nil fields.
type release struct {
	raw     map[string]string
	config  *corev1.ConfigMap
	service *corev1.Service
	master  *appsv1.StatefulSet
	worker  *appsv1.StatefulSet
	fuse    *appsv1.DaemonSet
}

func renderRelease(t *testing.T, ds *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) release {
	t.Helper()
	out := render(t, ds, rt)
	return release{
		raw:     out,
		config:  enginetest.DecodeOptional[corev1.ConfigMap](t, out, "templates/configmap.yaml"),
		service: enginetest.DecodeOptional[corev1.Service](t, out, "templates/master-service.yaml"),
		master:  enginetest.DecodeOptional[appsv1.StatefulSet](t, out, "templates/master-statefulset.yaml"),
		worker:  enginetest.DecodeOptional[appsv1.StatefulSet](t, out, "templates/worker-statefulset.yaml"),
		fuse:    enginetest.DecodeOptional[appsv1.DaemonSet](t, out, "templates/fuse-daemonset.yaml"),
	}
}

// section returns the "key = value" lines of an INI section as a map.
func section(t *testing.T, file, name string) map[string]string {
	t.Helper()
	out, in := map[string]string{}, false
	for _, line := range strings.Split(file, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			in = line == "["+name+"]"
			continue
		}
		if k, v, ok := strings.Cut(line, " = "); in && ok {
			out[k] = v
		}
	}
	return out
}

func envOf(c corev1.Container) map[string]string {
	out := map[string]string{}
	for _, e := range c.Env {
		out[e.Name] = e.Value
	}
	return out
}

func TestRenderedNamesLabelsAndReplicas(t *testing.T) {
	ds, rt := sample()
	r := renderRelease(t, ds, rt)
	if r.master == nil || r.worker == nil || r.fuse == nil || r.config == nil || r.service == nil {
		t.Fatalf("rendered %v, want config, master Service and StatefulSet, worker StatefulSet, FUSE DaemonSet", slices.Sorted(maps.Keys(r.raw)))
	}
	names := map[string]string{r.master.Name: "imagenet-master", r.worker.Name: "imagenet-worker", r.fuse.Name: "imagenet" + datav1alpha1.FuseDaemonSetSuffix,
		r.config.Name: "imagenet-config", r.service.Name: "imagenet-master"}
	for got, want := range names {
		if got != want {
			t.Errorf("object named %q, want %q", got, want)
		}
	}
	for role, labels := range map[string]map[string]string{
		"jindo-master": r.master.Spec.Template.Labels, "jindo-worker": r.worker.Spec.Template.Labels, "jindo-fuse": r.fuse.Spec.Template.Labels,
	} {
		want := map[string]string{"app.kubernetes.io/name": "jindo", "app.kubernetes.io/instance": "imagenet", "app.kubernetes.io/managed-by": "sluice",
			"fluid.io/dataset": "team-a-imagenet", "role": role}
		for k, v := range want {
			if labels[k] != v {
				t.Errorf("%s pod labels %v: %s is %q, want %q", role, labels, k, labels[k], v)
			}
		}
		// Placement concerns workers only: a FUSE or master pod labelled with
		// it would be kept off (or keep Shared workers off) Exclusive nodes.
		if p, ok := labels[placementLabel]; (role == "jindo-worker") != ok || ok && p != "Shared" {
			t.Errorf("%s pod labels %v: only workers carry %s=Shared", role, labels, placementLabel)
		}
	}
	if r.fuse.Spec.Template.Labels["team"] != "vision" || r.fuse.Spec.Template.Annotations["example.com/owner"] != "vision" {
		t.Errorf("FUSE pod metadata lacks the runtime's and FUSE's podMetadata: %+v", r.fuse.Spec.Template.ObjectMeta)
	}
	if *r.master.Spec.Replicas != 3 || *r.worker.Spec.Replicas != 2 {
		t.Errorf("replicas: masters %d (want 3), workers %d (want spec.replicas 2)", *r.master.Spec.Replicas, *r.worker.Spec.Replicas)
	}
	if r.service.Spec.ClusterIP != corev1.ClusterIPNone || r.master.Spec.ServiceName != r.service.Name || len(r.service.Spec.Ports) != 2 {
		t.Errorf("master Service must be headless and govern the master StatefulSet: %+v, serviceName %q", r.service.Spec, r.master.Spec.ServiceName)
	}
	if r.master.Spec.Template.Spec.Containers[0].Image != "registry.cn-shanghai.aliyuncs.com/jindofs/smartdata:6.2.0" ||
		r.fuse.Spec.Template.Spec.Containers[0].Image != "registry.cn-shanghai.aliyuncs.com/jindofs/jindo-fuse:6.2.0" {
		t.Errorf("default images: master %s, fuse %s", r.master.Spec.Template.Spec.Containers[0].Image, r.fuse.Spec.Template.Spec.Containers[0].Image)
	}
}

func TestRenderedFuse(t *testing.T) {
	ds, rt := sample()
	r := renderRelease(t, ds, rt)
	spec := r.fuse.Spec.Template.Spec
	if diff := cmp.Diff(map[string]string{"fluid.io/f-team-a-imagenet": "true", "gpu": "true"}, spec.NodeSelector); diff != "" {
		t.Errorf("FUSE nodeSelector (-want +got):\n%s", diff)
	}
	c := spec.Containers[0]
	if c.Name != "fuse" || c.SecurityContext == nil || !*c.SecurityContext.Privileged {
		t.Errorf("first FUSE container %q must be the privileged \"fuse\" container", c.Name)
	}
	fusePath := jindo.FusePath("team-a", "imagenet")
	if fusePath != "/runtime-mnt/jindo/team-a/imagenet/jindofs-fuse" || envOf(c)["FLUID_FUSE_MOUNTPOINT"] != fusePath {
		t.Errorf("FUSE mounts at %q (env %q)", fusePath, envOf(c)["FLUID_FUSE_MOUNTPOINT"])
	}
	var bidirectional, device bool
	for _, m := range c.VolumeMounts {
		v := enginetest.Volume(spec, m.Name)
		switch {
		case m.MountPropagation != nil && *m.MountPropagation == corev1.MountPropagationBidirectional:
			bidirectional = v.HostPath != nil && v.HostPath.Path == path.Dir(fusePath) && m.MountPath == path.Dir(fusePath)
		case m.MountPath == "/dev/fuse":
			device = v.HostPath != nil && v.HostPath.Path == "/dev/fuse"
		}
	}
	if !bidirectional || !device {
		t.Errorf("FUSE needs %s mounted Bidirectional (%v) and /dev/fuse (%v): %+v", path.Dir(fusePath), bidirectional, device, c.VolumeMounts)
	}
	if !slices.Contains(c.Args, "-oauto_cache") || slices.Contains(c.Args, "-oro") {
		t.Errorf("a writable dataset's FUSE args: %q", c.Args)
	}
	if r.fuse.Spec.UpdateStrategy.Type != appsv1.OnDeleteDaemonSetStrategyType {
		t.Errorf("FUSE update strategy %q would unmount in-use datasets", r.fuse.Spec.UpdateStrategy.Type)
	}

	ds.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany}
	r = renderRelease(t, ds, rt)
	args := r.fuse.Spec.Template.Spec.Containers[0].Args
	if !slices.Contains(args, "-oro") || !slices.Contains(args, "-okernel_cache") ||
		section(t, r.config.Data["jindosdk.cfg"], "jindosdk")["fs.jindocache.read.only.enable"] != "true" {
		t.Errorf("a ReadOnlyMany dataset mounts read-only with kernel caching: args %q", args)
	}
	rt.Spec.Fuse.Args = []string{"-oallow_other"}
	r = renderRelease(t, ds, rt)
	if args := r.fuse.Spec.Template.Spec.Containers[0].Args; !slices.Equal(args, []string{"-oallow_other"}) {
		t.Errorf("spec.fuse.args must replace the defaults, got %q", args)
	}
}

// TestSecretsOnlyByReference checks that credentials reach the pods as a
// Secret volume and that nothing else names them: the ConfigMap points at
// the /token directory only.
func TestSecretsOnlyByReference(t *testing.T) {
	ds, rt := sample()
	r := renderRelease(t, ds, rt)
	want := []corev1.VolumeProjection{
		{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "oss-keys"}, Items: []corev1.KeyToPath{{Key: "id", Path: "AccessKeyId"}}}},
		{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "oss-keys"}, Items: []corev1.KeyToPath{{Key: "secret", Path: "AccessKeySecret"}}}},
	}
	for name, spec := range map[string]corev1.PodSpec{"master": r.master.Spec.Template.Spec, "worker": r.worker.Spec.Template.Spec, "fuse": r.fuse.Spec.Template.Spec} {
		v := enginetest.Volume(spec, "credentials")
		if v == nil || v.Projected == nil {
			t.Fatalf("%s pods lack the projected credentials volume", name)
		}
		if diff := cmp.Diff(want, v.Projected.Sources); diff != "" {
			t.Errorf("%s credentials (-want +got):\n%s", name, diff)
		}
		mounted := slices.ContainsFunc(spec.Containers[0].VolumeMounts, func(m corev1.VolumeMount) bool {
			return m.Name == "credentials" && m.MountPath == jindo.TokenDir && m.ReadOnly
		})
		if !mounted {
			t.Errorf("%s container does not mount the credentials read-only at %s", name, jindo.TokenDir)
		}
		for _, e := range spec.Containers[0].Env {
			if e.ValueFrom != nil && e.ValueFrom.FieldRef == nil {
				t.Errorf("%s env %s takes a value from %+v", name, e.Name, e.ValueFrom)
			}
		}
	}
	for file, text := range r.config.Data {
		if strings.Contains(text, "oss-keys") {
			t.Errorf("%s names the credentials Secret:\n%s", file, text)
		}
		for _, line := range strings.Split(text, "\n") {
			k, v, ok := strings.Cut(strings.TrimSpace(line), " = ")
			if ok && regexp.MustCompile(`(?i)access|secret|token|password`).MatchString(k) {
				t.Errorf("%s: %q = %q; credential properties must not reach the ConfigMap", file, k, v)
			}
			if ok && strings.Contains(v, jindo.TokenDir) && v != "secrets://"+jindo.TokenDir+"/" {
				t.Errorf("%s: %q = %q", file, k, v)
			}
		}
	}
	if section(t, r.config.Data["jindocache.cfg"], "jindocache-common")["default.credential.provider"] != "secrets:///token/" {
		t.Errorf("the servers are not pointed at the credential files:\n%s", r.config.Data["jindocache.cfg"])
	}

	// spec.secret (an STS token Secret) is mounted whole.
	ds, rt = sample()
	ds.Spec.SharedEncryptOptions, ds.Spec.Mounts[0].EncryptOptions = nil, nil
	rt.Spec.Secret = "sts-token"
	r = renderRelease(t, ds, rt)
	if v := enginetest.Volume(r.fuse.Spec.Template.Spec, "credentials"); v == nil || v.Secret == nil || v.Secret.SecretName != "sts-token" {
		t.Errorf("spec.secret not mounted as a Secret volume: %+v", v)
	}
	if section(t, r.config.Data["jindosdk.cfg"], "jindosdk")["fs.oss.provider.format"] != "JSON" {
		t.Errorf("the STS token provider is not configured:\n%s", r.config.Data["jindosdk.cfg"])
	}
}

func TestRenderedTieredStore(t *testing.T) {
	ds, rt := sample()
	r := renderRelease(t, ds, rt)
	spec := r.worker.Spec.Template.Spec
	for i, p := range []string{"/mnt/disk1", "/mnt/disk2"} {
		name := []string{"cache-0", "cache-1"}[i]
		v := enginetest.Volume(spec, name)
		// The node directory behind a tier path is the runtime's own below it.
		if host := p + "/.sluice/team-a/imagenet"; v == nil || v.HostPath == nil || v.HostPath.Path != host || *v.HostPath.Type != corev1.HostPathDirectoryOrCreate {
			t.Errorf("tier volume %s: %+v, want hostPath %s DirectoryOrCreate", name, v, host)
		}
		if !slices.ContainsFunc(spec.Containers[0].VolumeMounts, func(m corev1.VolumeMount) bool { return m.Name == name && m.MountPath == p }) {
			t.Errorf("worker does not mount %s at %s", name, p)
		}
	}
	w := section(t, r.config.Data["jindocache.cfg"], "jindocache-worker")
	want := map[string]string{
		"storage.data-dirs":            "/mnt/disk1/team-a/imagenet/jindocache,/mnt/disk2/team-a/imagenet/jindocache",
		"storage.data-dirs.capacities": "100g,50g", "storage.rpc.port": "6101",
		"storage.watermark.high.ratio": "0.9", "storage.watermark.low.ratio": "0.7",
	}
	if diff := cmp.Diff(want, w); diff != "" {
		t.Errorf("[jindocache-worker] (-want +got):\n%s", diff)
	}

	// A MEM tier on emptyDir: RAM-backed volumes with a size limit each.
	q := resource.MustParse("4Gi")
	rt.Spec.TieredStore.Levels = []datav1alpha1.Level{{MediumType: datav1alpha1.Memory, VolumeType: datav1alpha1.VolumeTypeEmptyDir, Path: "/dev/shm/a,/dev/shm/b", Quota: &q}}
	r = renderRelease(t, ds, rt)
	for _, name := range []string{"cache-0", "cache-1"} {
		v := enginetest.Volume(r.worker.Spec.Template.Spec, name)
		if v == nil || v.EmptyDir == nil || v.EmptyDir.Medium != corev1.StorageMediumMemory || v.EmptyDir.SizeLimit.String() != "2Gi" {
			t.Errorf("MEM emptyDir tier %s: %+v, want medium Memory and sizeLimit 2Gi", name, v)
		}
	}
	w = section(t, r.config.Data["jindocache.cfg"], "jindocache-worker")
	if w["storage.data-dirs.capacities"] != "2g,2g" || w["storage.ram.cache.size"] != "4g" {
		t.Errorf("MEM tier config: %v", w)
	}
}

func TestRenderedPlacementAndScheduling(t *testing.T) {
	ds, rt := sample()
	r := renderRelease(t, ds, rt)
	aff := r.worker.Spec.Template.Spec.Affinity
	req := aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	if len(req) != 1 || req[0].LabelSelector.MatchExpressions[0].Key != placementLabel || req[0].NamespaceSelector == nil ||
		len(aff.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) != 1 {
		t.Errorf("Shared placement: required %+v, preferred %+v", req, aff.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	for name, spec := range map[string]corev1.PodSpec{"master": r.master.Spec.Template.Spec, "worker": r.worker.Spec.Template.Spec} {
		if spec.Affinity.NodeAffinity == nil || spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions[0].Key != "disk" {
			t.Errorf("%s lacks the dataset's required node affinity: %+v", name, spec.Affinity)
		}
		if len(spec.Tolerations) != 1 || spec.Tolerations[0].Key != "gpu" {
			t.Errorf("%s lacks the dataset's tolerations: %+v", name, spec.Tolerations)
		}
	}

	ds.Spec.Placement = datav1alpha1.DefaultMode
	r = renderRelease(t, ds, rt)
	req = r.worker.Spec.Template.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	if r.worker.Spec.Template.Labels[placementLabel] != "Exclusive" {
		t.Errorf("Exclusive (default) placement: worker pod labels %v", r.worker.Spec.Template.Labels)
	}
	// Any worker, its own replicas included (one per node), in any namespace; not FUSE or masters.
	if diff := cmp.Diff([]corev1.PodAffinityTerm{enginetest.ExclusiveTerm()}, req); diff != "" {
		t.Errorf("Exclusive (default) placement: required anti-affinity (-want +got):\n%s", diff)
	}
}

// placementLabel is the label of cache workers that placement anti-affinity selects.
const placementLabel = enginetest.PlacementLabel

// TestPlacementConcernsWorkersOnly: Fluid's placement applies to cache
// workers only. Only worker pods carry the placement label, an Exclusive
// worker keeps every other worker (of any dataset, in any namespace) off
// its node but never a FUSE pod, whose node app Pods are steered to, nor a
// master, and an Exclusive dataset's FUSE and masters never keep Shared
// workers away.
func TestPlacementConcernsWorkersOnly(t *testing.T) {
	enginetest.CheckPlacement(t, sample, render, true)
}

func TestDisabledComponents(t *testing.T) {
	ds, rt := sample()
	rt.Spec.Fuse.Disabled = true
	if r := renderRelease(t, ds, rt); r.fuse != nil || r.master == nil || r.worker == nil {
		t.Errorf("fuse.disabled: rendered %v", slices.Sorted(maps.Keys(r.raw)))
	}

	ds, rt = sample()
	ds.Spec.Mounts = ds.Spec.Mounts[:1]
	rt.Spec.Master.Disabled, rt.Spec.Worker.Disabled = true, true
	rt.Spec.TieredStore = datav1alpha1.TieredStore{}
	r := renderRelease(t, ds, rt)
	if r.master != nil || r.service != nil || r.worker != nil || r.fuse == nil {
		t.Fatalf("master and worker disabled: rendered %v, want FUSE and config only", slices.Sorted(maps.Keys(r.raw)))
	}
	c := r.fuse.Spec.Template.Spec.Containers[0]
	if envOf(c)["FLUID_FUSE_MODE"] != "fuseOnly" || !slices.Contains(c.Args, "-ouri=oss://imagenet-bucket/train") {
		t.Errorf("FUSE alone must read the mount directly: env %v, args %q", envOf(c), c.Args)
	}
	if _, ok := envOf(c)["CLIENT_NAMESPACE_RPC_ADDRESS"]; ok {
		t.Errorf("FUSE alone has no master to dial")
	}
	comps := jindo.Engine{}.Components(rt)
	if comps.Master || comps.Worker {
		t.Errorf("Components = %+v, want neither master nor worker", comps)
	}
	if got := (jindo.Engine{}).Components(&datav1alpha1.JuiceFSRuntime{}); got != (engines.Components{}) {
		t.Errorf("Components of another kind = %+v", got)
	}
}

func TestEngineIdentity(t *testing.T) {
	e := jindo.Engine{}
	if e.Type() != "jindo" || jindo.MountType != "fuse.jindofs-fuse" {
		t.Errorf("Type %q, MountType %q: Fluid records jindo and fuse.jindofs-fuse", e.Type(), jindo.MountType)
	}
	_, rt := sample()
	if _, ok := e.NewObject().(*datav1alpha1.JindoRuntime); !ok {
		t.Errorf("the engine serves %T, want JindoRuntimes", e.NewObject())
	}
	if v := e.Volume(rt); v.MountType != jindo.MountType || v.Path != jindo.FusePath(rt.Namespace, rt.Name) || v.CleanPolicy != engines.CleanPolicyOf(rt) {
		t.Errorf("Volume = %+v", v)
	}
	if c := e.Components(rt); !c.Master || !c.Worker {
		t.Errorf("Components = %+v, want master and worker", c)
	}
	if src, ok := e.CacheMetrics(rt); !ok || !src.ClusterWide {
		t.Errorf("the masters report the whole cluster: the engine's MetricsSource must be ClusterWide")
	}
}

// TestCachePodsServeMetrics checks the cache reporter against the rendered
// chart: its labels select the master pods only, and the port it names is
// a master container port (the RPC port, which serves the metrics page).
func TestCachePodsServeMetrics(t *testing.T) {
	ds, rt := sample()
	rt.Spec.Master.Ports = map[string]int{"rpc": 18101}
	r := renderRelease(t, ds, rt)
	src, ok := jindo.Engine{}.CacheMetrics(rt)
	if !ok || src.Parse == nil {
		t.Fatalf("the masters report cache metrics: %+v, %v", src, ok)
	}
	sel := labels.SelectorFromSet(src.Selector)
	if !sel.Matches(labels.Set(r.master.Spec.Template.Labels)) {
		t.Errorf("CachePods %v do not select the master pods %v", src.Selector, r.master.Spec.Template.Labels)
	}
	for name, l := range map[string]map[string]string{"worker": r.worker.Spec.Template.Labels, "fuse": r.fuse.Spec.Template.Labels} {
		if sel.Matches(labels.Set(l)) {
			t.Errorf("CachePods select the %s pods %v", name, l)
		}
	}
	var port int32
	for _, p := range r.master.Spec.Template.Spec.Containers[0].Ports {
		if p.Name == src.PortName {
			port = p.ContainerPort
		}
	}
	if port != 18101 {
		t.Errorf("master container port %q = %d, want the RPC port 18101", src.PortName, port)
	}
	if want := []string{"/jindo_metrics/prometheus", "/metrics/prometheus", "/jindometrics/prometheus"}; !slices.Equal(src.Paths, want) {
		t.Errorf("metrics paths %q, want %q (newest documented first)", src.Paths, want)
	}
}

func TestRenderedPodOptions(t *testing.T) {
	ds, rt := sample()
	uid, gid := int64(1000), int64(2000)
	rt.Spec.RunAs = &datav1alpha1.User{UID: &uid, GID: &gid}
	rt.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "registry"}}
	rt.Spec.Fuse.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "fuse-registry"}}
	rt.Spec.NetworkMode = datav1alpha1.ContainerNetworkMode
	rt.Spec.User = "alice"
	r := renderRelease(t, ds, rt)
	w := r.worker.Spec.Template.Spec
	if w.SecurityContext == nil || *w.SecurityContext.RunAsUser != uid || *w.SecurityContext.RunAsGroup != gid {
		t.Errorf("spec.runAs not applied to workers: %+v", w.SecurityContext)
	}
	if w.HostNetwork || w.DNSPolicy != corev1.DNSClusterFirst || w.Containers[0].Env[2].ValueFrom.FieldRef.FieldPath != "status.podIP" {
		t.Errorf("ContainerNetwork: hostNetwork %v, dnsPolicy %s, env %+v", w.HostNetwork, w.DNSPolicy, w.Containers[0].Env)
	}
	if got := w.ImagePullSecrets; len(got) != 1 || got[0].Name != "registry" {
		t.Errorf("workers pull with %v, want the runtime's secret", got)
	}
	if got := r.fuse.Spec.Template.Spec.ImagePullSecrets; len(got) != 1 || got[0].Name != "fuse-registry" {
		t.Errorf("FUSE pulls with %v, want its own secret", got)
	}
	for name, c := range map[string]corev1.Container{"master": r.master.Spec.Template.Spec.Containers[0], "fuse": r.fuse.Spec.Template.Spec.Containers[0]} {
		if envOf(c)["RUN_AS_USER"] != "alice" {
			t.Errorf("%s env lacks RUN_AS_USER from spec.user: %v", name, envOf(c))
		}
	}
}
