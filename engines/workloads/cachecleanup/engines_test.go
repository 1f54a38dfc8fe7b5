package cachecleanup_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/yaml"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/charts"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/alluxio"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/jindo"
	"github.com/sluice-data/sluice/engines/juicefs"
	"github.com/sluice-data/sluice/engines/thin"
	"github.com/sluice-data/sluice/engines/workloads/cachecleanup"
)

const ns, name = "team-a", "imagenet"

func quota(s string) *resource.Quantity { q := resource.MustParse(s); return &q }

func secretRef(secret, key string) datav1alpha1.EncryptOptionSource {
	return datav1alpha1.EncryptOptionSource{SecretKeyRef: datav1alpha1.SecretKeySelector{Name: secret, Key: key}}
}

// engineCase is one engine's runtime as the cleanup finds it: its
// release rendered, its pods placed on nodes.
type engineCase struct {
	engine  engines.Engine
	reader  client.Reader
	dataset *datav1alpha1.Dataset
	runtime datav1alpha1.RuntimeObject
	// wantDirs are the host directories the cleanup removes, by node.
	wantDirs map[string][]string
}

func meta() metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: ns, Name: name} }

// engineCases: each engine with a hostPath tier (a memory tier in an
// emptyDir where the engine has one, which the cleanup leaves to its
// pods) on workers on node-a and node-b, FUSE on node-c, masters on
// node-m.
func engineCases() map[string]engineCase {
	jfsDS := &datav1alpha1.Dataset{ObjectMeta: meta(), Spec: datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{{MountPoint: "juicefs:///imagenet", Name: name,
		EncryptOptions: []datav1alpha1.EncryptOption{{Name: "metaurl", ValueFrom: secretRef("jfs", "metaurl")}}}}}}
	jfs := &datav1alpha1.JuiceFSRuntime{ObjectMeta: meta(), Spec: datav1alpha1.JuiceFSRuntimeSpec{Replicas: 2,
		TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{{MediumType: datav1alpha1.SSD, Path: "/mnt/jfs-a:/mnt/jfs-b", Quota: quota("10Gi")}}}}}
	jfsDirs := []string{"/mnt/jfs-a/.sluice/team-a/imagenet", "/mnt/jfs-b/.sluice/team-a/imagenet"}

	alxDS := &datav1alpha1.Dataset{ObjectMeta: meta(), Spec: datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{{MountPoint: "s3://bucket/imagenet", Name: name}}}}
	alx := &datav1alpha1.AlluxioRuntime{ObjectMeta: meta(), Spec: datav1alpha1.AlluxioRuntimeSpec{Replicas: 2,
		TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{
			{MediumType: datav1alpha1.Memory, VolumeType: datav1alpha1.VolumeTypeEmptyDir, Path: "/dev/shm", Quota: quota("1Gi")},
			{MediumType: datav1alpha1.SSD, Path: "/mnt/ssd1,/mnt/ssd2", Quota: quota("20Gi")},
		}}}}
	alxDirs := []string{"/mnt/ssd1/.sluice/team-a/imagenet", "/mnt/ssd2/.sluice/team-a/imagenet"}

	jdoDS := &datav1alpha1.Dataset{ObjectMeta: meta(), Spec: datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{{MountPoint: "oss://bucket/imagenet", Name: name,
		Options: map[string]string{"fs.oss.endpoint": "oss-cn-hangzhou.aliyuncs.com"}}}}}
	jdo := &datav1alpha1.JindoRuntime{ObjectMeta: meta(), Spec: datav1alpha1.JindoRuntimeSpec{Replicas: 2,
		TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{{MediumType: datav1alpha1.HDD, Path: "/mnt/disk1,/mnt/disk2", Quota: quota("100Gi")}}}}}
	jdoDirs := []string{"/mnt/disk1/.sluice/team-a/imagenet", "/mnt/disk2/.sluice/team-a/imagenet"}

	thinDS := &datav1alpha1.Dataset{ObjectMeta: meta(), Spec: datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{{MountPoint: "s3://bucket/imagenet", Name: name}}}}
	profile := &datav1alpha1.ThinRuntimeProfile{ObjectMeta: metav1.ObjectMeta{Name: "rclone"}, Spec: datav1alpha1.ThinRuntimeProfileSpec{FileSystemType: "fuse.rclone",
		Fuse: datav1alpha1.ThinFuseSpec{VersionSpec: datav1alpha1.VersionSpec{Image: "rclone/rclone", ImageTag: "1.68"}, Command: []string{"/mount.sh"}}}}
	thn := &datav1alpha1.ThinRuntime{ObjectMeta: meta(), Spec: datav1alpha1.ThinRuntimeSpec{ProfileName: "rclone", Replicas: 2,
		Worker: datav1alpha1.ThinCompTemplateSpec{Enabled: true, VersionSpec: datav1alpha1.VersionSpec{Image: "rclone/rclone", ImageTag: "1.68"}},
		TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{
			{MediumType: datav1alpha1.Memory, VolumeType: datav1alpha1.VolumeTypeEmptyDir, Path: "/dev/shm/rclone", Quota: quota("1Gi")},
			{MediumType: datav1alpha1.SSD, Path: "/var/cache/rclone", Quota: quota("50Gi")},
		}}}}
	thinDir := []string{"/var/cache/rclone/.sluice/team-a/imagenet"}

	return map[string]engineCase{
		// JuiceFS workers and FUSE both cache in the tier.
		"juicefs": {engine: juicefs.Engine{}, dataset: jfsDS, runtime: jfs,
			wantDirs: map[string][]string{"node-a": jfsDirs, "node-b": jfsDirs, "node-c": jfsDirs}},
		// Alluxio's FUSE and masters cache nothing on the node.
		"alluxio": {engine: alluxio.Engine{}, dataset: alxDS, runtime: alx,
			wantDirs: map[string][]string{"node-a": alxDirs, "node-b": alxDirs}},
		"jindo": {engine: jindo.Engine{}, dataset: jdoDS, runtime: jdo,
			wantDirs: map[string][]string{"node-a": jdoDirs, "node-b": jdoDirs}},
		// Thin's FUSE and workers both mount the tiers.
		"thin": {engine: thin.Engine{}, reader: fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(profile).Build(), dataset: thinDS, runtime: thn,
			wantDirs: map[string][]string{"node-a": thinDir, "node-b": thinDir, "node-c": thinDir}},
	}
}

