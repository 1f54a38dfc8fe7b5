package alluxio

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

const (
	rootOptionPrefix = "alluxio.master.mount.table.root."
	// localRoot is the master's empty root under storage when every dataset
	// mount is nested below "/".
	localRoot = "/underFSStorage"
	// ufsVolumeRoot is where local:// and pvc:// under storages appear in
	// the master and worker containers.
	ufsVolumeRoot = "/ufs"
)

// ufs is how a Dataset's mounts reach Alluxio. A sole mount at "/" is the
// root under storage, set by properties; every other mount is nested and
// mounted with `alluxio fs mount` once the master answers.
type ufs struct {
	props map[string]string
	// rootSecrets fill root mount options from Secrets, on the master.
	rootSecrets []secretOption
	// localRoot says the root under storage is the master's empty directory.
	localRoot bool
	nested    []nestedMount
	// nestedSecrets fill nested mounts' options, on the mounting sidecar
	// and the mount Job: one variable per Secret key (secretKeyEnv), so
	// that a nested mount reading keys other mounts read already adds no
	// variable to the master's pod, which would restart it.
	nestedSecrets []secretOption
	// volumes back local:// and pvc:// mounts on masters and workers.
	volumes []corev1.Volume
	mounts  []corev1.VolumeMount
}

// secretOption is a mount option whose value an environment variable takes
// from a Secret key.
type secretOption struct {
	env, option, secret, key string
}

// nestedMount is one `alluxio fs mount`: the Alluxio path and the command's
// arguments, shell-quoted, for the mount-ufs sidecar's script (secret
// values appear only as ${VAR} references); and, for the mount Job, the
// under storage and the flags as argv items in the kubelet's form
// (secret values as $(VAR) references).
type nestedMount struct {
	Path  string `json:"path"`
	Args  string `json:"args"`
	uri   string
	flags []string
}

// mountPathChars keeps Alluxio paths safe to match in the mount listing.
var mountPathChars = regexp.MustCompile(`^/[A-Za-z0-9._/-]*$`)

// planUFS maps the Dataset's mounts onto Alluxio's namespace: each mount at
// its path, or /<name> without one, as Fluid does.
func planUFS(ds *datav1alpha1.Dataset) (ufs, error) {
	u := ufs{props: map[string]string{}}
	if len(ds.Spec.Mounts) == 0 {
		return u, engines.Invalid("dataset %s/%s: spec.mounts is empty; Alluxio needs at least one under storage", ds.Namespace, ds.Name)
	}
	seen := map[string]bool{}
	for i, m := range ds.Spec.Mounts {
		field := fmt.Sprintf("dataset spec.mounts[%d]", i)
		p, err := alluxioPath(field, m, len(ds.Spec.Mounts) == 1)
		if err != nil {
			return u, err
		}
		if seen[p] {
			return u, engines.Invalid("%s: path %s is used by another mount", field, p)
		}
		seen[p] = true
		uri, err := u.underStorage(field, i, m)
		if err != nil {
			return u, err
		}
		opts := engines.Merge(ds.Spec.SharedOptions, m.Options)
		if err := checkKeys(field+".options", opts); err != nil {
			return u, err
		}
		secrets, err := secretOptions(ds, i)
		if err != nil {
			return u, err
		}
		for _, s := range secrets {
			delete(opts, s.option) // the Secret wins over a plain option of the same name
		}
		if p == "/" {
			if len(ds.Spec.Mounts) > 1 {
				return u, engines.Invalid("%s.path: only a dataset's sole mount may be Alluxio's root \"/\"", field)
			}
			u.root(uri, opts, m)
			u.rootSecrets = secrets
			continue
		}
		for j := range secrets {
			secrets[j].env = secretKeyEnv(secrets[j].secret, secrets[j].key)
		}
		u.nested = append(u.nested, nestedMount{Path: p, Args: mountArgs(p, uri, opts, secrets, m), uri: uri, flags: mountFlags(opts, secrets, m)})
		for _, s := range secrets {
			if !slices.ContainsFunc(u.nestedSecrets, func(o secretOption) bool { return o.env == s.env }) {
				u.nestedSecrets = append(u.nestedSecrets, s)
			}
		}
	}
	slices.SortFunc(u.nestedSecrets, func(a, b secretOption) int { return strings.Compare(a.env, b.env) })
	if len(u.nested) > 0 {
		u.localRoot = true
		u.props[rootOptionPrefix+"ufs"] = localRoot
	}
	return u, nil
}

