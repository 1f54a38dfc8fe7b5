package juicefs_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/juicefs"
)

func secretRef(name, key string) datav1alpha1.EncryptOptionSource {
	return datav1alpha1.EncryptOptionSource{SecretKeyRef: datav1alpha1.SecretKeySelector{Name: name, Key: key}}
}

// placement sets the fields DataLoad and DataMigrate share.
func placement() (datav1alpha1.PodMetadata, *corev1.Affinity, []corev1.Toleration, map[string]string, corev1.ResourceRequirements) {
	return datav1alpha1.PodMetadata{Labels: map[string]string{"team": "vision"}, Annotations: map[string]string{"owner": "ml@example.com"}},
		&corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
			{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}}}}}}},
		[]corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
		map[string]string{"gpu": "a100"},
		corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}}
}

// dataLoadFull sets every DataLoad field.
func dataLoadFull() *datav1alpha1.DataLoad {
	dl := enginetest.DataLoad()
	s := &dl.Spec
	s.LoadMetadata = true
	s.Target = []datav1alpha1.TargetPath{{Path: "/train", Replicas: 1}, {Path: "/val"}}
	s.Options = map[string]string{"threads": "16", "timeout": "2h"}
	s.PodMetadata, s.Affinity, s.Tolerations, s.NodeSelector, s.Resources = placement()
	s.SchedulerName = "volcano"
	s.Policy, s.Schedule = datav1alpha1.Cron, "0 */6 * * *"
	return dl
}

func dataMigrateDefault() *datav1alpha1.DataMigrate {
	return &datav1alpha1.DataMigrate{ObjectMeta: metav1.ObjectMeta{Name: "export", Namespace: "team-a"}, Spec: datav1alpha1.DataMigrateSpec{
		From: datav1alpha1.DataToMigrate{DataSet: &datav1alpha1.DatasetToMigrate{Name: "imagenet", Namespace: "team-a", Path: "/train/"}},
		To:   datav1alpha1.DataToMigrate{ExternalStorage: &datav1alpha1.ExternalStorage{URI: "s3://archive.s3.us-east-1.amazonaws.com/imagenet/"}},
	}}
}

// dataMigrateFull imports from an object store with credentials and sets
// every other field.
func dataMigrateFull() *datav1alpha1.DataMigrate {
	dm := dataMigrateDefault()
	s := &dm.Spec
	s.From, s.To = s.To, s.From
	s.From.ExternalStorage.EncryptOptions = []datav1alpha1.EncryptOption{
		{Name: "access-key", ValueFrom: secretRef("s3-creds", "ak")}, {Name: "secret-key", ValueFrom: secretRef("s3-creds", "sk")},
		{Name: "token", ValueFrom: secretRef("s3-creds", "token")}}
	s.VersionSpec = datav1alpha1.VersionSpec{Image: "registry.example.com/juicefs", ImageTag: "ce-v1.2.3", ImagePullPolicy: "Always"}
	s.RuntimeType, s.Parallelism = "juicefs", 1
	s.Options = map[string]string{"update": "", "threads": "32", "timeout": "6h"}
	s.PodMetadata, s.Affinity, s.Tolerations, s.NodeSelector, s.Resources = placement()
	s.SchedulerName = "volcano"
	s.Policy, s.Schedule = datav1alpha1.Cron, "@daily"
	return dm
}

func dataMigratePVC() *datav1alpha1.DataMigrate {
	dm := dataMigrateDefault()
	dm.Spec.To.ExternalStorage.URI = "pvc://archive/imagenet"
	return dm
}

// dataMigrateParallel copies with two workers besides the manager.
func dataMigrateParallel() *datav1alpha1.DataMigrate {
	dm := dataMigratePVC()
	s := &dm.Spec
	s.Parallelism = 3
	s.ParallelOptions = map[string]string{"sshSecretName": "migrate-keys", "sshPort": "2222", "sshReadyTimeoutSeconds": "60"}
	s.PodMetadata, s.Affinity, s.Tolerations, s.NodeSelector, s.Resources = placement()
	return dm
}

