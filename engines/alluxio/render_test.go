package alluxio_test

import (
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/alluxio"
	"github.com/sluice-data/sluice/engines/enginetest"
)

// objects are the chart's rendered objects, decoded strictly.
type objects struct {
	config         *corev1.ConfigMap
	service        *corev1.Service
	master, worker *appsv1.StatefulSet
	fuse           *appsv1.DaemonSet
	// mounts holds the mount-ufs sidecar's script, nil without nested
	// mounts; job is the mount Job.
	mounts    *corev1.ConfigMap
	job       *batchv1.Job
	manifests map[string]string
}

func decode(t *testing.T, out map[string]string) objects {
	t.Helper()
	return objects{
		config:    enginetest.Decode[corev1.ConfigMap](t, out, "templates/config-configmap.yaml"),
		service:   enginetest.Decode[corev1.Service](t, out, "templates/master-service.yaml"),
		master:    enginetest.Decode[appsv1.StatefulSet](t, out, "templates/master-statefulset.yaml"),
		worker:    enginetest.Decode[appsv1.StatefulSet](t, out, "templates/worker-statefulset.yaml"),
		fuse:      enginetest.Decode[appsv1.DaemonSet](t, out, "templates/fuse-daemonset.yaml"),
		mounts:    enginetest.DecodeOptional[corev1.ConfigMap](t, out, "templates/mounts-configmap.yaml"),
		job:       enginetest.Decode[batchv1.Job](t, out, "templates/mount-job.yaml"),
		manifests: out,
	}
}

func container(t *testing.T, spec corev1.PodSpec, name string) corev1.Container {
	t.Helper()
	for _, c := range spec.Containers {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no container %q", name)
	return corev1.Container{}
}

func env(c corev1.Container, name string) *corev1.EnvVar {
	for i := range c.Env {
		if c.Env[i].Name == name {
			return &c.Env[i]
		}
	}
	return nil
}

// properties parses one properties file of the ConfigMap.
func properties(t *testing.T, cm *corev1.ConfigMap, file string) map[string]string {
	t.Helper()
	text, ok := cm.Data[file]
	if !ok {
		t.Fatalf("ConfigMap has no %s", file)
	}
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			out[k] = v
		}
	}
	return out
}

