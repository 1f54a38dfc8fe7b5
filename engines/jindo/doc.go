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
// The engine does not implement engines.CacheReporter. The documented
// Prometheus page is JindoFSx's (the namespace service's jindofsx_ns_*
// gauges); no metric names are documented for JindoCache 6.x, which Fluid
// itself reads through `jindocache -report` on the master instead.
package jindo