func renderOp(t *testing.T, op datav1alpha1.OperationObject, affinity *corev1.Affinity) enginetest.Operation {
	t.Helper()
	ds, rt := sample()
	release := op.GetName() + "-op"
	rel, err := juicefs.Engine{}.Operation(engines.OperationRequest{Op: op, Dataset: ds, Runtime: rt, Affinity: affinity, Release: release})
	if err != nil {
		t.Fatal(err)
	}
	return enginetest.RenderOperation(t, rel, release, "team-a")
}

// TestOperationGolden renders each operation with its defaults and with
// every field set, and compares with testdata/golden/<case> (go test
// -update rewrites them after a deliberate change).
func TestOperationGolden(t *testing.T) {
	for name, tc := range map[string]struct {
		op       datav1alpha1.OperationObject
		affinity *corev1.Affinity
	}{
		"dataload-default": {enginetest.DataLoad(), nil}, "dataload-full": {dataLoadFull(), enginetest.RunAfterAffinity},
		"datamigrate-default": {dataMigrateDefault(), nil}, "datamigrate-full": {dataMigrateFull(), enginetest.RunAfterAffinity},
		"datamigrate-pvc": {dataMigratePVC(), nil}, "datamigrate-parallel": {dataMigrateParallel(), nil},
	} {
		t.Run(name, func(t *testing.T) {
			op := renderOp(t, tc.op, tc.affinity)
			enginetest.GoldenCase(t, name, op.Out, op.Templates())
		})
	}
}

// TestWarmupThroughTheFuseMount: warmup reaches the FUSE client of its
// node through the FUSE host directory (read-write, mounts propagated),
// and uses the Dataset's PVC so that the CSI plugin starts FUSE there.
func TestWarmupThroughTheFuseMount(t *testing.T) {
	op := renderOp(t, dataLoadFull(), nil)
	spec := op.Pod().Spec
	c := enginetest.Effective(spec.Containers[0])
	fuse := juicefs.FusePath("team-a", "imagenet")
	want := []string{"timeout", "2h", "juicefs", "warmup", "--threads=16", fuse + "/train", fuse + "/val"}
	if !cmp.Equal(c.Command, want) || c.Image != "juicedata/juicefs-fuse:ce-v1.2.1" {
		t.Errorf("warmup runs %q in %s, want %q in the runtime's image", c.Command, c.Image, want)
	}
	hostDir := strings.TrimSuffix(fuse, "/juicefs-fuse")
	i := slices.IndexFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == hostDir })
	if i < 0 || c.VolumeMounts[i].ReadOnly || *c.VolumeMounts[i].MountPropagation != corev1.MountPropagationHostToContainer {
		t.Fatalf("mounts %+v: want %s read-write with HostToContainer propagation", c.VolumeMounts, hostDir)
	}
	vols := map[string]corev1.Volume{}
	for _, v := range spec.Volumes {
		vols[v.Name] = v
	}
	if v := vols[c.VolumeMounts[i].Name]; v.HostPath == nil || v.HostPath.Path != hostDir {
		t.Errorf("the FUSE directory's volume is %+v", v)
	}
	if !slices.ContainsFunc(spec.Volumes, func(v corev1.Volume) bool {
		return v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == "imagenet"
	}) {
		t.Errorf("volumes %+v lack the Dataset's PVC", spec.Volumes)
	}
	if d := renderOp(t, enginetest.DataLoad(), nil); !cmp.Equal(enginetest.Effective(d.Pod().Spec.Containers[0]).Command, []string{"timeout", "30m", "juicefs", "warmup", fuse + "/"}) {
		t.Errorf("the default load warms %q, want the whole Dataset for 30m", d.Pod().Spec.Containers[0].Command)
	}
}

