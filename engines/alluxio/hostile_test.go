package alluxio_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/alluxio"
	"github.com/sluice-data/sluice/engines/enginetest"
)

// TestHostileStringsRenderAsData feeds hostile strings through every
// string field of an AlluxioRuntime and its Dataset that reaches the
// chart, and checks that the chart still renders exactly its seven objects
// in the runtime's namespace, each decoding strictly, with every string
// whole: in the manifests as given, in the properties files once read as
// .properties, or in the mount script's arguments once a shell reads them.
func TestHostileStringsRenderAsData(t *testing.T) {
	const h, line = enginetest.Hostile, enginetest.HostileLine
	// A tier path has no spaces (Alluxio's tier list is comma-separated).
	const path = "/tier\"'`$(id)`${HOME}$(HOME)$${{.Release.Name}}#&a*a!t%é\\"
	ds, rt := sample()
	rt.Spec.AlluxioVersion = datav1alpha1.VersionSpec{Image: "registry/alluxio" + line, ImageTag: "tag" + line, ImagePullPolicy: "Never"}
	f := &rt.Spec.Fuse
	f.Image, f.ImageTag, f.ImagePullPolicy = "registry/fuse"+line, "fuse-tag"+line, "Always"
	f.Args = []string{"fuse", "--fuse-opts=" + h}
	rt.Spec.TieredStore.Levels[1].Path = path + "0," + path + "1"
	rt.Spec.Properties["alluxio.user.note"] = "runtime-property" + h
	rt.Spec.JvmOptions = []string{"-Dnote=runtime-jvm" + h}
	rt.Spec.PodMetadata = datav1alpha1.PodMetadata{Labels: map[string]string{"label" + h: "label-value" + h}, Annotations: map[string]string{"annotation" + h: "annotation-value" + h}}
	rt.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "pull-secret" + h}}
	for name, c := range map[string]*datav1alpha1.AlluxioCompTemplateSpec{"master": &rt.Spec.Master, "worker": &rt.Spec.Worker, "job-master": &rt.Spec.JobMaster} {
		c.Properties = map[string]string{"alluxio.note." + name: name + "-property" + h}
		c.JvmOptions = []string{"-Dnote=" + name + "-jvm" + h}
		c.Env = map[string]string{"NOTE": name + "-env" + h}
		if name != "job-master" { // the job master runs in the master pod: its nodeSelector is refused
			c.NodeSelector = map[string]string{name + "-selector" + h: name + "-selected" + h}
		}
	}
	f.Properties = map[string]string{"alluxio.note.fuse": "fuse-property" + h}
	f.Env = map[string]string{"NOTE": "fuse-env" + h}
	f.NodeSelector = map[string]string{"fuse-selector" + h: "fuse-selected" + h}
	m := &ds.Spec.Mounts[1]
	m.MountPoint = "s3://imagenet/val" + line
	m.Options = map[string]string{"alluxio.underfs.note": "mount-option" + h}
	ds.Spec.SharedEncryptOptions[0].ValueFrom.SecretKeyRef = datav1alpha1.SecretKeySelector{Name: "secret-name" + h, Key: "secret-key" + h}
	ds.Spec.Tolerations = []corev1.Toleration{{Key: "toleration-key" + h, Operator: corev1.TolerationOpEqual, Value: "toleration-value" + h}}
	ds.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0].Values = []string{"affinity-value" + h}

	rel := enginetest.DecodeRelease(t, render(t, ds, rt), "team-a", map[string]string{
		"templates/config-configmap.yaml": "ConfigMap", "templates/fuse-daemonset.yaml": "DaemonSet", "templates/master-service.yaml": "Service",
		"templates/master-statefulset.yaml": "StatefulSet", "templates/worker-statefulset.yaml": "StatefulSet",
		"templates/mounts-configmap.yaml": "ConfigMap", "templates/mount-job.yaml": "Job"})
	rel.Carries(t, "registry/alluxio"+line+":tag"+line, "registry/fuse"+line+":fuse-tag"+line, "--fuse-opts="+h, path+"0", path+"1",
		"runtime-jvm"+h, "master-jvm"+h, "worker-jvm"+h, "job-master-jvm"+h, "master-env"+h, "worker-env"+h, "fuse-env"+h,
		"master-selector"+h, "master-selected"+h, "worker-selector"+h, "worker-selected"+h, "fuse-selector"+h, "fuse-selected"+h,
		"label"+h, "label-value"+h, "annotation"+h, "annotation-value"+h, "pull-secret"+h,
		"secret-name"+h, "secret-key"+h, "toleration-key"+h, "toleration-value"+h, "affinity-value"+h)

	cm := rel.Objects["templates/config-configmap.yaml"].(*corev1.ConfigMap)
	for file, want := range map[string]map[string]string{
		"alluxio-site.properties": {"alluxio.user.note": "runtime-property" + h},
		"master.properties":       {"alluxio.note.master": "master-property" + h, "alluxio.note.job-master": "job-master-property" + h},
		"worker.properties":       {"alluxio.note.worker": "worker-property" + h},
		"fuse.properties":         {"alluxio.note.fuse": "fuse-property" + h},
	} {
		props := readProperties(cm.Data[file])
		for k, v := range want {
			if props[k] != v {
				t.Errorf("%s: %s is %q once read, want %q", file, k, props[k], v)
			}
		}
	}
	args := scriptArgs(t, rel.Objects["templates/mounts-configmap.yaml"].(*corev1.ConfigMap).Data["mount-ufs.sh"], "/validation")
	for _, want := range []string{"alluxio.underfs.note=mount-option" + h, "s3://imagenet/val" + line} {
		if !slices.Contains(args, want) {
			t.Errorf("the mount of /validation does not pass %q as one argument: %q", want, args)
		}
	}
	// The mount Job receives them as argv items of its fixed script.
	rel.Runs(t, "alluxio.underfs.note=mount-option"+h, "s3://imagenet/val"+line)
}

