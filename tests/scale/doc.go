// Package scale benchmarks the controller on the simulated cluster, as a
// `sluice controller` process (bin/sluice): N Datasets with JuiceFS
// runtimes applied at once and reconciled to Bound, reporting the time to
// bind them all and the controller's peak resident memory; and N Datasets
// each with a DataLoad, to every DataLoad Complete, reporting also the API
// requests the controller and all clients sent.
//
//	make build sim-binaries && go test ./tests/scale -run '^$' -bench . -benchtime=1x
package scale
