package alluxio_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/alluxio"
	"github.com/sluice-data/sluice/engines/enginetest"
)

// TestHadoopConfigMountsTheFilesItHolds: a ConfigMap holding only
// core-site.xml (and a file Alluxio does not read) is mounted with that
// file alone, in every pod, and only that file is named to Alluxio.
func TestHadoopConfigMountsTheFilesItHolds(t *testing.T) {
	ds, rt := sample()
	rt.Spec.HadoopConfig = "core-only"
	out := render(t, ds, rt)
	for _, w := range []struct{ file, container string }{
		{"templates/master-statefulset.yaml", "alluxio-master"}, {"templates/master-statefulset.yaml", "alluxio-job-master"},
		{"templates/worker-statefulset.yaml", "alluxio-worker"}, {"templates/worker-statefulset.yaml", "alluxio-job-worker"},
		{"templates/fuse-daemonset.yaml", "fuse"},
	} {
		pod := podOf(t, out, w.file)
		i := slices.IndexFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == "hadoop-config" })
		if i < 0 || pod.Volumes[i].ConfigMap == nil || pod.Volumes[i].ConfigMap.Name != "core-only" ||
			!slices.Equal(pod.Volumes[i].ConfigMap.Items, []corev1.KeyToPath{{Key: "core-site.xml", Path: "core-site.xml"}}) {
			t.Errorf("%s: volumes %+v, want hadoop-config of ConfigMap core-only holding core-site.xml alone", w.file, pod.Volumes)
		}
		c := pod.Containers[slices.IndexFunc(pod.Containers, func(c corev1.Container) bool { return c.Name == w.container })]
		if !slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool {
			return m.Name == "hadoop-config" && m.MountPath == "/hdfs-config" && m.ReadOnly && m.SubPath == ""
		}) {
			t.Errorf("%s container %s mounts %+v, want hadoop-config read-only at /hdfs-config", w.file, w.container, c.VolumeMounts)
		}
	}
	if conf := out["templates/config-configmap.yaml"]; !strings.Contains(conf, "alluxio.underfs.hdfs.configuration=/hdfs-config/core-site.xml\n") {
		t.Errorf("the configuration does not name /hdfs-config/core-site.xml alone:\n%s", conf)
	}
}

// TestHadoopConfigNotFound: a missing ConfigMap, or one holding neither
// file, leaves the runtime waiting, naming the ConfigMap and the field.
func TestHadoopConfigNotFound(t *testing.T) {
	for name, want := range map[string]string{
		"absent":    `ConfigMap "absent" (spec.hadoopConfig) does not exist in namespace team-a`,
		"neither":   `ConfigMap "neither" (spec.hadoopConfig) holds neither hdfs-site.xml nor core-site.xml`,
		"hdfs-conf": "",
	} {
		_, rt := sample()
		rt.Spec.HadoopConfig = name
		r := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "neither", Namespace: "team-a"}, Data: map[string]string{"log4j.properties": ""}},
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "hdfs-conf", Namespace: "team-a"}, Data: map[string]string{"hdfs-site.xml": ""}}).Build()
		_, err := alluxio.Engine{}.Resolve(context.Background(), r, rt)
		var e *engines.Error
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", name, err)
		case want != "" && (!errors.As(err, &e) || e.Reason != alluxio.ReasonHadoopConfigNotFound || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: got %v, want %s naming %q", name, err, alluxio.ReasonHadoopConfigNotFound, want)
		}
	}
}

// TestHadoopConfigNeedsResolve: values asked of an engine that did not read
// the ConfigMap are refused rather than rendered without it.
func TestHadoopConfigNeedsResolve(t *testing.T) {
	ds, rt := sample()
	rt.Spec.HadoopConfig = "hdfs-conf"
	_, err := alluxio.Engine{}.Values(ds, rt)
	enginetest.WantInvalid(t, err, `names ConfigMap "hdfs-conf" in spec.hadoopConfig, which was not read`)
}