// TestSyncCredentialsStayInSecrets: the volume's metadata URL and the
// external storage's keys reach the process from their Secrets, named in
// the URIs as variables the kubelet fills in.
func TestSyncCredentialsStayInSecrets(t *testing.T) {
	op := renderOp(t, dataMigrateFull(), nil)
	c := enginetest.Effective(op.Pod().Spec.Containers[0])
	want := []string{"timeout", "6h", "juicefs", "sync", "--threads=32", "--update",
		"s3://<EXTERNAL_ACCESS_KEY>:<EXTERNAL_SECRET_KEY>:<EXTERNAL_TOKEN>@archive.s3.us-east-1.amazonaws.com/imagenet/", "jfs://METAURL/train/"}
	if !cmp.Equal(c.Command, want) || c.Image != "registry.example.com/juicefs:ce-v1.2.3" || c.ImagePullPolicy != corev1.PullAlways {
		t.Errorf("sync runs %q in %s (%s), want %q in the DataMigrate's image", c.Command, c.Image, c.ImagePullPolicy, want)
	}
	secrets := map[string]string{}
	for _, e := range c.Env {
		if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
			t.Errorf("env %s is not from a Secret", e.Name)
			continue
		}
		secrets[e.Name] = e.ValueFrom.SecretKeyRef.Name + "/" + e.ValueFrom.SecretKeyRef.Key
	}
	if diff := cmp.Diff(map[string]string{"METAURL": "jfs-secret/metaurl", "EXTERNAL_ACCESS_KEY": "s3-creds/ak",
		"EXTERNAL_SECRET_KEY": "s3-creds/sk", "EXTERNAL_TOKEN": "s3-creds/token"}, secrets); diff != "" {
		t.Errorf("secret env (-want +got):\n%s", diff)
	}
	pvc := renderOp(t, dataMigratePVC(), nil).Pod().Spec
	if got := pvc.Containers[0].Command; got[len(got)-1] != "/sluice/external/" || pvc.Volumes[0].PersistentVolumeClaim.ClaimName != "archive" ||
		pvc.Containers[0].VolumeMounts[0].SubPath != "imagenet" {
		t.Errorf("a pvc:// end: command %q, volumes %+v, mounts %+v", got, pvc.Volumes, pvc.Containers[0].VolumeMounts)
	}
}