// TestRenderedObjectsMeanWhatTheSpecSays decodes the rendered objects and
// checks what the rest of Sluice and Alluxio rely on.
func TestRenderedObjectsMeanWhatTheSpecSays(t *testing.T) {
	ds, rt := sample()
	o := decode(t, render(t, ds, rt))

	// Names the controller and the webhook look for.
	if o.master.Name != "imagenet-master" || o.worker.Name != "imagenet-worker" || o.fuse.Name != "imagenet"+datav1alpha1.FuseDaemonSetSuffix ||
		o.config.Name != "imagenet-config" || o.service.Name != "imagenet-master" {
		t.Errorf("names: master %s, worker %s, fuse %s, config %s, service %s", o.master.Name, o.worker.Name, o.fuse.Name, o.config.Name, o.service.Name)
	}
	if *o.master.Spec.Replicas != 1 || *o.worker.Spec.Replicas != 2 {
		t.Errorf("replicas: master %d, worker %d; want 1 and spec.replicas 2", *o.master.Spec.Replicas, *o.worker.Spec.Replicas)
	}

	// Workers and FUSE reach the master by its pod's DNS name under the headless Service.
	if o.service.Spec.ClusterIP != corev1.ClusterIPNone || o.master.Spec.ServiceName != o.service.Name || !o.service.Spec.PublishNotReadyAddresses {
		t.Errorf("master Service: clusterIP %q, StatefulSet serviceName %q", o.service.Spec.ClusterIP, o.master.Spec.ServiceName)
	}
	for k, v := range o.service.Spec.Selector {
		if o.master.Spec.Template.Labels[k] != v {
			t.Errorf("Service selects %s=%s, which master pods lack", k, v)
		}
	}
	site := properties(t, o.config, "alluxio-site.properties")
	if site["alluxio.master.hostname"] != "imagenet-master-0.imagenet-master.team-a.svc" || site["alluxio.master.rpc.port"] != "19998" {
		t.Errorf("clients look for the master at %s:%s", site["alluxio.master.hostname"], site["alluxio.master.rpc.port"])
	}

	// The cache-state scrape: the selector selects master pods; their container port "metrics" serves the path.
	src, reported := (alluxio.Engine{}).CacheMetrics(rt)
	if !reported || src.PortName != "metrics" || !src.ClusterWide || src.Parse == nil {
		t.Errorf("cache metrics %+v (reported: %v), want the masters' port \"metrics\", cluster-wide", src, reported)
	}
	for k, v := range src.Selector {
		if o.master.Spec.Template.Labels[k] != v {
			t.Errorf("master pod labels %v lack %s=%s, which the cache-state scrape selects", o.master.Spec.Template.Labels, k, v)
		}
	}
	m := container(t, o.master.Spec.Template.Spec, "alluxio-master")
	if !hasPort(m, "metrics", alluxio.MetricsPort) || !hasPort(m, "rpc", alluxio.MasterRPCPort) {
		t.Errorf("master ports %v: want metrics=%d and rpc=%d", m.Ports, alluxio.MetricsPort, alluxio.MasterRPCPort)
	}
	if !strings.Contains(o.config.Data["metrics.properties"], "sink.prometheus.class=alluxio.metrics.sink.PrometheusMetricsServlet") ||
		enginetest.MountAt(m, "/opt/alluxio/conf/metrics.properties") == nil || !slices.Equal(src.Paths, []string{"/metrics/prometheus/"}) {
		t.Errorf("the master does not serve /metrics/prometheus/: metrics.properties %q", o.config.Data["metrics.properties"])
	}

	// FUSE: where, how and what it mounts.
	if o.fuse.Spec.Template.Spec.Containers[0].Name != "fuse" {
		t.Errorf("the FUSE container must come first and be named fuse, got %s", o.fuse.Spec.Template.Spec.Containers[0].Name)
	}
	if sel := o.fuse.Spec.Template.Spec.NodeSelector; sel["fluid.io/f-team-a-imagenet"] != "true" || sel["gpu"] != "true" || len(sel) != 2 {
		t.Errorf("FUSE nodeSelector = %v; want the dataset's FUSE label and spec.fuse.nodeSelector", sel)
	}
	f := o.fuse.Spec.Template.Spec.Containers[0]
	fusePath := alluxio.FusePath("team-a", "imagenet")
	if e := env(f, "MOUNT_POINT"); e == nil || e.Value != fusePath {
		t.Errorf("FUSE mounts at %v, want %s", e, fusePath)
	}
	if vm := enginetest.MountAt(f, path.Dir(fusePath)); vm == nil || *vm.MountPropagation != corev1.MountPropagationBidirectional {
		t.Errorf("FUSE host directory %s not mounted Bidirectional: %v", path.Dir(fusePath), f.VolumeMounts)
	} else if v := enginetest.Volume(o.fuse.Spec.Template.Spec, vm.Name); v == nil || v.HostPath == nil || v.HostPath.Path != path.Dir(fusePath) {
		t.Errorf("FUSE volume %s is not the host directory %s", vm.Name, path.Dir(fusePath))
	}
	if enginetest.MountAt(f, "/dev/fuse") == nil || f.SecurityContext == nil || !*f.SecurityContext.Privileged {
		t.Errorf("FUSE needs /dev/fuse and privileges: mounts %v", f.VolumeMounts)
	}
	if !strings.HasSuffix(f.Args[1], ",ro") {
		t.Errorf("every mount is read-only, so FUSE should mount ro: %q", f.Args)
	}

	// Tiered store: one volume per directory, and the properties that name them.
	w := container(t, o.worker.Spec.Template.Spec, "alluxio-worker")
	mem := enginetest.Volume(o.worker.Spec.Template.Spec, enginetest.MountAt(w, "/dev/shm").Name)
	if mem.EmptyDir == nil || mem.EmptyDir.Medium != corev1.StorageMediumMemory || mem.EmptyDir.SizeLimit.Cmp(resource.MustParse("2Gi")) != 0 {
		t.Errorf("MEM tier volume = %+v, want a 2Gi memory emptyDir", mem.VolumeSource)
	}
	for _, dir := range []string{"/mnt/ssd0", "/mnt/ssd1"} {
		vm := enginetest.MountAt(w, dir)
		// The node directory behind a tier path is the runtime's own below it.
		if vm == nil || enginetest.Volume(o.worker.Spec.Template.Spec, vm.Name).HostPath.Path != dir+"/.sluice/team-a/imagenet" {
			t.Errorf("SSD directory %s is not mounted from the hostPath %s/.sluice/team-a/imagenet", dir, dir)
		}
	}
	wp := properties(t, o.config, "worker.properties")
	for k, want := range map[string]string{
		"alluxio.worker.tieredstore.levels": "2", "alluxio.worker.tieredstore.level0.alias": "MEM", "alluxio.worker.tieredstore.level0.dirs.quota": "2GB",
		"alluxio.worker.tieredstore.level1.dirs.path": "/mnt/ssd0,/mnt/ssd1", "alluxio.worker.tieredstore.level1.dirs.quota": "50GB,50GB",
		"alluxio.worker.tieredstore.level1.watermark.high.ratio": "0.95", "alluxio.worker.tieredstore.level1.watermark.low.ratio": "0.7",
	} {
		if wp[k] != want {
			t.Errorf("worker.properties %s = %q, want %q", k, wp[k], want)
		}
	}

	// Placement, dataset affinity and tolerations.
	aff := o.worker.Spec.Template.Spec.Affinity
	terms := aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	if len(terms) != 2 || terms[0].LabelSelector.MatchLabels["role"] != "alluxio-worker" ||
		terms[1].NamespaceSelector == nil || terms[1].LabelSelector.MatchExpressions[0].Key != "fluid.io/dataset-placement" {
		t.Errorf("Shared placement anti-affinity = %+v", terms)
	}
	if aff.NodeAffinity == nil || !equality.Semantic.DeepEqual(aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution, ds.Spec.NodeAffinity.Required) ||
		!equality.Semantic.DeepEqual(o.master.Spec.Template.Spec.Affinity.NodeAffinity, aff.NodeAffinity) {
		t.Errorf("dataset nodeAffinity not required of workers and masters: %+v", aff.NodeAffinity)
	}
	for _, spec := range []corev1.PodSpec{o.master.Spec.Template.Spec, o.worker.Spec.Template.Spec, o.fuse.Spec.Template.Spec} {
		if !equality.Semantic.DeepEqual(spec.Tolerations, ds.Spec.Tolerations) {
			t.Errorf("tolerations = %v, want the dataset's", spec.Tolerations)
		}
	}

	// Properties by component and JVM options.
	mp, fp := properties(t, o.config, "master.properties"), properties(t, o.config, "fuse.properties")
	if mp["alluxio.master.metastore"] != "ROCKS" || wp["alluxio.master.metastore"] != "" || site["alluxio.master.metastore"] != "" {
		t.Errorf("spec.master.properties must reach master.properties only")
	}
	if fp["alluxio.user.metadata.cache.enabled"] != "true" || wp["alluxio.user.block.size.bytes.default"] != "64MB" {
		t.Errorf("spec.fuse.properties or spec.properties missing: fuse %v", fp)
	}
	if e := env(m, "ALLUXIO_MASTER_JAVA_OPTS"); e == nil || !strings.Contains(e.Value, "-XX:+UseG1GC -Xmx4g") {
		t.Errorf("master JVM options = %v, want the runtime's then the master's", e)
	}
	if e := env(w, "TZ"); e == nil || e.Value != "UTC" {
		t.Errorf("worker env TZ = %v", e)
	}
}

