package controller_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/cacheruntime"
	"github.com/sluice-data/sluice/engines/alluxio"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// TestAlluxioHDFSAndAPIGatewayRecipes follows Fluid's HA-HDFS, API gateway
// and FUSE owner recipes: the runtime waits, saying why, for the ConfigMap
// its spec.hadoopConfig names; once the ConfigMap is created its files are
// mounted into the masters, workers and FUSE and named to Alluxio, the
// proxy runs beside the masters, the status names the gateway's endpoint,
// and the FUSE mount shows the Dataset owner's uid and gid.
func TestAlluxioHDFSAndAPIGatewayRecipes(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := func(name string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: name} }
	ds := testobj.Dataset("hadoop", ns, testobj.WithMounts("hdfs://mycluster/"))
	ds.Spec.Owner = &datav1alpha1.User{UID: ptr.To[int64](1201), GID: ptr.To[int64](1201)}
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	rt := &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Name: "hadoop", Namespace: ns}, Spec: datav1alpha1.AlluxioRuntimeSpec{
		Replicas: 1, HadoopConfig: "hdfs-conf", APIGateway: datav1alpha1.AlluxioCompTemplateSpec{Enabled: true},
		Data:        datav1alpha1.AlluxioData{Replicas: 2},
		TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{testobj.Level(datav1alpha1.Memory, "/dev/shm", "2Gi")}}}}
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the runtime waits for its Hadoop configuration", func() bool {
		c := &metav1.Condition{}
		if env.Client.Get(ctx, key("hadoop"), rt) == nil {
			c = meta.FindStatusCondition(rt.Status.Conditions, cacheruntime.ConditionReady)
		}
		return c != nil && c.Reason == alluxio.ReasonHadoopConfigNotFound && c.Status == metav1.ConditionFalse &&
			strings.Contains(c.Message, `ConfigMap "hdfs-conf" (spec.hadoopConfig) does not exist`)
	})
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "hdfs-conf", Namespace: ns},
		Data: map[string]string{"hdfs-site.xml": "<configuration></configuration>", "core-site.xml": "<configuration></configuration>"}}
	if err := env.Client.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	readyMastersAndWorkers(t, ns, "hadoop")
	for _, sts := range []string{"hadoop-master", "hadoop-worker"} {
		obj := &appsv1.StatefulSet{}
		if err := env.Client.Get(ctx, key(sts), obj); err != nil {
			t.Fatal(err)
		}
		checkHadoopConfig(t, sts, obj.Spec.Template.Spec)
	}
	master := &appsv1.StatefulSet{}
	if err := env.Client.Get(ctx, key("hadoop-master"), master); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(master.Spec.Template.Spec.Containers, func(c corev1.Container) bool { return c.Name == "alluxio-proxy" }) {
		t.Error("no alluxio-proxy container in the master pods")
	}
	fuse := &appsv1.DaemonSet{}
	eventually(t, 20*time.Second, "Helm installs the FUSE DaemonSet", func() bool { return env.Client.Get(ctx, key("hadoop-fuse"), fuse) == nil })
	checkHadoopConfig(t, "hadoop-fuse", fuse.Spec.Template.Spec)
	if args := fuse.Spec.Template.Spec.Containers[0].Args; !slices.ContainsFunc(args, func(a string) bool { return strings.HasSuffix(a, ",uid=1201,gid=1201") }) {
		t.Errorf("FUSE args %q lack the Dataset owner's uid and gid", args)
	}
	conf := &corev1.ConfigMap{}
	if err := env.Client.Get(ctx, key("hadoop-config"), conf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"alluxio.underfs.hdfs.configuration=/hdfs-config/hdfs-site.xml:/hdfs-config/core-site.xml\n", "alluxio.user.file.replication.max=2\n"} {
		if !strings.Contains(conf.Data["alluxio-site.properties"], want) {
			t.Errorf("alluxio-site.properties lacks %q:\n%s", want, conf.Data["alluxio-site.properties"])
		}
	}
	eventually(t, 20*time.Second, "the status names the API gateway's endpoint", func() bool {
		return env.Client.Get(ctx, key("hadoop"), rt) == nil && rt.Status.APIGateway.Endpoint == "hadoop-master-0.hadoop-master."+ns+".svc:39999"
	})
}

// checkHadoopConfig fails unless every container of pod but the nested
// mounts' sidecar mounts the hdfs-conf ConfigMap read-only at /hdfs-config.
func checkHadoopConfig(t *testing.T, what string, pod corev1.PodSpec) {
	t.Helper()
	if !slices.ContainsFunc(pod.Volumes, func(v corev1.Volume) bool {
		return v.Name == "hadoop-config" && v.ConfigMap != nil && v.ConfigMap.Name == "hdfs-conf"
	}) {
		t.Errorf("%s: no volume of ConfigMap hdfs-conf in %+v", what, pod.Volumes)
	}
	for _, c := range pod.Containers {
		if c.Name == "mount-ufs" {
			continue
		}
		if !slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool {
			return m.Name == "hadoop-config" && m.MountPath == "/hdfs-config" && m.ReadOnly
		}) {
			t.Errorf("%s container %s does not mount the Hadoop configuration: %+v", what, c.Name, c.VolumeMounts)
		}
	}
}

// TestAlluxioDatasetRestoresFromItsBackup: an Alluxio Dataset naming a
// DataBackup's claim in spec.dataRestoreLocation gets masters that mount
// it read-only and start their journal from the backup file of the
// Dataset's name (issue 32, point 3).
func TestAlluxioDatasetRestoresFromItsBackup(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	ds := testobj.Dataset("restored", ns, testobj.WithMounts("s3://bucket/restored"))
	ds.Spec.DataRestoreLocation = &datav1alpha1.DataRestoreLocation{Path: "pvc://backups/restored"}
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	rt := &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Name: "restored", Namespace: ns}, Spec: datav1alpha1.AlluxioRuntimeSpec{
		Replicas: 1, TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{testobj.Level(datav1alpha1.Memory, "/dev/shm", "2Gi")}}}}
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	master := &appsv1.StatefulSet{}
	eventually(t, 20*time.Second, "Helm installs the masters", func() bool {
		return env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "restored-master"}, master) == nil
	})
	pod := master.Spec.Template.Spec
	if !slices.ContainsFunc(pod.Volumes, func(v corev1.Volume) bool {
		return v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == "backups"
	}) {
		t.Errorf("master volumes %+v lack the claim backups", pod.Volumes)
	}
	want := "-Dalluxio.master.journal.init.from.backup=/sluice/restore/" + alluxio.BackupFile(ds)
	if !slices.ContainsFunc(pod.Containers[0].Env, func(e corev1.EnvVar) bool { return strings.Contains(e.Value, want) }) {
		t.Errorf("master env %+v lacks %s", pod.Containers[0].Env, want)
	}
}
