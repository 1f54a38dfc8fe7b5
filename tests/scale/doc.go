// Package scale benchmarks the controller on the simulated cluster: N
// Datasets with JuiceFS runtimes applied at once and reconciled to Bound by
// a `sluice controller` process (bin/sluice), reporting the time to bind
// them all and the controller's peak resident memory.
//
//	make build sim-binaries && go test ./tests/scale -run '^$' -bench . -benchtime=1x
package scale