// secretVar is the container's environment variable that reads key of
// Secret secret, "" when none does.
func secretVar(c corev1.Container, secret, key string) string {
	for _, e := range c.Env {
		if r := e.ValueFrom; r != nil && r.SecretKeyRef != nil && r.SecretKeyRef.Name == secret && r.SecretKeyRef.Key == key {
			return e.Name
		}
	}
	return ""
}

func hasPort(c corev1.Container, name string, port int32) bool {
	for _, p := range c.Ports {
		if p.Name == name {
			return p.ContainerPort == port
		}
	}
	return false
}

// TestSecretsStayInSecrets checks that encrypt options reach the processes
// only by Secret reference, for nested mounts and for the root mount.
func TestSecretsStayInSecrets(t *testing.T) {
	ds, rt := sample()
	// A plain option of the same name as a secret one must not leak.
	ds.Spec.Mounts[0].Options = map[string]string{"aws.secretKey": "PLAIN-VALUE-OVERRIDDEN"}
	o := decode(t, render(t, ds, rt))
	mounter := container(t, o.master.Spec.Template.Spec, "mount-ufs")
	for _, e := range mounter.Env {
		if e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Name != "minio-creds" {
			t.Errorf("mount-ufs env %s is not a minio-creds reference: %+v", e.Name, e)
		}
	}
	script := o.mounts.Data["mount-ufs.sh"]
	if v := secretVar(mounter, "minio-creds", "secret-key"); v == "" || !strings.Contains(script, `"aws.secretKey=${`+v+`}"`) {
		t.Errorf("the /train mount does not take aws.secretKey from its variable %q:\n%s", v, script)
	}
	if n := len(mounter.Env); n != 2 {
		t.Errorf("mount-ufs reads %d variables, want one per Secret key the mounts read (2): %+v", n, mounter.Env)
	}
	for name, m := range o.manifests {
		if strings.Contains(m, "PLAIN-VALUE-OVERRIDDEN") {
			t.Errorf("%s holds the option a Secret overrides", name)
		}
	}

	// The sole mount at "/" is the root under storage: options as properties, secrets as $(VAR) flags.
	ds, rt = sample()
	ds.Spec.Mounts = ds.Spec.Mounts[:1]
	ds.Spec.Mounts[0].Path = "/"
	o = decode(t, render(t, ds, rt))
	site := properties(t, o.config, "alluxio-site.properties")
	if site["alluxio.master.mount.table.root.ufs"] != "s3://imagenet/train" || site["alluxio.master.mount.table.root.readonly"] != "true" ||
		site["alluxio.master.mount.table.root.option.alluxio.underfs.s3.endpoint"] != "http://minio.storage:9000" {
		t.Errorf("root mount properties: %v", site)
	}
	for k := range site {
		if strings.Contains(k, "aws.") {
			t.Errorf("secret option %s reached the ConfigMap", k)
		}
	}
	m := container(t, o.master.Spec.Template.Spec, "alluxio-master")
	opts := env(m, "ALLUXIO_MASTER_JAVA_OPTS").Value
	if !strings.Contains(opts, "-Dalluxio.master.mount.table.root.option.aws.secretKey=$(UFS0_AWS_SECRETKEY)") {
		t.Errorf("master JVM options do not reference the secret variable: %s", opts)
	}
	if e := env(m, "UFS0_AWS_SECRETKEY"); e == nil || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef.Name != "minio-creds" || e.Value != "" {
		t.Errorf("UFS0_AWS_SECRETKEY = %+v, want a reference to minio-creds", e)
	}
	if len(o.master.Spec.Template.Spec.Containers) != 2 || o.mounts != nil || enginetest.Volume(o.master.Spec.Template.Spec, "ufs-root") != nil {
		t.Errorf("a root mount needs no mount-ufs sidecar, script or local root")
	}
}

