package juicefs

import (
	"fmt"
	"slices"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

var _ engines.MountChecker = Engine{}

// identityCredentials are the encrypt options that say which volume the
// Dataset is: its metadata URL (community edition) or its token
// (enterprise edition).
var identityCredentials = []string{"metaurl", "token"}

// formatFixed are the juicefs format settings of an existing volume that
// juicefs format refuses to change ("cannot update volume …", JuiceFS
// v1.2.1 pkg/meta/config.go) or ignores (the encryption key and algorithm),
// and force, which would overwrite the volume's settings.
var formatFixed = []string{"block-size", "compress", "shards", "hash-prefix", "encrypt-rsa-key", "encrypt-algo", "force"}

// CheckMountEdit implements engines.MountChecker. A bound JuiceFS Dataset
// is its one volume: its mount point (the volume and sub-directory
// mounted), its name (the volume's name), its metadata URL or token, and
// the format settings an existing volume keeps cannot change. Other
// options (mount flags, the object storage's bucket and keys, capacity and
// the like, which juicefs format updates) reach the workers, whose pods
// restart with them, and each node's FUSE when its pod is recreated.
func (Engine) CheckMountEdit(applied []datav1alpha1.Mount, ds *datav1alpha1.Dataset) []engines.Finding {
	cur := engines.EffectiveMounts(ds)
	if len(applied) == 0 || len(cur) == 0 {
		return nil
	}
	was, now := applied[0], cur[0]
	var out []engines.Finding
	refuse := func(path, what, from, to string) {
		out = append(out, engines.Finding{Path: path, Support: engines.Refused, Message: fmt.Sprintf(
			"%s of the JuiceFS volume a bound Dataset mounts cannot change (was %s, now %s); give the other volume a Dataset of its own", what, show(from), show(to))})
	}
	if was.MountPoint != now.MountPoint {
		refuse("spec.mounts[0].mountPoint", "the mount point (the volume's sub-directory)", optionValue(was.MountPoint, was.MountPoint != ""), optionValue(now.MountPoint, true))
	}
	if was.Name != now.Name {
		refuse("spec.mounts[0].name", "the name", optionValue(was.Name, was.Name != ""), optionValue(now.Name, now.Name != ""))
	}
	for _, name := range identityCredentials {
		if a, b := encryptOption(was, name), encryptOption(now, name); a != b {
			refuse(engines.EncryptOptionPath(ds, 0, name), "the "+name+" Secret reference", a, b)
		}
	}
	if a, b := encryptOption(was, "encrypt-rsa-key"), encryptOption(now, "encrypt-rsa-key"); a != b {
		out = append(out, fixedSetting(engines.EncryptOptionPath(ds, 0, "encrypt-rsa-key"), "encrypt-rsa-key", a, b))
	}
	for _, k := range formatFixed {
		a, aok := was.Options[k]
		b, bok := now.Options[k]
		if a != b || aok != bok {
			out = append(out, fixedSetting(engines.OptionPath(ds, 0, k), k, optionValue(a, aok), optionValue(b, bok)))
		}
	}
	return out
}

// fixedSetting refuses the change of a format setting an existing volume
// keeps (from and to as optionValue or encryptOption print them).
func fixedSetting(path, k, from, to string) engines.Finding {
	return engines.Finding{Path: path, Support: engines.Refused, Message: fmt.Sprintf(
		"juicefs format keeps %s of an existing volume (was %s, now %s): a bound Dataset's volume is formatted; change it with juicefs config on the volume, or format a new volume for a new Dataset",
		k, show(from), show(to))}
}

// encryptOption says which Secret key an encrypt option of m reads, ""
// when m has none of that name.
func encryptOption(m datav1alpha1.Mount, name string) string {
	i := slices.IndexFunc(m.EncryptOptions, func(e datav1alpha1.EncryptOption) bool { return e.Name == name })
	if i < 0 {
		return ""
	}
	ref := m.EncryptOptions[i].ValueFrom.SecretKeyRef
	return "Secret " + ref.Name + " key " + ref.Key
}

// optionValue prints a set value quoted, an unset one as "".
func optionValue(v string, ok bool) string {
	if !ok {
		return ""
	}
	return fmt.Sprintf("%q", v)
}

// show prints a value in a refusal, "unset" for an empty one.
func show(s string) string {
	if s != "" {
		return s
	}
	return "unset"
}
