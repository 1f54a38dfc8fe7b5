package jindo

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// objectStores are the schemes JindoCache reads with access keys.
var objectStores = []string{"oss", "s3", "cos", "obs"}

// ufsRoot is where pvc:// under-storage is mounted in every container.
const ufsRoot = "/underFSStorage"

// Cache-set options a mount may set, with their allowed values (first is
// the default).
var cacheSetOptions = map[string][]string{
	"cacheStrategy": {"DISTRIBUTED", "DHT"},
	"metaPolicy":    {"ALWAYS", "ONCE"},
	"writePolicy":   {"WRITE_AROUND", "WRITE_THROUGH", "CACHE_ONLY"},
}

// ufs is what the Dataset's mounts contribute to the release.
type ufs struct {
	CacheSets []cacheSet
	Volumes   []ufsVolume
	// Common are jindocache.* properties (servers); Client are fs.*
	// properties (FUSE and SDK clients).
	Common, Client map[string]string
	// Schemes are the object-store schemes the mounts use, sorted.
	Schemes []string
}

// ufsOf turns the Dataset's mounts into cache sets, volumes and under-storage
// properties. Each mount appears in the FUSE mount as /<name> (name defaults
// to mount-<index>).
func ufsOf(ds *datav1alpha1.Dataset) (ufs, error) {
	if len(ds.Spec.Mounts) == 0 {
		return ufs{}, engines.Invalid("dataset %s/%s: spec.mounts is empty; JindoCache needs an under-storage to cache", ds.Namespace, ds.Name)
	}
	u := ufs{Common: map[string]string{}, Client: map[string]string{}}
	owners := map[string]string{}
	names := map[string]bool{}
	for i, m := range ds.Spec.Mounts {
		field := fmt.Sprintf("dataset spec.mounts[%d]", i)
		name := m.Name
		if name == "" {
			name = fmt.Sprintf("mount-%d", i)
		}
		if names[name] || strings.ContainsAny(name, "/ \t\n<>&") {
			return ufs{}, engines.Invalid("%s.name %q: mount names must be unique and may not contain spaces or any of /<>&", field, name)
		}
		names[name] = true
		if m.Path != "" && path.Clean(m.Path) != "/"+name {
			return ufs{}, engines.Invalid("%s.path %q: JindoCache shows each mount at /<name>, here /%s", field, m.Path, name)
		}
		opts := engines.Merge(ds.Spec.SharedOptions, m.Options)
		cs, err := cacheSetOf(field, name, opts)
		if err != nil {
			return ufs{}, err
		}
		scheme, rest, _ := strings.Cut(m.MountPoint, "://")
		switch {
		case slices.Contains(objectStores, scheme), scheme == "hdfs":
			cs.Path = strings.TrimSuffix(m.MountPoint, "/") + "/"
			if slices.Contains(objectStores, scheme) && !slices.Contains(u.Schemes, scheme) {
				u.Schemes = append(u.Schemes, scheme)
			}
		case scheme == "local":
			if !path.IsAbs(rest) {
				return ufs{}, engines.Invalid("%s.mountPoint %q: local:// needs an absolute host path, e.g. local:///data", field, m.MountPoint)
			}
			dir := path.Clean(rest)
			u.Volumes = append(u.Volumes, ufsVolume{Name: fmt.Sprintf("ufs-%d", i), HostPath: dir, MountPath: dir, ReadOnly: m.ReadOnly})
			cs.Path = "local://" + strings.TrimSuffix(dir, "/") + "/"
		case scheme == "pvc":
			claim, sub, _ := strings.Cut(rest, "/")
			if claim == "" {
				return ufs{}, engines.Invalid("%s.mountPoint %q: pvc:// needs a claim name, e.g. pvc://data/sub", field, m.MountPoint)
			}
			dir := ufsRoot + "/" + name
			u.Volumes = append(u.Volumes, ufsVolume{Name: fmt.Sprintf("ufs-%d", i), ClaimName: claim, SubPath: strings.Trim(sub, "/"), MountPath: dir, ReadOnly: m.ReadOnly})
			cs.Path = "local://" + dir + "/"
		default:
			return ufs{}, engines.Invalid("%s.mountPoint %q: JindoCache reads oss://, s3://, cos://, obs://, hdfs://, local:// and pvc:// under-storage", field, m.MountPoint)
		}
		if err := ufsProperties(&u, owners, field, scheme, rest, opts); err != nil {
			return ufs{}, err
		}
		u.CacheSets = append(u.CacheSets, cs)
	}
	slices.Sort(u.Schemes)
	return u, nil
}

// cacheSetOf reads a mount's cache-set options; every other option must be
// an fs.* property.
func cacheSetOf(field, name string, opts map[string]string) (cacheSet, error) {
	set := map[string]string{}
	for k, allowed := range cacheSetOptions {
		set[k] = allowed[0]
		if v, ok := opts[k]; ok {
			if !slices.Contains(allowed, v) {
				return cacheSet{}, engines.Invalid("%s.options[%s] is %q; use one of %s", field, k, v, strings.Join(allowed, ", "))
			}
			set[k] = v
		}
	}
	for k := range opts {
		if _, ok := cacheSetOptions[k]; !ok && !strings.HasPrefix(k, "fs.") {
			return cacheSet{}, engines.Invalid("%s.options[%s]: JindoCache takes fs.* properties and cacheStrategy, metaPolicy, writePolicy", field, k)
		}
	}
	if set["metaPolicy"] != "ONCE" && (set["writePolicy"] == "CACHE_ONLY" || set["cacheStrategy"] == "DHT") {
		return cacheSet{}, engines.Invalid("%s.options: writePolicy CACHE_ONLY and cacheStrategy DHT need metaPolicy ONCE", field)
	}
	return cacheSet{Name: name, CacheStrategy: set["cacheStrategy"], MetaPolicy: set["metaPolicy"], ReadPolicy: "CACHE_ASIDE", WritePolicy: set["writePolicy"]}, nil
}

// ufsProperties adds a mount's fs.* options: servers read them as
// jindocache.*, clients as fs.*. An oss:// mount's fs.oss.endpoint applies to
// its bucket only, so buckets in different regions can share a dataset.
func ufsProperties(u *ufs, owners map[string]string, field, scheme, rest string, opts map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		v := opts[k]
		if !strings.HasPrefix(k, "fs.") {
			continue
		}
		if secretLike(k) {
			return engines.Invalid("%s.options[%s]: credentials must come from encryptOptions (a Secret reference), not plain options", field, k)
		}
		if err := checkProperty(field+".options", k, v); err != nil {
			return err
		}
		key := strings.TrimPrefix(k, "fs.")
		if scheme == "oss" && k == "fs.oss.endpoint" {
			bucket, _, _ := strings.Cut(rest, "/")
			key = "oss.bucket." + bucket + ".endpoint"
		}
		if prev, ok := owners[key]; ok && u.Client["fs."+key] != v {
			return engines.Invalid("%s.options[%s]=%q conflicts with the value %s sets", field, k, v, prev)
		}
		owners[key] = field
		u.Common["jindocache."+key], u.Client["fs."+key] = v, v
	}
	if scheme == "oss" {
		bucket, _, _ := strings.Cut(rest, "/")
		if bucket == "" {
			return engines.Invalid("%s.mountPoint: oss:// needs a bucket, e.g. oss://bucket/prefix", field)
		}
		if opts["fs.oss.endpoint"] == "" {
			return engines.Invalid("%s.options[fs.oss.endpoint] is required for oss:// mounts (or set it in spec.sharedOptions)", field)
		}
	}
	return nil
}
