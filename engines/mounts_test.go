package engines_test

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

func secret(name, key string) datav1alpha1.EncryptOptionSource {
	return datav1alpha1.EncryptOptionSource{SecretKeyRef: datav1alpha1.SecretKeySelector{Name: name, Key: key}}
}

// TestEffectiveMounts: each mount gets the shared options under its own
// and the shared encrypt options before its own, a mount's own replacing a
// shared one of its name in place; empty options are nil.
func TestEffectiveMounts(t *testing.T) {
	ds := &datav1alpha1.Dataset{Spec: datav1alpha1.DatasetSpec{
		Mounts: []datav1alpha1.Mount{
			{MountPoint: "s3://b/a", Options: map[string]string{"region": "eu", "own": "1"},
				EncryptOptions: []datav1alpha1.EncryptOption{{Name: "secret", ValueFrom: secret("own", "k")}, {Name: "extra", ValueFrom: secret("own", "x")}}},
			{MountPoint: "s3://b/b", Options: map[string]string{}},
		},
		SharedOptions:        map[string]string{"region": "us", "endpoint": "e"},
		SharedEncryptOptions: []datav1alpha1.EncryptOption{{Name: "access", ValueFrom: secret("shared", "a")}, {Name: "secret", ValueFrom: secret("shared", "s")}},
	}}
	got := engines.EffectiveMounts(ds)
	want := []datav1alpha1.Mount{
		{MountPoint: "s3://b/a", Options: map[string]string{"region": "eu", "own": "1", "endpoint": "e"},
			EncryptOptions: []datav1alpha1.EncryptOption{{Name: "access", ValueFrom: secret("shared", "a")}, {Name: "secret", ValueFrom: secret("own", "k")}, {Name: "extra", ValueFrom: secret("own", "x")}}},
		{MountPoint: "s3://b/b", Options: map[string]string{"region": "us", "endpoint": "e"},
			EncryptOptions: []datav1alpha1.EncryptOption{{Name: "access", ValueFrom: secret("shared", "a")}, {Name: "secret", ValueFrom: secret("shared", "s")}}},
	}
	if !engines.SameMounts(got, want) {
		t.Fatalf("effective mounts:\n%+v\nwant\n%+v", got, want)
	}
	if ds.Spec.Mounts[0].Options["endpoint"] != "" || len(ds.Spec.Mounts[0].EncryptOptions) != 2 {
		t.Errorf("EffectiveMounts changed the Dataset: %+v", ds.Spec.Mounts[0])
	}
	bare := engines.EffectiveMounts(&datav1alpha1.Dataset{Spec: datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{{MountPoint: "s3://b/c", Options: map[string]string{}}}}})
	if bare[0].Options != nil || bare[0].EncryptOptions != nil {
		t.Errorf("empty options are not nil: %+v", bare[0])
	}
	if engines.EffectiveMounts(&datav1alpha1.Dataset{}) != nil {
		t.Error("a Dataset without mounts has effective mounts")
	}
}

// TestSameMounts: nil and empty options compare equal, every field counts.
func TestSameMounts(t *testing.T) {
	a := []datav1alpha1.Mount{{MountPoint: "s3://b/a", Options: map[string]string{}}}
	if !engines.SameMounts(a, []datav1alpha1.Mount{{MountPoint: "s3://b/a"}}) || !engines.SameMounts(nil, nil) {
		t.Error("empty and nil options differ")
	}
	for name, b := range map[string]datav1alpha1.Mount{
		"mountPoint": {MountPoint: "s3://b/b"}, "name": {MountPoint: "s3://b/a", Name: "n"}, "path": {MountPoint: "s3://b/a", Path: "/p"},
		"readOnly": {MountPoint: "s3://b/a", ReadOnly: true}, "shared": {MountPoint: "s3://b/a", Shared: true},
		"options":        {MountPoint: "s3://b/a", Options: map[string]string{"k": "v"}},
		"encryptOptions": {MountPoint: "s3://b/a", EncryptOptions: []datav1alpha1.EncryptOption{{Name: "k", ValueFrom: secret("s", "k")}}},
	} {
		if engines.SameMounts(a, []datav1alpha1.Mount{b}) {
			t.Errorf("a change of %s is not a change", name)
		}
	}
	if engines.SameMounts(a, append(a, a...)) {
		t.Error("a second mount is not a change")
	}
}

// TestMountsDigestAndJobName: the digest follows the effective mounts and
// the Dataset's identity; the Job name stays a label value.
func TestMountsDigestAndJobName(t *testing.T) {
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "d"},
		Spec: datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{{MountPoint: "s3://b/a"}}}}
	d := engines.MountsDigest(ds)
	if len(d) != 16 || engines.MountsDigest(ds.DeepCopy()) != d {
		t.Fatalf("digest %q is not stable", d)
	}
	other := ds.DeepCopy()
	other.Namespace = "m"
	shared := ds.DeepCopy()
	shared.Spec.SharedOptions = map[string]string{"k": "v"}
	unrelated := ds.DeepCopy()
	unrelated.Spec.Placement = datav1alpha1.ShareMode
	if engines.MountsDigest(other) == d || engines.MountsDigest(shared) == d || engines.MountsDigest(unrelated) != d {
		t.Errorf("digests: other namespace %s, shared options %s, placement %s; of %s", engines.MountsDigest(other), engines.MountsDigest(shared), engines.MountsDigest(unrelated), d)
	}
	if got := engines.MountJobName("d", d); got != "d-mounts-"+d[:10] {
		t.Errorf("job name %q", got)
	}
	long := strings.Repeat("a", 63)
	if got := engines.MountJobName(long, d); len(got) > 63 || !strings.HasSuffix(got, "-mounts-"+d[:10]) {
		t.Errorf("job name of a 63-character runtime: %q (%d)", got, len(got))
	}
}

// TestOptionPaths: a refusal names the field that sets the option.
func TestOptionPaths(t *testing.T) {
	ds := &datav1alpha1.Dataset{Spec: datav1alpha1.DatasetSpec{
		Mounts:               []datav1alpha1.Mount{{Options: map[string]string{"own": "1"}, EncryptOptions: []datav1alpha1.EncryptOption{{Name: "x"}, {Name: "metaurl"}}}},
		SharedOptions:        map[string]string{"shared": "1"},
		SharedEncryptOptions: []datav1alpha1.EncryptOption{{Name: "token"}},
	}}
	for got, want := range map[string]string{
		engines.OptionPath(ds, 0, "own"):               `spec.mounts[0].options["own"]`,
		engines.OptionPath(ds, 0, "shared"):            `spec.sharedOptions["shared"]`,
		engines.OptionPath(ds, 0, "gone"):              `spec.mounts[0].options["gone"]`,
		engines.EncryptOptionPath(ds, 0, "metaurl"):    "spec.mounts[0].encryptOptions[1]",
		engines.EncryptOptionPath(ds, 0, "token"):      "spec.sharedEncryptOptions[0]",
		engines.EncryptOptionPath(ds, 0, "not-there"):  "spec.mounts[0].encryptOptions",
		engines.EncryptOptionPath(ds, 3, "not-either"): "spec.mounts[3].encryptOptions",
	} {
		if got != want {
			t.Errorf("path %q, want %q", got, want)
		}
	}
}