// alluxioPath is where a mount appears in Alluxio: its path, or /<name>;
// a sole mount with neither is the root, as Fluid's Datasets expect.
func alluxioPath(field string, m datav1alpha1.Mount, sole bool) (string, error) {
	p := m.Path
	if p == "" {
		if m.Name == "" && sole {
			return "/", nil
		}
		if m.Name == "" {
			return "", engines.Invalid("%s: set name or path; the mount appears at path, or /<name>", field)
		}
		p = "/" + m.Name
	}
	if !mountPathChars.MatchString(p) {
		return "", engines.Invalid("%s: %q is not an absolute Alluxio path of letters, digits, '.', '_', '-' and '/'", field, p)
	}
	return path.Clean(p), nil
}

// underStorage returns the under-storage URI Alluxio mounts. local:// and
// pvc:// become volumes on masters and workers and are mounted as local
// directories; dataset:// is ThinRuntime's alone.
func (u *ufs) underStorage(field string, i int, m datav1alpha1.Mount) (string, error) {
	mp := strings.TrimSpace(m.MountPoint)
	if err := engines.CheckLine(field+".mountPoint", mp); err != nil {
		return "", err
	}
	scheme, rest, ok := strings.Cut(mp, "://")
	if !ok || scheme == "" {
		return "", engines.Invalid("%s.mountPoint: %q has no scheme such as s3://, hdfs:// or local://", field, mp)
	}
	name, dir := fmt.Sprintf("ufs-%d", i), fmt.Sprintf("%s/%d", ufsVolumeRoot, i)
	switch scheme {
	case "dataset":
		return "", engines.Invalid("%s.mountPoint: dataset:// mounts need a ThinRuntime, not Alluxio", field)
	case "local":
		if !path.IsAbs(rest) {
			return "", engines.Invalid("%s.mountPoint: %q must name an absolute host directory, e.g. local:///mnt/data", field, mp)
		}
		u.volumes = append(u.volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
			HostPath: &corev1.HostPathVolumeSource{Path: path.Clean(rest), Type: ptr.To(corev1.HostPathDirectory)}}})
		u.mounts = append(u.mounts, corev1.VolumeMount{Name: name, MountPath: dir, ReadOnly: m.ReadOnly})
		return dir, nil
	case "pvc":
		claim, sub, _ := strings.Cut(rest, "/")
		if claim == "" {
			return "", engines.Invalid("%s.mountPoint: %q must name a claim, e.g. pvc://my-claim/sub/dir", field, mp)
		}
		u.volumes = append(u.volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim, ReadOnly: m.ReadOnly}}})
		u.mounts = append(u.mounts, corev1.VolumeMount{Name: name, MountPath: dir, ReadOnly: m.ReadOnly})
		// Rooting sub before cleaning keeps ".." inside the claim.
		return path.Join(dir, path.Clean("/"+sub)), nil
	}
	return mp, nil
}

// root makes a mount the root under storage.
func (u *ufs) root(uri string, opts map[string]string, m datav1alpha1.Mount) {
	u.props[rootOptionPrefix+"ufs"] = uri
	for k, v := range opts {
		u.props[rootOptionPrefix+"option."+k] = v
	}
	if m.ReadOnly {
		u.props[rootOptionPrefix+"readonly"] = "true"
	}
	if m.Shared {
		u.props[rootOptionPrefix+"shared"] = "true"
	}
}

