// Command benchplots draws the benchmark figures of docs/benchmarks.md from
// `go test -bench` output (read with golang.org/x/perf/benchfmt), with
// gonum.org/v1/plot:
//
//   - scale-time.svg: seconds until N Datasets are Bound against N, for
//     Sluice (BenchmarkDatasetsToBound) and for the floor under it
//     (BenchmarkFloorObjectsToBound: the same objects written without
//     Sluice), each with its least-squares line extrapolated to 5,000;
//   - scale-rss.svg: the controller's peak RSS against N, with its line;
//   - admission.svg: the mutating webhook's p50 and p99 latency for
//     data-affinity and FUSE-sidecar Pods with the decision cache warm and
//     disabled (BenchmarkAdmission);
//   - dataloads.svg: DataLoads Complete per second (BenchmarkDataLoadsToComplete);
//   - scale.md: the scale runs as a table, with Sluice's time as a multiple
//     of the floor's and the requests per Dataset of each.
//
// A benchmark is known by its package (the output's "pkg:" line) and name.
// Where a benchmark ran more than once with the same N or case, points show
// every run and bars and the table the median. A figure whose benchmark is
// absent from the input is not drawn, and benchplots says so; a malformed
// benchmark line, or a result without the metric its figure needs, is an
// error naming the file and line.
//
//	go run ./hack/benchplots -in docs/bench -out docs/bench   # make bench-plots
package main
