package testobj

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// DatasetOption changes a Dataset under construction.
type DatasetOption func(*datav1alpha1.Dataset)

// Dataset returns a Dataset with one mount, changed by opts.
func Dataset(name, namespace string, opts ...DatasetOption) *datav1alpha1.Dataset {
	d := &datav1alpha1.Dataset{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: datav1alpha1.DatasetSpec{
			Mounts: []datav1alpha1.Mount{{MountPoint: "s3://bucket/" + name, Name: name}},
		},
	}
	for _, o := range opts {
		o(d)
	}
	return d
}

// WithMounts replaces the Dataset's mounts by one mount per mount point.
// A juicefs:// mount gets the metaurl encrypt option every JuiceFS Dataset
// needs, from the Secret <dataset>-juicefs (key metaurl), which no test
// creates: nothing reads it without a kubelet.
func WithMounts(mountPoints ...string) DatasetOption {
	return func(d *datav1alpha1.Dataset) {
		d.Spec.Mounts = nil
		for _, mp := range mountPoints {
			m := datav1alpha1.Mount{MountPoint: mp}
			if strings.HasPrefix(mp, "juicefs://") {
				m.EncryptOptions = []datav1alpha1.EncryptOption{{Name: "metaurl", ValueFrom: datav1alpha1.EncryptOptionSource{
					SecretKeyRef: datav1alpha1.SecretKeySelector{Name: d.Name + "-juicefs", Key: "metaurl"}}}}
			}
			d.Spec.Mounts = append(d.Spec.Mounts, m)
		}
	}
}

// Level returns a tieredstore level with the given medium, path and quota.
func Level(medium datav1alpha1.MediumType, path, quota string) datav1alpha1.Level {
	l := datav1alpha1.Level{MediumType: medium, Path: path}
	if quota != "" {
		q := resource.MustParse(quota)
		l.Quota = &q
	}
	return l
}

// JuiceFSRuntime returns a JuiceFSRuntime with the given replicas and levels.
func JuiceFSRuntime(name, namespace string, replicas int32, levels ...datav1alpha1.Level) *datav1alpha1.JuiceFSRuntime {
	return &datav1alpha1.JuiceFSRuntime{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: datav1alpha1.JuiceFSRuntimeSpec{
			Replicas:    replicas,
			TieredStore: datav1alpha1.TieredStore{Levels: levels},
		},
	}
}

// DataLoad returns a DataLoad of the named Dataset.
func DataLoad(name, namespace, dataset string) *datav1alpha1.DataLoad {
	return &datav1alpha1.DataLoad{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec:       datav1alpha1.DataLoadSpec{Dataset: datav1alpha1.TargetDataset{Name: dataset}},
	}
}