// TestHadoopConfigWatch: a ConfigMap wakes the AlluxioRuntimes of its
// namespace that name it, and no other.
func TestHadoopConfigWatch(t *testing.T) {
	rts := []client.Object{}
	for _, r := range []struct{ ns, name, conf string }{{"team-a", "one", "hdfs-conf"}, {"team-a", "two", ""}, {"team-b", "three", "hdfs-conf"}} {
		rts = append(rts, &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Name: r.name, Namespace: r.ns}, Spec: datav1alpha1.AlluxioRuntimeSpec{HadoopConfig: r.conf}})
	}
	r := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(rts...).Build()
	watches := alluxio.Engine{}.Watches(r)
	if len(watches) != 1 {
		t.Fatalf("%d watches, want the ConfigMaps'", len(watches))
	}
	got := watches[0].Map(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "hdfs-conf", Namespace: "team-a"}})
	if want := []client.ObjectKey{{Namespace: "team-a", Name: "one"}}; !slices.Equal(got, want) {
		t.Errorf("woken %v, want %v", got, want)
	}
}

// TestOwnerSetsTheFuseMountOwner: a Dataset owner becomes the uid= and gid=
// options of the FUSE client (Fluid's non-root access), after the options
// of spec.fuse.args when it replaces them; without one, Alluxio translates
// users and groups.
func TestOwnerSetsTheFuseMountOwner(t *testing.T) {
	ds, rt := sample()
	ds.Spec.Owner = &datav1alpha1.User{UID: ptr.To[int64](1201), GID: ptr.To[int64](1300)}
	rt.Spec.Fuse.Args = []string{"fuse", "--fuse-opts=kernel_cache,ro,max_readahead=0"}
	out := render(t, ds, rt)
	fuse := podOf(t, out, "templates/fuse-daemonset.yaml").Containers[0]
	if want := []string{"fuse", "--fuse-opts=kernel_cache,ro,max_readahead=0,uid=1201,gid=1300"}; !slices.Equal(fuse.Args, want) {
		t.Errorf("FUSE args %q, want %q", fuse.Args, want)
	}
	if conf := out["templates/config-configmap.yaml"]; strings.Contains(conf, "translation") {
		t.Errorf("an owned mount still translates users:\n%s", conf)
	}
	ds.Spec.Owner = nil
	if conf := render(t, ds, rt)["templates/config-configmap.yaml"]; !strings.Contains(conf, "alluxio.fuse.user.group.translation.enabled=true") {
		t.Errorf("a mount without owner does not translate users:\n%s", conf)
	}
}

// TestOwnerIsChecked: an owner missing an id, or a spec.fuse.args without
// the options argument that would carry it, is refused naming why.
func TestOwnerIsChecked(t *testing.T) {
	ds, rt := sample()
	ds.Spec.Owner = &datav1alpha1.User{UID: ptr.To[int64](1201), UserName: "alice"}
	_, err := alluxio.Engine{}.Values(ds, rt)
	enginetest.WantInvalid(t, err, "dataset team-a/imagenet spec.owner: the FUSE mount's owner needs both uid and gid")

	ds.Spec.Owner.GID = ptr.To[int64](1201)
	rt.Spec.Fuse.Args = []string{"fuse"}
	_, err = alluxio.Engine{}.Values(ds, rt)
	enginetest.WantInvalid(t, err, "spec.fuse.args of AlluxioRuntime team-a/imagenet lacks")
}

// podOf is the pod template of the workload a template renders.
func podOf(t *testing.T, out map[string]string, file string) corev1.PodSpec {
	t.Helper()
	if strings.Contains(file, "daemonset") {
		return enginetest.Decode[appsv1.DaemonSet](t, out, file).Spec.Template.Spec
	}
	return enginetest.Decode[appsv1.StatefulSet](t, out, file).Spec.Template.Spec
}