// documents splits a rendered template as the Helm kube client reads it.
func documents(t *testing.T, manifest string) [][]byte {
	t.Helper()
	r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(manifest)))
	var out [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(bytes.TrimSpace(doc)) > 0 && !bytes.Equal(bytes.TrimSpace(doc), []byte("---")) {
			out = append(out, doc)
		}
	}
}

// releasePods stands in for the StatefulSet and DaemonSet controllers and
// the scheduler: the pods of a rendered engine release, workers on node-a
// and node-b, masters on node-m, FUSE on node-c.
func releasePods(t *testing.T, out map[string]string) []corev1.Pod {
	t.Helper()
	var pods []corev1.Pod
	add := func(owner metav1.Object, kind string, tmpl corev1.PodTemplateSpec, nodes ...string) {
		for i, node := range nodes {
			pods = append(pods, corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("%s-%d", owner.GetName(), i), Labels: tmpl.Labels,
					OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: owner.GetName(), Controller: ptr.To(true)}}},
				Spec: *tmpl.Spec.DeepCopy(),
			})
			pods[len(pods)-1].Spec.NodeName = node
		}
	}
	for _, tpl := range helm.SortedKeys(out) {
		for _, doc := range documents(t, out[tpl]) {
			var head metav1.TypeMeta
			if err := yaml.Unmarshal(doc, &head); err != nil {
				t.Fatal(err)
			}
			switch head.Kind {
			case "StatefulSet":
				sts := &appsv1.StatefulSet{}
				if err := yaml.Unmarshal(doc, sts); err != nil {
					t.Fatal(err)
				}
				nodes := []string{"node-a", "node-b"}
				if strings.HasSuffix(sts.Name, "-master") {
					nodes = []string{"node-m"}
				}
				add(sts, "StatefulSet", sts.Spec.Template, nodes...)
			case "DaemonSet":
				ds := &appsv1.DaemonSet{}
				if err := yaml.Unmarshal(doc, ds); err != nil {
					t.Fatal(err)
				}
				add(ds, "DaemonSet", ds.Spec.Template, "node-c")
			}
		}
	}
	return pods
}

// build plans the case's cleanup from its release's pods, as the
// controller does.
func (c engineCase) build(t *testing.T) (cachecleanup.Request, string) {
	t.Helper()
	_, out := enginetest.Render(t, c.engine, c.reader, c.dataset, c.runtime)
	req := cachecleanup.Request{Runtime: c.runtime, Engine: c.engine.Type(), Nodes: cachecleanup.Plan(releasePods(t, out), ns, name)}
	if f, ok := c.engine.(engines.CacheFreer); ok {
		spec, err := f.FreeCache(c.runtime)
		if err != nil {
			t.Fatal(err)
		}
		req.Free = &spec
	}
	return req, cachecleanup.ReleaseName(name)
}

// render renders charts/cachecleanup for the values.
func render(t *testing.T, release string, v cachecleanup.Values) map[string]string {
	t.Helper()
	plain, err := v.Plain()
	if err != nil {
		t.Fatal(err)
	}
	return enginetest.RenderChart(t, charts.CacheCleanup, plain, release, ns)
}

// jobs decodes every rendered Job strictly, by name.
func jobs(t *testing.T, out map[string]string) map[string]*batchv1.Job {
	t.Helper()
	got := map[string]*batchv1.Job{}
	for _, tpl := range helm.SortedKeys(out) {
		for _, doc := range documents(t, out[tpl]) {
			j := &batchv1.Job{}
			if err := yaml.UnmarshalStrict(doc, j); err != nil {
				t.Fatalf("%s does not decode strictly into a Job: %v\n%s", tpl, err, doc)
			}
			if j.Kind != "Job" || j.Namespace != ns {
				t.Fatalf("%s renders a %s in %q, want Jobs in %s", tpl, j.Kind, j.Namespace, ns)
			}
			got[j.Name] = j
		}
	}
	return got
}

