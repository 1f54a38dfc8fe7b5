// Package metrics exports the Datasets' and runtimes' status as Prometheus
// metrics on the controller's metrics endpoint (controller-runtime's
// registry): cache figures, phases, ready and desired replicas and UFS
// sizes, read from the manager's cache at each scrape so that a deleted
// object's series go with it, plus Fluid's controller metrics
// (dataset_ufs_total_size, dataset_ufs_file_num, runtime_setup_error_total,
// runtime_sync_healthcheck_error_total) under Fluid's names and labels.
// docs/monitoring.md lists them.
package metrics
