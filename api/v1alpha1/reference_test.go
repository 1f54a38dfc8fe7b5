package v1alpha1

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

func TestParseReference(t *testing.T) {
	for _, c := range []struct {
		mountPoint string
		want       DatasetReference
		err        string // part of the error; "" for none
	}{
		{"dataset://default/phy", DatasetReference{Namespace: "default", Name: "phy"}, ""},
		{"dataset://default/phy/", DatasetReference{Namespace: "default", Name: "phy"}, ""},
		{" dataset://team-a/imagenet/train/2024 ", DatasetReference{Namespace: "team-a", Name: "imagenet", SubPath: "train/2024"}, ""},
		{"dataset://team-a/imagenet/train/", DatasetReference{Namespace: "team-a", Name: "imagenet", SubPath: "train"}, ""},
		{"dataset://default", DatasetReference{}, "names no Dataset"},
		{"dataset://default/", DatasetReference{}, "names no Dataset"},
		{"dataset:///phy", DatasetReference{}, "names no Dataset"},
		{"dataset://Team/phy", DatasetReference{}, "is not a namespace name"},
		{"dataset://default/9phy", DatasetReference{}, "is not a Dataset name"},
		{"dataset://default/phy/../other", DatasetReference{}, `".."`},
		{"dataset://default/phy/a//b", DatasetReference{}, "empty"},
		{"dataset://default/phy/./a", DatasetReference{}, `"."`},
		{"s3://bucket/x", DatasetReference{}, "is not a dataset:// mount point"},
	} {
		got, err := ParseReference(c.mountPoint)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%q: %v", c.mountPoint, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: error %v, want one saying %q", c.mountPoint, err, c.err)
		case got != c.want:
			t.Errorf("%q: %+v, want %+v", c.mountPoint, got, c.want)
		}
	}
}

func TestReferenceOf(t *testing.T) {
	ds := func(mps ...string) *Dataset {
		d := &Dataset{}
		for _, mp := range mps {
			d.Spec.Mounts = append(d.Spec.Mounts, Mount{MountPoint: mp})
		}
		return d
	}
	if _, ok, err := ReferenceOf(ds("s3://a/b", "pvc://c")); ok || err != nil {
		t.Errorf("a Dataset without dataset:// mounts: ok %v, %v", ok, err)
	}
	if r, ok, err := ReferenceOf(ds("dataset://ns/phy/sub")); !ok || err != nil || r.Key() != "ns/phy" || r.SubPath != "sub" {
		t.Errorf("one dataset:// mount: %+v, %v, %v", r, ok, err)
	}
	if _, ok, err := ReferenceOf(ds("s3://a/b", "dataset://ns/phy")); !ok || err == nil || !strings.Contains(err.Error(), "that one mount only") {
		t.Errorf("dataset:// with another mount: ok %v, %v", ok, err)
	}
	if _, ok, err := ReferenceOf(ds("dataset://ns")); !ok || err == nil || !strings.Contains(err.Error(), "spec.mounts[0].mountPoint") {
		t.Errorf("a malformed dataset:// mount: ok %v, %v", ok, err)
	}
}

func TestReferenceCopyName(t *testing.T) {
	if got := ReferenceCopyName("refdemo", "phy-config"); got != "refdemo-phy-config" {
		t.Errorf("short: %q", got)
	}
	long := strings.Repeat("c", 250)
	a, b := ReferenceCopyName("refdemo", long), ReferenceCopyName("refdem0", long)
	for _, n := range []string{a, b} {
		if errs := validation.IsDNS1123Subdomain(n); len(errs) > 0 {
			t.Errorf("%q is not an object name: %v", n, errs)
		}
	}
	if a == b {
		t.Errorf("two long names cut to the same copy name %q", a)
	}
}

func TestObjectsReadByAndRename(t *testing.T) {
	c := corev1.Container{
		Env: []corev1.EnvVar{
			{Name: "A", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "env-cm"}}}},
			{Name: "B", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "metaurl"}}}},
			{Name: "C", Value: "plain"},
		},
		EnvFrom: []corev1.EnvFromSource{
			{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "from-cm"}}},
			{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "from-secret"}}},
		},
		VolumeMounts: []corev1.VolumeMount{{Name: "config"}, {Name: "creds"}, {Name: "both"}},
	}
	vols := []corev1.Volume{
		{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "phy-config"}}}},
		{Name: "creds", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "keys"}}},
		{Name: "both", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "phy-config"}}},
			{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "keys"}}},
		}}}},
		{Name: "unmounted", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "other"}}}},
	}
	cms, secrets := ObjectsReadBy(&c, vols)
	if strings.Join(cms, ",") != "env-cm,from-cm,phy-config" || strings.Join(secrets, ",") != "from-secret,keys,metaurl" {
		t.Fatalf("ConfigMaps %v, Secrets %v", cms, secrets)
	}
	RenameConfigMaps(&c, vols, func(n string) string { return "ref-" + n })
	cms, secrets = ObjectsReadBy(&c, vols)
	if strings.Join(cms, ",") != "ref-env-cm,ref-from-cm,ref-phy-config" || strings.Join(secrets, ",") != "from-secret,keys,metaurl" {
		t.Errorf("after renaming: ConfigMaps %v, Secrets %v", cms, secrets)
	}
	if vols[3].ConfigMap.Name != "other" {
		t.Errorf("a volume the container does not mount was renamed: %q", vols[3].ConfigMap.Name)
	}
}