func TestOperationRefusesWhatItCannotHonour(t *testing.T) {
	load := func(mutate func(*datav1alpha1.DataLoadSpec)) datav1alpha1.OperationObject {
		dl := enginetest.DataLoad()
		mutate(&dl.Spec)
		return dl
	}
	migrate := func(mutate func(*datav1alpha1.DataMigrateSpec)) datav1alpha1.OperationObject {
		dm := dataMigrateDefault()
		mutate(&dm.Spec)
		return dm
	}
	creds := func(names ...string) []datav1alpha1.EncryptOption {
		var out []datav1alpha1.EncryptOption
		for _, n := range names {
			out = append(out, datav1alpha1.EncryptOption{Name: n, ValueFrom: secretRef("s", n)})
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		op      datav1alpha1.OperationObject
		dataset func(*datav1alpha1.Dataset) // changes sample()'s Dataset
		field   string                      // the error names it
	}{
		{"two replicas", load(func(s *datav1alpha1.DataLoadSpec) { s.Target = []datav1alpha1.TargetPath{{Path: "/a", Replicas: 2}} }), nil, "spec.target[0].replicas"},
		{"relative path", load(func(s *datav1alpha1.DataLoadSpec) { s.Target = []datav1alpha1.TargetPath{{Path: "a"}} }), nil, "spec.target[0].path"},
		{"bad option name", load(func(s *datav1alpha1.DataLoadSpec) { s.Options = map[string]string{"-p": "1"} }), nil, "spec.options"},
		{"another engine", migrate(func(s *datav1alpha1.DataMigrateSpec) { s.RuntimeType = "alluxio" }), nil, "spec.runtimeType"},
		{"parallel without keys", migrate(func(s *datav1alpha1.DataMigrateSpec) { s.Parallelism = 2 }), nil, "spec.parallelOptions.sshSecretName"},
		{"parallel with a bad Secret name", migrate(func(s *datav1alpha1.DataMigrateSpec) {
			s.Parallelism, s.ParallelOptions = 2, map[string]string{"sshSecretName": "Keys_1"}
		}), nil, "spec.parallelOptions.sshSecretName"},
		{"parallel with an unknown option", migrate(func(s *datav1alpha1.DataMigrateSpec) {
			s.Parallelism, s.ParallelOptions = 2, map[string]string{"sshSecretName": "keys", "sshUser": "root"}
		}), nil, `spec.parallelOptions["sshUser"]`},
		{"parallel with a bad port", migrate(func(s *datav1alpha1.DataMigrateSpec) {
			s.Parallelism, s.ParallelOptions = 2, map[string]string{"sshSecretName": "keys", "sshPort": "70000"}
		}), nil, "spec.parallelOptions.sshPort"},
		{"parallel with a bad timeout", migrate(func(s *datav1alpha1.DataMigrateSpec) {
			s.Parallelism, s.ParallelOptions = 2, map[string]string{"sshSecretName": "keys", "sshReadyTimeoutSeconds": "3m"}
		}), nil, "spec.parallelOptions.sshReadyTimeoutSeconds"},
		{"Dataset to Dataset", migrate(func(s *datav1alpha1.DataMigrateSpec) { s.To = s.From }), nil, "spec.to"},
		{"external to external", migrate(func(s *datav1alpha1.DataMigrateSpec) { s.From = s.To }), nil, "spec.from"},
		{"both in one end", migrate(func(s *datav1alpha1.DataMigrateSpec) { s.From.ExternalStorage = s.To.ExternalStorage }), nil, "spec.from"},
		{"neither in one end", migrate(func(s *datav1alpha1.DataMigrateSpec) { s.To.ExternalStorage = nil }), nil, "spec.to"},
		{"no scheme", migrate(func(s *datav1alpha1.DataMigrateSpec) { s.To.ExternalStorage.URI = "bucket/prefix" }), nil, "spec.to.externalStorage.uri"},
		{"unknown credential", migrate(func(s *datav1alpha1.DataMigrateSpec) { s.To.ExternalStorage.EncryptOptions = creds("password") }), nil, "spec.to.externalStorage.encryptOptions[0].name"},
		{"half a key", migrate(func(s *datav1alpha1.DataMigrateSpec) {
			s.To.ExternalStorage.EncryptOptions = creds("access-key", "token")
		}), nil, "spec.to.externalStorage.encryptOptions"},
		{"credentials twice", migrate(func(s *datav1alpha1.DataMigrateSpec) {
			s.To.ExternalStorage.URI = "s3://ak:sk@bucket/p"
			s.To.ExternalStorage.EncryptOptions = creds("access-key", "secret-key")
		}), nil, "spec.to.externalStorage.uri"},
		{"a key without its Secret key", migrate(func(s *datav1alpha1.DataMigrateSpec) {
			s.To.ExternalStorage.EncryptOptions = []datav1alpha1.EncryptOption{{Name: "access-key", ValueFrom: secretRef("s", "")}}
		}), nil, "spec.to.externalStorage.encryptOptions[0].valueFrom.secretKeyRef"},
		{"credentials for a claim", migrate(func(s *datav1alpha1.DataMigrateSpec) {
			s.To.ExternalStorage.URI = "pvc://archive"
			s.To.ExternalStorage.EncryptOptions = creds("access-key", "secret-key")
		}), nil, "spec.to.externalStorage.encryptOptions"},
		{"a bad claim", migrate(func(s *datav1alpha1.DataMigrateSpec) { s.To.ExternalStorage.URI = "pvc://Archive_1" }), nil, "spec.to.externalStorage.uri"},
		{"another Dataset", migrate(func(s *datav1alpha1.DataMigrateSpec) { s.From.DataSet.Name = "coco" }), nil, "spec.from.dataset"},
		{"no metadata URL", dataMigrateDefault(), func(ds *datav1alpha1.Dataset) { ds.Spec.Mounts[0].EncryptOptions = nil }, "metaurl"},
		{"a variable twice", dataMigrateFull(), func(ds *datav1alpha1.Dataset) {
			ds.Spec.SharedEncryptOptions = []datav1alpha1.EncryptOption{{Name: "external-access-key", ValueFrom: secretRef("x", "y")}}
		}, "EXTERNAL_ACCESS_KEY"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds, rt := sample()
			if tc.dataset != nil {
				tc.dataset(ds)
			}
			_, err := juicefs.Engine{}.Operation(engines.OperationRequest{Op: tc.op, Dataset: ds, Runtime: rt})
			enginetest.WantInvalid(t, err, tc.field)
		})
	}
	ds, _ := sample()
	_, err := juicefs.Engine{}.Operation(engines.OperationRequest{Op: enginetest.DataLoad(), Dataset: ds, Runtime: &datav1alpha1.AlluxioRuntime{}})
	enginetest.WantInvalid(t, err, "JuiceFSRuntime")
}

