// Package alluxio is the Alluxio engine: an AlluxioRuntime and its Dataset
// become the values of charts/alluxio (a master StatefulSet with its job
// master, a worker StatefulSet with its job workers, a FUSE DaemonSet and the
// ConfigMap of alluxio-site.properties they read), and the leading master's
// Prometheus page becomes cache counters.
//
// Secret mount options (Dataset encryptOptions) never reach the values or
// the ConfigMap: they become environment variables read from their Secrets,
// referenced by name where Alluxio needs them.
package alluxio
