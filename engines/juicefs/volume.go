package juicefs

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// edition is the JuiceFS edition a Dataset's credentials select, as Fluid
// selects it: a metaurl is the community edition's metadata engine, a
// token the enterprise edition's (JuiceFS's cloud service or an on-premises
// console).
type edition int

const (
	// community formats the volume (juicefs format) and mounts it by its
	// metadata URL.
	community edition = iota
	// enterprise authorises the volume (juicefs auth, which writes
	// /root/.juicefs/<name>.conf) and mounts it by name.
	enterprise
)

// volume is what a JuiceFS Dataset says about its one volume.
type volume struct {
	edition edition
	// name is the volume's name: the mount's name, else the Dataset's.
	name string
	// subdir is the mount point's path (juicefs:///<subdir>), "" for the root.
	subdir string
	// setup are the flags of juicefs format (community) or juicefs auth
	// (enterprise).
	setup []flag
	// mount are the Dataset's options that are mount flags (community) or
	// mount.juicefs -o options (enterprise).
	mount []flag
	// quotaGiB, when > 0, is the subdir's quota (juicefs quota set).
	quotaGiB int64
}

// volumeName is the name juicefs format accepts (JuiceFS v1.2.1
// cmd/format.go).
var volumeName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$`)

// mountScheme is the prefix of a JuiceFS mount point; its path is the
// sub-directory mounted.
const mountScheme = "juicefs://"

// credentialOptions are option names that would put a credential in a
// plain option; they must come from encryptOptions.
var credentialOptions = []string{"metaurl", "token", "access-key", "secret-key", "session-token", "access-key2", "secret-key2", "encrypt-rsa-key"}

// parseVolume reads the Dataset's one mount, its options and encrypt
// options, and the runtime's configs (extra format or auth flags).
func parseVolume(ds *datav1alpha1.Dataset, configs *[]string) (volume, error) {
	if len(ds.Spec.Mounts) > 1 {
		return volume{}, engines.Invalid("dataset spec.mounts[1] (%q): a JuiceFS Dataset mounts one volume, spec.mounts[0]; give each volume a Dataset of its own", ds.Spec.Mounts[1].MountPoint)
	}
	m := ds.Spec.Mounts[0]
	if m.Path != "" && path.Clean(m.Path) != "/" {
		return volume{}, engines.Invalid("dataset spec.mounts[0].path: %q: a JuiceFS Dataset is its one volume, at the root; mount a sub-directory with juicefs:///<dir> instead", m.Path)
	}
	v := volume{name: m.Name}
	if v.name == "" {
		v.name = ds.Name
	}
	if !volumeName.MatchString(v.name) {
		return volume{}, engines.Invalid("dataset spec.mounts[0].name: %q is the JuiceFS volume name (the Dataset's name when empty); use 3 to 63 lower-case letters, digits and '-', starting and ending with a letter or digit", v.name)
	}
	sub, ok := strings.CutPrefix(m.MountPoint, mountScheme)
	if !ok {
		return volume{}, engines.Invalid("dataset spec.mounts[0].mountPoint: %q is not juicefs:///<sub-directory>", m.MountPoint)
	}
	if sub != "" && !strings.HasPrefix(sub, "/") {
		return volume{}, engines.Invalid("dataset spec.mounts[0].mountPoint: %q: the sub-directory is an absolute path, juicefs:///%s", m.MountPoint, sub)
	}
	if sub = path.Clean("/" + sub); sub != "/" {
		v.subdir = sub
	}
	if err := v.readSecrets(ds); err != nil {
		return volume{}, err
	}
	if err := v.readOptions(ds); err != nil {
		return volume{}, err
	}
	if configs != nil {
		for i, c := range *configs {
			f, err := v.configFlag(fmt.Sprintf("spec.configs[%d]", i), strings.TrimSpace(c))
			if err != nil {
				return volume{}, err
			}
			v.setup = append(v.setup, f)
		}
	}
	return v, nil
}

// readSecrets selects the edition and turns the credentials into setup
// flags whose values the kubelet expands from the Secret-backed
// environment (datasetSecrets).
func (v *volume) readSecrets(ds *datav1alpha1.Dataset) error {
	type named struct {
		field string
		name  string
	}
	var all []named
	for i, eo := range ds.Spec.SharedEncryptOptions {
		all = append(all, named{fmt.Sprintf("dataset spec.sharedEncryptOptions[%d].name", i), eo.Name})
	}
	for i, eo := range ds.Spec.Mounts[0].EncryptOptions {
		all = append(all, named{fmt.Sprintf("dataset spec.mounts[0].encryptOptions[%d].name", i), eo.Name})
	}
	has := func(n string) bool { return slices.ContainsFunc(all, func(x named) bool { return x.name == n }) }
	if has("token") && has("metaurl") {
		return engines.Invalid("dataset encryptOptions: metaurl (JuiceFS community edition) and token (enterprise edition) exclude each other")
	}
	if has("token") {
		v.edition = enterprise
	}
	seen := map[string]bool{}
	for _, n := range all {
		if seen[n.name] {
			continue // sharedEncryptOptions then the mount's: one flag, the mount's Secret (the later variable) wins
		}
		seen[n.name] = true
		f, err := v.secretFlag(n.field, n.name)
		if err != nil {
			return err
		}
		if f.Name != "" {
			v.setup = append(v.setup, f)
		}
	}
	if !has("token") && !has("metaurl") {
		return engines.Invalid("dataset %s", missingCredentials)
	}
	return nil
}

// eeSecretFlags are the enterprise edition's juicefs auth flags for
// encrypt options (Fluid's and JuiceFS's cloud documentation: juicefs auth
// NAME --token --accesskey --secretkey).
var eeSecretFlags = map[string]string{"token": "token", "access-key": "accesskey", "secret-key": "secretkey", "access-key2": "accesskey2", "secret-key2": "secretkey2"}

// secretFlag is the setup flag of an encrypt option; metaurl is the
// mount's source, not a flag (Name "").
func (v *volume) secretFlag(field, name string) (flag, error) {
	ref := "$(" + envName(name) + ")"
	if v.edition == enterprise {
		if f, ok := eeSecretFlags[name]; ok {
			return flag{Name: f, Value: ref, Secret: true}, nil
		}
		return flag{}, engines.Invalid("%s: %q is not read by juicefs auth (JuiceFS enterprise edition reads token, access-key, secret-key, access-key2, secret-key2)", field, name)
	}
	if name == "metaurl" {
		return flag{}, nil
	}
	if isBool, ok := formatFlags[name]; ok && !isBool && name != "storage" && name != "bucket" {
		return flag{Name: name, Value: ref, Secret: true}, nil
	}
	return flag{}, engines.Invalid("%s: %q is not read by JuiceFS community edition: metaurl is the volume's metadata URL, the others are juicefs format flags (access-key, secret-key, session-token...); token is the enterprise edition's and excludes metaurl", field, name)
}

// readOptions routes the Dataset's options (sharedOptions under the
// mount's, as Fluid merges them) to juicefs format (storage, bucket and
// the other format flags) or juicefs mount (mount flags); a name that is
// neither is refused.
func (v *volume) readOptions(ds *datav1alpha1.Dataset) error {
	opts := engines.Merge(ds.Spec.SharedOptions, ds.Spec.Mounts[0].Options)
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		field := "dataset spec.mounts[0].options"
		if _, ok := ds.Spec.Mounts[0].Options[k]; !ok {
			field = "dataset spec.sharedOptions"
		}
		if err := v.option(fmt.Sprintf("%s[%q]", field, k), k, opts[k]); err != nil {
			return err
		}
	}
	return nil
}

func (v *volume) option(field, k, val string) error {
	if slices.Contains(credentialOptions, k) {
		return engines.Invalid("%s: a credential; give it in encryptOptions, as a Secret reference", field)
	}
	if k == "quota" {
		return v.quota(field, val)
	}
	if v.edition == enterprise {
		// Fluid's juicefs auth takes bucket and bucket2; the rest are
		// mount.juicefs -o options of the closed-source client.
		if k == "bucket" || k == "bucket2" {
			v.setup = append(v.setup, flag{Name: k, Value: val})
			return nil
		}
		f, err := eeOption(field, k, val)
		v.mount = append(v.mount, f)
		return err
	}
	isBool, isFormat := isBoolFlag(formatFlags, k)
	_, isMount := isBoolFlag(mountFlags, k)
	if k == "storage" || k == "bucket" { // mount has them too, as endpoints to override; Fluid formats with them
		isMount = false
	}
	if !isFormat && !isMount {
		return engines.Invalid("%s: %q is neither a juicefs format nor a juicefs mount flag (JuiceFS v1.2.1)", field, k)
	}
	if isFormat {
		if k == "force" {
			return engines.Invalid("%s: juicefs format --force would overwrite the volume's format each time a pod starts", field)
		}
		f, err := valueFlag(field, k, val, isBool)
		if err != nil {
			return err
		}
		v.setup = append(v.setup, f)
	}
	if isMount {
		f, err := mountFlag(field, k, val)
		if err != nil {
			return err
		}
		v.mount = append(v.mount, f...)
	}
	return nil
}

// quota is Fluid's quota option: the sub-directory's capacity in GiB, set
// by juicefs quota set before mounting.
func (v *volume) quota(field, val string) error {
	q, err := resource.ParseQuantity(val)
	if err != nil {
		return engines.Invalid("%s: %q is not a quantity: %v", field, val, err)
	}
	if v.quotaGiB = q.Value() >> 30; v.quotaGiB < 1 {
		return engines.Invalid("%s: %q is below 1Gi, the smallest quota JuiceFS sets", field, val)
	}
	if v.subdir == "" {
		return engines.Invalid("%s: a quota applies to a sub-directory; mount one (juicefs:///<dir>)", field)
	}
	return nil
}

// configFlag is one of spec.configs ("name=value" or "name"): a flag of
// juicefs format (community) or juicefs auth (enterprise), as Fluid
// passes them.
func (v *volume) configFlag(field, c string) (flag, error) {
	k, val, _ := strings.Cut(c, "=")
	k = strings.TrimPrefix(k, "--")
	if err := engines.CheckOptions(field, map[string]string{k: val}); err != nil {
		return flag{}, err
	}
	if slices.Contains(credentialOptions, k) {
		return flag{}, engines.Invalid("%s: %q is a credential; give it in the Dataset's encryptOptions, as a Secret reference", field, k)
	}
	if v.edition == enterprise {
		return flag{Name: k, Value: val, Bool: val == ""}, nil
	}
	isBool, ok := isBoolFlag(formatFlags, k)
	if !ok || k == "force" {
		return flag{}, engines.Invalid("%s: %q is not a juicefs format flag Sluice passes (JuiceFS v1.2.1; --force is refused)", field, k)
	}
	return valueFlag(field, k, val, isBool)
}