// TestParallelMigration: with spec.parallelism 3 the operation's pod is
// juicefs sync's manager of two workers, which it reaches by their DNS
// names over ssh once each accepts a login; the workers are a StatefulSet
// behind a headless Service, whose pods run sshd with the key pair's
// public half and the operation's placement. A Cron operation's workers
// wait at 0 until the controller scales them for a run; one copy needs no
// workers.
func TestParallelMigration(t *testing.T) {
	op := renderOp(t, dataMigrateParallel(), nil)
	hosts := []string{"export-op-workers-0.export-op-workers", "export-op-workers-1.export-op-workers"}
	spec := op.Pod().Spec
	sync := enginetest.Effective(spec.Containers[0])
	wantSync := []string{"timeout", "30m", "juicefs", "sync", "--worker=" + strings.Join(hosts, ","), "--manager-addr=<POD_IP>", "jfs://METAURL/train/", "/sluice/external/"}
	if !cmp.Equal(sync.Command, wantSync) {
		t.Errorf("the manager runs %q, want %q", sync.Command, wantSync)
	}
	if env := spec.Containers[0].Env; !slices.ContainsFunc(env, func(e corev1.EnvVar) bool {
		return e.Name == "POD_IP" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "status.podIP"
	}) {
		t.Errorf("the manager's environment has no POD_IP from status.podIP: %v", env)
	}
	if len(spec.InitContainers) != 1 {
		t.Fatalf("init containers %v, want the wait for the workers", spec.InitContainers)
	}
	wait := enginetest.Effective(spec.InitContainers[0])
	if want := append([]string{"/bin/sh", "/sluice/files/wait-for-workers", "60"}, hosts...); !cmp.Equal(wait.Command, want) {
		t.Errorf("the wait runs %q, want %q", wait.Command, want)
	}
	if cfg := op.Files.Data["ssh_config"]; !strings.Contains(cfg, "\n    Port 2222\n") || !strings.Contains(cfg, "StrictHostKeyChecking no") {
		t.Errorf("ssh config:\n%s", cfg)
	}
	keys := enginetest.Volume(spec, "ssh")
	if keys == nil || keys.Projected == nil || keys.Projected.Sources[0].Secret.Name != "migrate-keys" || keys.Projected.Sources[1].ConfigMap.Name != op.Files.Name {
		t.Fatalf("the manager's ssh volume %+v, want the Secret's keys and the files ConfigMap's ssh_config", keys)
	}
	for _, c := range []corev1.Container{spec.Containers[0], spec.InitContainers[0]} {
		if m := enginetest.MountAt(c, "/root/.ssh"); m == nil || m.Name != "ssh" || m.SubPath != ".ssh" {
			t.Errorf("%s mounts %+v at /root/.ssh, want the ssh volume's .ssh", c.Name, m)
		}
	}

	w, svc := op.Workers, op.WorkersService
	if w == nil {
		t.Fatal("no workers rendered")
	}
	if w.Name != "export-op-workers" || *w.Spec.Replicas != 2 || w.Annotations["dataop.sluice.io/workers"] != "2" || w.Spec.ServiceName != svc.Name || svc.Name != w.Name {
		t.Errorf("workers %s (service %s), replicas %d, annotation %q; want export-op-workers, 2 and \"2\"", w.Name, w.Spec.ServiceName, *w.Spec.Replicas, w.Annotations["dataop.sluice.io/workers"])
	}
	if svc.Spec.ClusterIP != corev1.ClusterIPNone || !svc.Spec.PublishNotReadyAddresses {
		t.Errorf("the workers' Service is not headless publishing every worker: %+v", svc.Spec)
	}
	for k, v := range w.Spec.Selector.MatchLabels {
		if w.Spec.Template.Labels[k] != v || svc.Spec.Selector[k] != v {
			t.Errorf("selector %s=%s: pod labels %v, Service selector %v", k, v, w.Spec.Template.Labels, svc.Spec.Selector)
		}
	}
	if op.Pod().Labels["app.kubernetes.io/instance"] == w.Spec.Selector.MatchLabels["app.kubernetes.io/instance"] {
		t.Error("the workers' selector selects the manager's pod too")
	}
	ws := w.Spec.Template.Spec
	worker := enginetest.Effective(ws.Containers[0])
	if want := []string{"/usr/sbin/sshd", "-D", "-e", "-p", "2222"}; !cmp.Equal(worker.Command, want) || worker.ReadinessProbe.TCPSocket.Port.IntValue() != 2222 {
		t.Errorf("a worker runs %q (readiness %+v), want %q", worker.Command, worker.ReadinessProbe, want)
	}
	authorized := enginetest.Volume(ws, "ssh")
	if authorized == nil || authorized.Secret == nil || authorized.Secret.SecretName != "migrate-keys" ||
		!cmp.Equal(authorized.Secret.Items, []corev1.KeyToPath{{Key: "ssh-publickey", Path: ".ssh/authorized_keys"}}) {
		t.Errorf("the workers' ssh volume %+v, want the Secret's public key as authorized_keys", authorized)
	}
	if enginetest.Volume(ws, "external") == nil || enginetest.MountAt(ws.Containers[0], "/sluice/external") == nil {
		t.Error("the workers do not see the external claim the manager copies to")
	}
	if ws.RestartPolicy != corev1.RestartPolicyAlways || ws.NodeSelector["gpu"] != "a100" || len(ws.Tolerations) != 1 || ws.Affinity == nil || w.Spec.Template.Labels["team"] != "vision" {
		t.Errorf("the workers' pod lacks the operation's placement or metadata: %+v %v", ws, w.Spec.Template.Labels)
	}

	cron := dataMigrateParallel()
	cron.Spec.Policy, cron.Spec.Schedule = datav1alpha1.Cron, "@daily"
	if w := renderOp(t, cron, nil).Workers; w == nil || *w.Spec.Replicas != 0 || w.Annotations["dataop.sluice.io/workers"] != "2" {
		t.Errorf("a Cron operation's workers: %+v, want 0 replicas until a run, annotated 2", w)
	}
	one := dataMigratePVC()
	one.Spec.Parallelism, one.Spec.ParallelOptions = 1, map[string]string{"sshSecretName": "migrate-keys"}
	if op := renderOp(t, one, nil); op.Workers != nil || len(op.Pod().Spec.InitContainers) != 0 {
		t.Error("a migration with parallelism 1 got workers")
	}
}