// TestHostileStringsRefusedWhereNotData: what no Alluxio process could take
// as it is (a line break in an image, a tag or a tier path, a pull policy
// Kubernetes does not know, a property, option or path name outside
// Alluxio's) is refused by Values, naming the field.
func TestHostileStringsRefusedWhereNotData(t *testing.T) {
	const h = enginetest.Hostile
	for _, tc := range []struct {
		field string
		set   func(*datav1alpha1.Dataset, *datav1alpha1.AlluxioRuntime)
	}{
		{"spec.alluxioVersion.image", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) {
			rt.Spec.AlluxioVersion.Image = "alluxio" + h
		}},
		{"spec.alluxioVersion.imageTag", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) {
			rt.Spec.AlluxioVersion.ImageTag = "2" + h
		}},
		{"spec.alluxioVersion.imagePullPolicy", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) {
			rt.Spec.AlluxioVersion.ImagePullPolicy = "IfNotPresent" + h
		}},
		{"spec.fuse.image", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) { rt.Spec.Fuse.Image = "fuse" + h }},
		{"spec.fuse.imageTag", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) { rt.Spec.Fuse.ImageTag = "2" + h }},
		{"spec.fuse.imagePullPolicy", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) {
			rt.Spec.Fuse.ImagePullPolicy = "Sometimes"
		}},
		{"spec.tieredstore.levels[1].path", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) {
			rt.Spec.TieredStore.Levels[1].Path = "/mnt/ssd" + h
		}},
		{"spec.properties", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) {
			rt.Spec.Properties = map[string]string{"a" + h: "b"}
		}},
		{"spec.fuse.properties", func(_ *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime) {
			rt.Spec.Fuse.Properties = map[string]string{"a=b": "c"}
		}},
		{"dataset spec.mounts[1].options", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.AlluxioRuntime) {
			ds.Spec.Mounts[1].Options = map[string]string{"a" + h: "b"}
		}},
		{"dataset spec.mounts[1]", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.AlluxioRuntime) { ds.Spec.Mounts[1].Path = "/val" + h }},
		{"dataset spec.mounts[1].mountPoint", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.AlluxioRuntime) {
			ds.Spec.Mounts[1].MountPoint = "s3://imagenet/val" + h
		}},
		{"dataset spec.sharedEncryptOptions[0].name", func(ds *datav1alpha1.Dataset, _ *datav1alpha1.AlluxioRuntime) {
			ds.Spec.SharedEncryptOptions[0].Name = "aws.accessKeyId" + h
		}},
	} {
		ds, rt := sample()
		tc.set(ds, rt)
		_, err := alluxio.Engine{}.Values(ds, rt)
		enginetest.WantInvalid(t, err, tc.field)
	}
}

// readProperties reads a .properties file as Java does for the escapes
// the engine writes: \\, \n, \r, \t, \f and a leading "\ ".
func readProperties(text string) map[string]string {
	out := map[string]string{}
	for _, l := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(l, "=")
		if !ok || strings.HasPrefix(l, "#") {
			continue
		}
		var b strings.Builder
		for i := 0; i < len(v); i++ {
			if v[i] != '\\' || i+1 == len(v) {
				b.WriteByte(v[i])
				continue
			}
			i++
			b.WriteString(map[byte]string{'n': "\n", 'r': "\r", 't': "\t", 'f': "\f"}[v[i]])
			if !strings.ContainsRune("nrtf", rune(v[i])) {
				b.WriteByte(v[i])
			}
		}
		out[k] = b.String()
	}
	return out
}

// scriptArgs are the arguments of the script's `alluxio fs mount` of the
// Alluxio path, as /bin/sh reads them (secret ${VAR}s expand to "").
func scriptArgs(t *testing.T, script, path string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(script, "until mounted '"+path+"' || bin/alluxio fs mount ")
	args, _, ok2 := strings.Cut(rest, "; do sleep 10; done")
	if !ok || !ok2 {
		t.Fatalf("no mount of %s in the script:\n%s", path, script)
	}
	out, err := exec.Command("/bin/sh", "-c", `for a in `+args+`; do printf '%s\0' "$a"; done`).Output()
	if err != nil {
		t.Fatalf("sh reading %s: %v", args, err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}
