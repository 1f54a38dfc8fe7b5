package juicefs_test

import (
	"strings"
	"testing"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/juicefs"
)

// TestJuiceFSMountEdits: a bound JuiceFS Dataset's volume identity (mount
// point, name, metadata URL or token) and the format settings an existing
// volume keeps cannot change; mount flags and the settings juicefs format
// updates can.
func TestJuiceFSMountEdits(t *testing.T) {
	metaurl := datav1alpha1.EncryptOption{Name: "metaurl", ValueFrom: datav1alpha1.EncryptOptionSource{SecretKeyRef: datav1alpha1.SecretKeySelector{Name: "jfs", Key: "metaurl"}}}
	base := datav1alpha1.Mount{MountPoint: "juicefs:///data", Name: "vol", Options: map[string]string{"block-size": "4096", "cache-size": "1024"},
		EncryptOptions: []datav1alpha1.EncryptOption{metaurl}}
	applied := engines.EffectiveMounts(&datav1alpha1.Dataset{Spec: datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{base}}})
	for _, c := range []struct {
		name    string
		change  func(*datav1alpha1.Dataset)
		refused []string // the fields refused, in order
	}{
		{"unchanged", func(*datav1alpha1.Dataset) {}, nil},
		{"mount flag", func(ds *datav1alpha1.Dataset) { ds.Spec.Mounts[0].Options["cache-size"] = "2048" }, nil},
		{"bucket (juicefs format updates it)", func(ds *datav1alpha1.Dataset) { ds.Spec.SharedOptions = map[string]string{"bucket": "http://b"} }, nil},
		{"read-only", func(ds *datav1alpha1.Dataset) { ds.Spec.Mounts[0].ReadOnly = true }, nil},
		{"sub-directory", func(ds *datav1alpha1.Dataset) { ds.Spec.Mounts[0].MountPoint = "juicefs:///other" }, []string{"spec.mounts[0].mountPoint"}},
		{"volume name", func(ds *datav1alpha1.Dataset) { ds.Spec.Mounts[0].Name = "other" }, []string{"spec.mounts[0].name"}},
		{"metadata URL", func(ds *datav1alpha1.Dataset) {
			ds.Spec.Mounts[0].EncryptOptions[0].ValueFrom.SecretKeyRef.Name = "other"
		},
			[]string{"spec.mounts[0].encryptOptions[0]"}},
		{"block size", func(ds *datav1alpha1.Dataset) { ds.Spec.Mounts[0].Options["block-size"] = "8192" }, []string{`spec.mounts[0].options["block-size"]`}},
		{"block size removed", func(ds *datav1alpha1.Dataset) { delete(ds.Spec.Mounts[0].Options, "block-size") }, []string{`spec.mounts[0].options["block-size"]`}},
		{"compression through sharedOptions", func(ds *datav1alpha1.Dataset) { ds.Spec.SharedOptions = map[string]string{"compress": "lz4"} },
			[]string{`spec.sharedOptions["compress"]`}},
		{"token added", func(ds *datav1alpha1.Dataset) {
			ds.Spec.SharedEncryptOptions = []datav1alpha1.EncryptOption{{Name: "token", ValueFrom: metaurl.ValueFrom}}
		}, []string{"spec.sharedEncryptOptions[0]"}},
	} {
		ds := &datav1alpha1.Dataset{Spec: datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{*base.DeepCopy()}}}
		c.change(ds)
		got := juicefs.Engine{}.CheckMountEdit(applied, ds)
		var paths []string
		for _, f := range got {
			paths = append(paths, f.Path)
			if f.Support != engines.Refused || !strings.Contains(f.Message, "was ") {
				t.Errorf("%s: %+v", c.name, f)
			}
		}
		if strings.Join(paths, ",") != strings.Join(c.refused, ",") {
			t.Errorf("%s: refused %v, want %v", c.name, got, c.refused)
		}
	}
}
