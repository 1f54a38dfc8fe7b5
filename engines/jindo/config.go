package jindo

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// MetaDir is where a master keeps the namespace metadata (an emptyDir: the
// cache's metadata is rebuilt from the under-storage after a restart).
const MetaDir = "/var/lib/jindocache/meta"

// plan is everything the configuration is built from.
type plan struct {
	rt       *datav1alpha1.JindoRuntime
	ufs      ufs
	creds    creds
	cache    cache
	master   master
	worker   worker
	readOnly bool
}

// buildConfig assembles jindocache.cfg, jindosdk.cfg and cacheset.xml. The
// user's properties come last in their section and override the engine's:
// spec.properties in [jindocache-common], spec.master.properties in
// [jindocache-server], spec.worker.properties in [jindocache-worker] and
// spec.fuse.properties in the client sections. No section holds a secret.
func buildConfig(p plan) (config, error) {
	spec := p.rt.Spec
	c := config{
		Common:    union(map[string]string{"logger.consolelogger": "true"}, p.ufs.Common, p.creds.Common),
		Server:    map[string]string{},
		Worker:    map[string]string{},
		Client:    union(p.ufs.Client, p.creds.Client),
		SDKCommon: union(map[string]string{"logger.consolelogger": "true"}, p.creds.Common),
		CacheSets: p.ufs.CacheSets,
	}
	if p.master.Enabled {
		c.Server["namespace.rpc.port"] = strconv.Itoa(p.master.RPCPort)
		c.Server["namespace.meta-dir"] = MetaDir
		c.Server["namespace.backend.type"] = "rocksdb"
		if p.master.RaftConf != "" {
			c.Server["namespace.backend.type"] = "raft"
			c.Server["namespace.backend.raft.initial-conf"] = p.master.RaftConf
		}
		c.Client["fs.jindocache.namespace.rpc.address"] = p.master.Address
	}
	if p.worker.Enabled {
		c.Worker["storage.rpc.port"] = strconv.Itoa(p.worker.RPCPort)
		c.Worker["storage.data-dirs"] = strings.Join(p.cache.DataDirs, ",")
		c.Worker["storage.data-dirs.capacities"] = strings.Join(p.cache.Capacities, ",")
		if p.cache.High != "" {
			c.Worker["storage.watermark.high.ratio"] = p.cache.High
		}
		if p.cache.Low != "" {
			c.Worker["storage.watermark.low.ratio"] = p.cache.Low
		}
		c.Client["fs.jindocache.storage.rpc.port"] = strconv.Itoa(p.worker.RPCPort)
		ram := p.cache.Medium == datav1alpha1.Memory
		c.Client["fs.jindocache.ram.cache.enable"] = strconv.FormatBool(ram)
		if ram {
			c.Worker["storage.ram.cache.size"] = jindoSize(p.cache.TotalBytes)
		}
	}
	if p.readOnly {
		c.Client["fs.jindocache.read.only.enable"] = "true"
	}
	user := []struct {
		field string
		props map[string]string
		into  []map[string]string
	}{
		{"spec.logConfig", spec.LogConfig, []map[string]string{c.Common}},
		{"spec.properties", spec.Properties, []map[string]string{c.Common}},
		{"spec.master.properties", spec.Master.Properties, []map[string]string{c.Server}},
		{"spec.worker.properties", spec.Worker.Properties, []map[string]string{c.Worker}},
		{"spec.fuse.logConfig", spec.Fuse.LogConfig, []map[string]string{c.SDKCommon}},
		{"spec.fuse.properties", spec.Fuse.Properties, []map[string]string{c.Client}},
	}
	for _, u := range user {
		for _, k := range slices.Sorted(maps.Keys(u.props)) {
			if secretLike(k) {
				return config{}, engines.Invalid("%s[%s]: credentials must come from a Secret (spec.secret or the dataset's encryptOptions), not plain properties", u.field, k)
			}
			if err := checkProperty(u.field, k, u.props[k]); err != nil {
				return config{}, err
			}
			for _, m := range u.into {
				m[k] = u.props[k]
			}
		}
	}
	c.SDK = union(c.Client)
	return c, nil
}

// checkProperty rejects a key or value that would break the INI file.
func checkProperty(field, k, v string) error {
	if k == "" || strings.ContainsAny(k, "=[]\r\n \t") {
		return engines.Invalid("%s: property name %q may not be empty or contain '=', brackets or whitespace", field, k)
	}
	if strings.ContainsAny(v, "\r\n") {
		return engines.Invalid("%s[%s]: property values must be on one line", field, k)
	}
	return nil
}

// secretLike says whether a property name carries a credential, which must
// never be written to the ConfigMap.
func secretLike(k string) bool {
	k = strings.ToLower(k)
	return slices.ContainsFunc([]string{"accesskey", "secretkey", "secret", "password", "token"}, func(s string) bool {
		return strings.Contains(k, s)
	})
}

func union(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}