// secretOptions are mount i's encrypt options (the dataset's shared ones,
// overridden by the mount's own of the same name), each read by an
// environment variable named after the mount and option.
func secretOptions(ds *datav1alpha1.Dataset, i int) ([]secretOption, error) {
	type src struct {
		field string
		eo    datav1alpha1.EncryptOption
	}
	byName, order := map[string]src{}, []string{}
	add := func(field string, eos []datav1alpha1.EncryptOption) {
		for j, eo := range eos {
			if _, dup := byName[eo.Name]; !dup {
				order = append(order, eo.Name)
			}
			byName[eo.Name] = src{fmt.Sprintf("%s[%d]", field, j), eo}
		}
	}
	add("dataset spec.sharedEncryptOptions", ds.Spec.SharedEncryptOptions)
	add(fmt.Sprintf("dataset spec.mounts[%d].encryptOptions", i), ds.Spec.Mounts[i].EncryptOptions)
	out, envs := []secretOption{}, map[string]string{}
	for _, name := range order {
		s := byName[name]
		ref := s.eo.ValueFrom.SecretKeyRef
		switch {
		case !propertyKey.MatchString(name):
			return nil, engines.Invalid("%s.name: %q is not an option name (letters, digits, '.', '_' and '-' only)", s.field, name)
		case ref.Name == "" || ref.Key == "":
			return nil, engines.Invalid("%s.valueFrom.secretKeyRef: name and key must both be set", s.field)
		}
		env := fmt.Sprintf("UFS%d_%s", i, envSuffix(name))
		if other, dup := envs[env]; dup {
			return nil, engines.Invalid("%s.name: %q and %q differ only in punctuation; rename one", s.field, other, name)
		}
		envs[env] = name
		out = append(out, secretOption{env: env, option: name, secret: ref.Name, key: ref.Key})
	}
	return out, nil
}

// secretKeyEnv is the environment variable that reads key of Secret
// secret for nested mounts: UFS_SECRET_ and 12 hex digits of their
// SHA-256.
func secretKeyEnv(secret, key string) string {
	sum := sha256.Sum256([]byte(secret + "\x00" + key))
	return "UFS_SECRET_" + strings.ToUpper(hex.EncodeToString(sum[:6]))
}

// envSuffix turns an option name (aws.secretKey) into an environment
// variable part (AWS_SECRETKEY).
func envSuffix(s string) string {
	return strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(s))
}

// mountArgs are the arguments of `alluxio fs mount` for a nested mount.
// Plain options are single-quoted; secret ones expand their variable when
// the script runs.
func mountArgs(p, uri string, opts map[string]string, secrets []secretOption, m datav1alpha1.Mount) string {
	var args []string
	if m.ReadOnly {
		args = append(args, "--readonly")
	}
	if m.Shared {
		args = append(args, "--shared")
	}
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		args = append(args, "--option", shellQuote(k+"="+opts[k]))
	}
	for _, s := range secrets {
		args = append(args, "--option", fmt.Sprintf(`"%s=${%s}"`, s.option, s.env))
	}
	return strings.Join(append(args, shellQuote(p), shellQuote(uri)), " ")
}

// mountFlags are the flags of `alluxio fs mount` (and of `alluxio fs
// updateMount`, which takes the same) for a nested mount, one argv item
// each: literal parts through dataop.NoExpand, secret options as the
// $(VAR) the kubelet expands from the container's environment.
func mountFlags(opts map[string]string, secrets []secretOption, m datav1alpha1.Mount) []string {
	var flags []string
	if m.ReadOnly {
		flags = append(flags, "--readonly")
	}
	if m.Shared {
		flags = append(flags, "--shared")
	}
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		flags = append(flags, "--option", dataop.NoExpand(k+"="+opts[k]))
	}
	for _, s := range secrets {
		flags = append(flags, "--option", dataop.NoExpand(s.option+"=")+"$("+s.env+")")
	}
	return flags
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// secretEnv is the environment that reads secret options from Secrets.
func secretEnv(secrets []secretOption) []corev1.EnvVar {
	out := make([]corev1.EnvVar, 0, len(secrets))
	for _, s := range secrets {
		out = append(out, corev1.EnvVar{Name: s.env, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: s.secret}, Key: s.key}}})
	}
	return out
}