// TestPlacementConcernsWorkersOnly: Fluid's placement applies to cache
// workers only. Only worker pods carry the placement label, an Exclusive
// worker keeps every other worker (of any dataset, in any namespace) off
// its node but never a FUSE pod, whose node app Pods are steered to, nor a
// master, and an Exclusive dataset's FUSE and masters never keep Shared
// workers away. Alluxio workers also keep their own replicas apart.
func TestPlacementConcernsWorkersOnly(t *testing.T) {
	exclusive, shared := enginetest.CheckPlacement(t, sample, render, true)
	for _, e := range exclusive {
		terms := e.Worker.Spec.Template.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
		if len(terms) != 2 || !equality.Semantic.DeepEqual(terms[1], enginetest.ExclusiveTerm()) {
			t.Errorf("Exclusive workers must avoid every worker, in every namespace: %+v", terms)
		}
	}
	for _, s := range shared {
		if !enginetest.Repels(t, s.Worker, enginetest.WorkerPod(s.Worker)) {
			t.Errorf("Shared workers of %s must run one worker of theirs per node", s.Worker.Namespace)
		}
	}
}

func TestMastersFormAQuorum(t *testing.T) {
	ds, rt := sample()
	rt.Spec.Master.Replicas = 3
	o := decode(t, render(t, ds, rt))
	site := properties(t, o.config, "alluxio-site.properties")
	want := "imagenet-master-0.imagenet-master.team-a.svc:19200,imagenet-master-1.imagenet-master.team-a.svc:19200,imagenet-master-2.imagenet-master.team-a.svc:19200"
	if site["alluxio.master.embedded.journal.addresses"] != want || site["alluxio.master.journal.type"] != "EMBEDDED" ||
		!strings.HasPrefix(site["alluxio.master.rpc.addresses"], "imagenet-master-0.imagenet-master.team-a.svc:19998,") ||
		site["alluxio.master.hostname"] != "" {
		t.Errorf("quorum properties: %v", site)
	}
	m := container(t, o.master.Spec.Template.Spec, "alluxio-master")
	if *o.master.Spec.Replicas != 3 || !hasPort(m, "journal", 19200) || m.ReadinessProbe.TCPSocket.Port.StrVal != "journal" {
		t.Errorf("masters: replicas %d, ports %v, readiness %+v", *o.master.Spec.Replicas, m.Ports, m.ReadinessProbe)
	}
	if e := env(m, "ALLUXIO_MASTER_JAVA_OPTS"); !strings.Contains(e.Value, "-Dalluxio.master.hostname=$(POD_NAME).imagenet-master.team-a.svc") {
		t.Errorf("each master must know its own name: %s", e.Value)
	}
}

