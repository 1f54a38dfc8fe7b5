// Package scale benchmarks the controller as a `sluice controller` process
// (bin/sluice). On the simulated cluster: N Datasets with JuiceFS runtimes
// applied at once and reconciled to Bound, reporting the time to bind them
// all, the controller's peak resident memory and its requests per Dataset;
// the floor under that figure, the same cluster given the same objects by
// the benchmark itself, without Sluice; and N Datasets each with a
// DataLoad, to every DataLoad Complete, reporting also the API requests the
// controller and all clients sent. Against a bare API server and etcd: the
// cache-refresh loop with N bound Datasets whose pods serve metrics pages,
// reporting the time to refresh them all and the CPU time and API requests
// one refresh costs.
//
//	make build sim-binaries && go test ./tests/scale -run '^$' -bench . -benchtime=1x
package scale
