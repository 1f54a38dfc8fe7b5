package thin

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

const (
	// ConfigDir is where the FUSE and worker containers find ConfigFile.
	ConfigDir = "/etc/fluid/config"
	// ConfigFile is the key of the FUSE config ConfigMap and the file name.
	ConfigFile = "config.json"
	// ConfigPath is the FuseConfig document inside the containers, where
	// FUSE images written for Fluid's ThinRuntime read it.
	ConfigPath = ConfigDir + "/" + ConfigFile
	// SecretRoot holds one directory per Secret that encrypt options name:
	// SecretRoot/<secret>/<key> is a file with that key's value.
	SecretRoot = "/etc/fluid/secrets"
)

// FuseConfig is the JSON document (one line) at ConfigPath that tells the
// FUSE program what to mount.
type FuseConfig struct {
	// Mounts are the Dataset's mounts.
	Mounts []ConfigMount `json:"mounts"`
	// TargetPath is where the program mounts the dataset: FusePath, which
	// is the same path on the node and in the container.
	TargetPath string `json:"targetPath"`
	// RuntimeOptions are the merged spec.fuse.options.
	RuntimeOptions map[string]string `json:"runtimeOptions,omitempty"`
	// AccessModes are the Dataset's, ReadOnlyMany when it sets none.
	AccessModes []corev1.PersistentVolumeAccessMode `json:"accessModes"`
}

// ConfigMount is one Dataset mount as the FUSE program sees it.
type ConfigMount struct {
	MountPoint string `json:"mountPoint"`
	Name       string `json:"name,omitempty"`
	// Path is where the mount appears in the dataset: spec path, else /<name>.
	Path     string `json:"path"`
	ReadOnly bool   `json:"readOnly,omitempty"`
	Shared   bool   `json:"shared,omitempty"`
	// Options are sharedOptions, then the mount's options, then for each
	// encrypt option (shared ones first) the path of its secret file.
	Options map[string]string `json:"options,omitempty"`
}

// secretMount is one Secret projected under SecretRoot.
type secretMount struct {
	Volume     string   `json:"volume"`
	SecretName string   `json:"secretName"`
	MountPath  string   `json:"mountPath"`
	Keys       []string `json:"keys"`
}

// SecretFile is the path of a Secret key's file in the FUSE container.
func SecretFile(secret, key string) string { return path.Join(SecretRoot, secret, key) }

// fuseConfig describes the Dataset's mounts for the FUSE program and lists
// the Secrets (and keys) its encrypt options reference.
func fuseConfig(ds *datav1alpha1.Dataset, fuseOptions map[string]string) (FuseConfig, []secretMount, error) {
	where := fmt.Sprintf("Dataset %s/%s", ds.Namespace, ds.Name)
	if len(ds.Spec.Mounts) == 0 {
		return FuseConfig{}, nil, engines.Invalid("%s: spec.mounts is empty; the Thin FUSE program needs at least one mount", where)
	}
	secrets := map[string]map[string]bool{}
	shared, err := encryptFiles(where+" spec.sharedEncryptOptions", ds.Spec.SharedEncryptOptions, secrets)
	if err != nil {
		return FuseConfig{}, nil, err
	}
	names, paths := map[string]int{}, map[string]int{}
	cfg := FuseConfig{TargetPath: FusePath(ds.Namespace, ds.Name), RuntimeOptions: fuseOptions, AccessModes: ds.Spec.AccessModes}
	if len(cfg.AccessModes) == 0 {
		cfg.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany}
	}
	for i, m := range ds.Spec.Mounts {
		field := fmt.Sprintf("%s spec.mounts[%d]", where, i)
		if strings.TrimSpace(m.MountPoint) == "" {
			return FuseConfig{}, nil, engines.Invalid("%s.mountPoint is empty", field)
		}
		if j, dup := names[m.Name]; dup && m.Name != "" {
			return FuseConfig{}, nil, engines.Invalid("%s.name %q repeats spec.mounts[%d].name", field, m.Name, j)
		}
		names[m.Name] = i
		p := mountPath(m)
		if j, dup := paths[p]; dup {
			return FuseConfig{}, nil, engines.Invalid("%s: path %q repeats the path of spec.mounts[%d] (path defaults to /<name>)", field, p, j)
		}
		paths[p] = i
		own, err := encryptFiles(field+".encryptOptions", m.EncryptOptions, secrets)
		if err != nil {
			return FuseConfig{}, nil, err
		}
		cfg.Mounts = append(cfg.Mounts, ConfigMount{
			MountPoint: m.MountPoint, Name: m.Name, Path: p, ReadOnly: m.ReadOnly, Shared: m.Shared,
			Options: mergeMap(mergeMap(mergeMap(ds.Spec.SharedOptions, m.Options), shared), own),
		})
	}
	return cfg, secretMounts(secrets), nil
}

// mountPath is a mount's place in the dataset: its path, else /<name>.
func mountPath(m datav1alpha1.Mount) string {
	if m.Path != "" {
		return path.Clean("/" + m.Path)
	}
	return path.Clean("/" + m.Name)
}

// encryptFiles maps each option's name to its secret file and records the
// Secret key it needs.
func encryptFiles(field string, opts []datav1alpha1.EncryptOption, secrets map[string]map[string]bool) (map[string]string, error) {
	out := map[string]string{}
	for i, o := range opts {
		ref := o.ValueFrom.SecretKeyRef
		switch {
		case o.Name == "":
			return nil, engines.Invalid("%s[%d].name is empty", field, i)
		case ref.Name == "":
			return nil, engines.Invalid("%s[%d] (%s): valueFrom.secretKeyRef.name is empty", field, i, o.Name)
		case ref.Key == "":
			return nil, engines.Invalid("%s[%d] (%s): valueFrom.secretKeyRef.key is empty; the FUSE program reads one key of Secret %q as a file",
				field, i, o.Name, ref.Name)
		}
		if secrets[ref.Name] == nil {
			secrets[ref.Name] = map[string]bool{}
		}
		secrets[ref.Name][ref.Key] = true
		out[o.Name] = SecretFile(ref.Name, ref.Key)
	}
	return out, nil
}

// secretMounts lists the Secrets in name order, each with its sorted keys.
func secretMounts(secrets map[string]map[string]bool) []secretMount {
	names := slices.Sorted(maps.Keys(secrets))
	out := make([]secretMount, 0, len(names))
	for i, n := range names {
		keys := make([]string, 0, len(secrets[n]))
		for k := range secrets[n] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out = append(out, secretMount{Volume: fmt.Sprintf("thin-secret-%d", i), SecretName: n, MountPath: path.Join(SecretRoot, n), Keys: keys})
	}
	return out
}