func TestLocalAndPVCMountsBecomeVolumes(t *testing.T) {
	ds, rt := sample()
	ds.Spec.SharedOptions, ds.Spec.SharedEncryptOptions = nil, nil
	ds.Spec.Mounts = []datav1alpha1.Mount{
		{MountPoint: "local:///mnt/labels", Name: "labels", ReadOnly: true},
		{MountPoint: "pvc://shared-data/../imagenet/extra", Name: "extra"},
	}
	o := decode(t, render(t, ds, rt))
	for _, spec := range []corev1.PodSpec{o.master.Spec.Template.Spec, o.worker.Spec.Template.Spec} {
		if v := enginetest.Volume(spec, "ufs-0"); v == nil || v.HostPath == nil || v.HostPath.Path != "/mnt/labels" {
			t.Errorf("local:// volume = %+v", v)
		}
		if v := enginetest.Volume(spec, "ufs-1"); v == nil || v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != "shared-data" {
			t.Errorf("pvc:// volume = %+v", v)
		}
		c := spec.Containers[0]
		if vm := enginetest.MountAt(c, "/ufs/0"); vm == nil || !vm.ReadOnly {
			t.Errorf("%s: local:// mount at /ufs/0 = %+v", c.Name, vm)
		}
	}
	script := o.mounts.Data["mount-ufs.sh"]
	if !strings.Contains(script, "'/labels' '/ufs/0'") || !strings.Contains(script, "'/extra' '/ufs/1/imagenet/extra'") {
		t.Errorf("mount script:\n%s", script)
	}
	if f := o.fuse.Spec.Template.Spec.Containers[0]; strings.HasSuffix(f.Args[1], ",ro") {
		t.Errorf("a writable mount must not make FUSE read-only: %q", f.Args)
	}
}

func TestDisablePrometheusDropsTheMetricsPort(t *testing.T) {
	ds, rt := sample()
	rt.Spec.DisablePrometheus = true
	o := decode(t, render(t, ds, rt))
	m := container(t, o.master.Spec.Template.Spec, "alluxio-master")
	if hasPort(m, "metrics", alluxio.MetricsPort) || !hasPort(m, "web", alluxio.MasterWebPort) {
		t.Errorf("with Prometheus off the web port must not be named metrics: %v", m.Ports)
	}
	if _, ok := o.config.Data["metrics.properties"]; ok || enginetest.MountAt(m, "/opt/alluxio/conf/metrics.properties") != nil {
		t.Errorf("metrics.properties still configured")
	}
}

// TestMasterServiceIsLabelledForScraping: the master Service carries the
// labels Fluid's Alluxio scrape job selects and relabels by (monitor,
// release) and the prometheus.io annotations naming the web port and the
// servlet's path; with Prometheus off it carries neither.
func TestMasterServiceIsLabelledForScraping(t *testing.T) {
	ds, rt := sample()
	svc := decode(t, render(t, ds, rt)).service
	if svc.Labels["monitor"] != "alluxio_runtime_metrics" || svc.Labels["release"] != rt.Name {
		t.Errorf("labels %v: want monitor=alluxio_runtime_metrics and release=%s", svc.Labels, rt.Name)
	}
	web := false
	for _, p := range svc.Spec.Ports {
		web = web || p.Name == "web" && strconv.Itoa(int(p.Port)) == svc.Annotations["prometheus.io/port"]
	}
	if !web || svc.Annotations["prometheus.io/scrape"] != "true" || svc.Annotations["prometheus.io/path"] != "/metrics/prometheus/" {
		t.Errorf("annotations %v with ports %v: want the web port and /metrics/prometheus/ scraped", svc.Annotations, svc.Spec.Ports)
	}

	rt.Spec.DisablePrometheus = true
	svc = decode(t, render(t, ds, rt)).service
	if _, ok := svc.Labels["monitor"]; ok || len(svc.Annotations) != 0 {
		t.Errorf("with Prometheus off: labels %v, annotations %v", svc.Labels, svc.Annotations)
	}
	if svc.Labels["release"] != rt.Name {
		t.Errorf("release label %q", svc.Labels["release"])
	}
}
