package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// Labels. Sluice's series name a Dataset or runtime by namespace and name
// (so that prometheus-adapter maps them to the object); Fluid's keep
// Fluid's "namespace/name" key. runtime_type is the runtime's kind in
// lower case ("alluxioruntime"), as Fluid's controller metrics say it.
var (
	datasetLabels   = []string{"namespace", "dataset"}
	runtimeLabels   = []string{"namespace", "runtime", "runtime_type"}
	componentLabels = []string{"namespace", "runtime", "runtime_type", "component"}
)

// Per-Dataset metrics.
var (
	datasetPhase = prometheus.NewDesc("sluice_dataset_phase",
		"1 for the Dataset's status.phase, 0 for each other phase (none is 1 before the controller has seen the Dataset).",
		[]string{"namespace", "dataset", "phase"}, nil)
	ufsTotalBytes = prometheus.NewDesc("sluice_dataset_ufs_total_bytes",
		"The Dataset's size in its under storage (status.ufsTotal), when known.", datasetLabels, nil)
	ufsFiles = prometheus.NewDesc("sluice_dataset_ufs_files",
		"The number of files of the Dataset (status.fileNum), when known.", datasetLabels, nil)

	// Fluid's, with its label: dataset="namespace/name".
	fluidUFSTotalSize = prometheus.NewDesc("dataset_ufs_total_size",
		"Total size of files in dataset (Fluid's metric: status.ufsTotal in bytes).", []string{"dataset"}, nil)
	fluidUFSFileNum = prometheus.NewDesc("dataset_ufs_file_num",
		"Total num of files of a specific dataset (Fluid's metric: status.fileNum).", []string{"dataset"}, nil)
)

// datasetPhases are the phases sluice_dataset_phase has a series for.
var datasetPhases = []datav1alpha1.DatasetPhase{
	datav1alpha1.PendingDatasetPhase, datav1alpha1.NotBoundDatasetPhase, datav1alpha1.BoundDatasetPhase,
	datav1alpha1.FailedDatasetPhase, datav1alpha1.UpdatingDatasetPhase, datav1alpha1.DataMigratingDatasetPhase,
}

// cacheFigure is one entry of a Dataset's status.cacheStates, exported as
// a gauge of its own when the status holds it: the figure `kubectl get
// datasets` shows, in base units (bytes; ratios from 0 to 1).
type cacheFigure struct {
	state datav1alpha1.CacheStateName
	desc  *prometheus.Desc
	parse func(string) (float64, bool)
}

var cacheFigures = []cacheFigure{
	{datav1alpha1.Cached, prometheus.NewDesc("sluice_dataset_cached_bytes",
		"Data of the Dataset in its cache (status.cacheStates.cached, the CACHED column).", datasetLabels, nil), engines.ParseBytes},
	{datav1alpha1.CacheCapacity, prometheus.NewDesc("sluice_dataset_cache_capacity_bytes",
		"The Dataset's cache size (status.cacheStates.cacheCapacity, the CACHE CAPACITY column).", datasetLabels, nil), engines.ParseBytes},
	{datav1alpha1.CachedPercentage, prometheus.NewDesc("sluice_dataset_cached_ratio",
		"Share of the Dataset that is cached, 0 to 1 (status.cacheStates.cachedPercentage, the CACHED PERCENTAGE column).", datasetLabels, nil), engines.ParsePercent},
	{datav1alpha1.CacheHitRatio, prometheus.NewDesc("sluice_dataset_cache_hit_ratio",
		"Share of reads served from the cache, 0 to 1 (status.cacheStates.cacheHitRatio).", datasetLabels, nil), engines.ParsePercent},
	{datav1alpha1.CacheThroughputRatio, prometheus.NewDesc("sluice_dataset_cache_throughput_ratio",
		"Share of bytes read from the cache, 0 to 1 (status.cacheStates.cacheThroughputRatio).", datasetLabels, nil), engines.ParsePercent},
	{datav1alpha1.LocalHitRatio, prometheus.NewDesc("sluice_dataset_local_hit_ratio",
		"Share of reads served from the reader's node, 0 to 1 (status.cacheStates.localHitRatio), when the engine reports it.", datasetLabels, nil), engines.ParsePercent},
	{datav1alpha1.RemoteHitRatio, prometheus.NewDesc("sluice_dataset_remote_hit_ratio",
		"Share of reads served from another node's cache, 0 to 1 (status.cacheStates.remoteHitRatio), when the engine reports it.", datasetLabels, nil), engines.ParsePercent},
	{datav1alpha1.LocalThroughputRatio, prometheus.NewDesc("sluice_dataset_local_throughput_ratio",
		"Share of bytes read from the reader's node, 0 to 1 (status.cacheStates.localThroughputRatio), when the engine reports it.", datasetLabels, nil), engines.ParsePercent},
	{datav1alpha1.RemoteThroughputRatio, prometheus.NewDesc("sluice_dataset_remote_throughput_ratio",
		"Share of bytes read from another node's cache, 0 to 1 (status.cacheStates.remoteThroughputRatio), when the engine reports it.", datasetLabels, nil), engines.ParsePercent},
}

// Per-runtime metrics.
var (
	runtimeReady = prometheus.NewDesc("sluice_runtime_ready",
		"1 while the runtime's Ready condition is True, else 0.", runtimeLabels, nil)
	readyReplicas = prometheus.NewDesc("sluice_runtime_ready_replicas",
		"Ready replicas of a component (master, worker, fuse) of the runtime, from its status.", componentLabels, nil)
	desiredReplicas = prometheus.NewDesc("sluice_runtime_desired_replicas",
		"Desired replicas of a component (master, worker, fuse) of the runtime, from its status.", componentLabels, nil)

	// Fluid's, with its labels: runtime_type and runtime="namespace/name".
	fluidSetupErrors = prometheus.NewDesc("runtime_setup_error_total",
		"Total num of errors during runtime setup (Fluid's metric: failed reconciles before the Dataset was bound to the runtime).",
		[]string{"runtime_type", "runtime"}, nil)
	fluidHealthCheckErrors = prometheus.NewDesc("runtime_sync_healthcheck_error_total",
		"Total num of errors during runtime health check (Fluid's metric: reconciles of a bound runtime that found no ready master or worker).",
		[]string{"runtime_type", "runtime"}, nil)
)

// Data operations executing, by kind.
var operationsRunning = prometheus.NewDesc(OperationsRunningName,
	"Data operations executing (phase Executing; for Cron: a run executes), by kind.", []string{"kind"}, nil)

// allDescs are every metric the collector exports.
func allDescs() []*prometheus.Desc {
	d := []*prometheus.Desc{datasetPhase, ufsTotalBytes, ufsFiles, fluidUFSTotalSize, fluidUFSFileNum,
		runtimeReady, readyReplicas, desiredReplicas, fluidSetupErrors, fluidHealthCheckErrors, operationsRunning}
	for _, f := range cacheFigures {
		d = append(d, f.desc)
	}
	return d
}
