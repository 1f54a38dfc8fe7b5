// Package jindo is the JindoCache engine (the default implementation of
// Fluid's JindoRuntime): a JindoRuntime and its Dataset become the values of
// charts/jindo, which runs a namespace master StatefulSet, cache worker
// StatefulSet and a FUSE DaemonSet sharing one generated configuration
// (jindocache.cfg, jindosdk.cfg and cacheset.xml in ConfigMap <name>-config).
//
// Credentials never enter the values or the ConfigMap: the Dataset's
// encryptOptions and the runtime's spec.secret become Secret volumes mounted
// at /token, which the configuration names only as a provider location.
//
// Cache states come from the masters' Prometheus page (Engine.CacheMetrics,
// cluster-wide): the namespace service serves it over HTTP on its RPC
// port (container port "rpc", 8101 by default; MetricsSource.PortName).
// Used disk and memory capacity are the cached bytes; local and remote reads
// are hits, backend (under-storage) reads misses. The evidence is JindoFSx
// 4.x documentation, which names the jindofsx_ns_* gauges and moved the
// page between /metrics/prometheus, /jindometrics/prometheus and
// /jindo_metrics/prometheus; the controller tries them, newest first
// (MetricsSource.Paths). JindoCache 6.x's endpoint and names are not
// independently verified, so the paths or names may need adjusting; a page
// without the capacity gauges is an error, never an empty cache. Fluid
// itself reads capacities only, through `jindocache -report` on the master.
package jindo