// TestEnginesCleanupGolden: for each engine, the cleanup planned from its
// release's pods removes exactly the runtime's hostPath tier directories,
// on exactly the nodes whose pods mounted them (emptyDir tiers and the
// nodes of pods without a hostPath tier are left out), with one Job per
// node pinned to it; the render is compared with its golden files.
func TestEnginesCleanupGolden(t *testing.T) {
	for engine, c := range engineCases() {
		t.Run(engine, func(t *testing.T) {
			req, release := c.build(t)
			got := map[string][]string{}
			for _, n := range req.Nodes {
				got[n.Name] = n.Dirs
				if n.Image == "" {
					t.Errorf("node %s: no image", n.Name)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(c.wantDirs) {
				t.Errorf("planned directories %v, want %v", got, c.wantDirs)
			}
			out := render(t, release, cachecleanup.Build(release, req))
			templates := []string{"templates/node-jobs.yaml"}
			if req.Free != nil {
				templates = append([]string{"templates/free-job.yaml"}, templates...)
			}
			enginetest.GoldenCase(t, engine, out, templates)
			js := jobs(t, out)
			if _, ok := js[cachecleanup.FreeJobName(release)]; ok != (engine == "alluxio") {
				t.Errorf("free Job rendered: %v, want it for alluxio only", ok)
			}
			for i, n := range req.Nodes {
				j := js[cachecleanup.NodeJobName(release, i)]
				if j == nil {
					t.Fatalf("no Job for node %s", n.Name)
				}
				checkNodeJob(t, j, n, release)
			}
		})
	}
}

// checkNodeJob: the Job is suspended (StageFree), pinned to the node,
// labelled as Sluice's, and its one container runs rm -rf -- on each
// owned directory through a mount of exactly its parent.
func checkNodeJob(t *testing.T, j *batchv1.Job, n cachecleanup.Node, release string) {
	t.Helper()
	spec := j.Spec.Template.Spec
	if !ptr.Deref(j.Spec.Suspend, false) {
		t.Errorf("%s is not suspended at StageFree", j.Name)
	}
	if spec.NodeName != n.Name || spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("%s: nodeName %q restartPolicy %q", j.Name, spec.NodeName, spec.RestartPolicy)
	}
	for _, l := range []map[string]string{j.Labels, j.Spec.Template.Labels} {
		if l[datav1alpha1.LabelDataset] != "team-a-imagenet" || l[engines.LabelManagedBy] != "sluice" || l[cachecleanup.LabelRuntime] != name ||
			l[cachecleanup.LabelStep] != "node" || l["app.kubernetes.io/instance"] != release {
			t.Errorf("%s labels %v", j.Name, l)
		}
	}
	if len(spec.Containers) != 1 || len(spec.InitContainers) != 0 {
		t.Fatalf("%s: %d containers, %d init containers; want one", j.Name, len(spec.Containers), len(spec.InitContainers))
	}
	c := spec.Containers[0]
	want := []string{"rm", "-rf", "--"}
	var hostDirs []string
	for i, dir := range n.Dirs {
		at := fmt.Sprintf("%s/%d", cachecleanup.MountRoot, i)
		want = append(want, at+"/"+name)
		m := enginetest.MountAt(c, at)
		if m == nil {
			t.Fatalf("%s mounts nothing at %s", j.Name, at)
		}
		v := enginetest.Volume(spec, m.Name)
		if v == nil || v.HostPath == nil || v.HostPath.Path != path.Dir(dir) {
			t.Errorf("%s: volume %s is %+v, want hostPath %s", j.Name, m.Name, v, path.Dir(dir))
		}
		hostDirs = append(hostDirs, path.Dir(dir))
	}
	if !slices.Equal(c.Command, want) || len(c.Args) != 0 {
		t.Errorf("%s runs %q %q, want %q", j.Name, c.Command, c.Args, want)
	}
	if len(spec.Volumes) != len(n.Dirs) || len(c.VolumeMounts) != len(n.Dirs) {
		t.Errorf("%s: volumes %d, mounts %d; want exactly the %d parents %v", j.Name, len(spec.Volumes), len(c.VolumeMounts), len(n.Dirs), hostDirs)
	}
}

// TestStageCleanResumesTheNodeJobs: the node Jobs run only at StageClean;
// the free Job is never suspended.
func TestStageCleanResumesTheNodeJobs(t *testing.T) {
	c := engineCases()["alluxio"]
	req, release := c.build(t)
	for _, stage := range []cachecleanup.Stage{cachecleanup.StageFree, cachecleanup.StageDrain, cachecleanup.StageClean} {
		js := jobs(t, render(t, release, cachecleanup.Build(release, req).At(stage)))
		for jobName, j := range js {
			want := stage != cachecleanup.StageClean && jobName != cachecleanup.FreeJobName(release)
			if got := ptr.Deref(j.Spec.Suspend, false); got != want {
				t.Errorf("stage %s: %s suspended %v, want %v", stage, jobName, got, want)
			}
		}
	}
}
