package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// benchID names a benchmark: its package below the module, a dot, and its
// name without "Benchmark".
type benchID string

func (b benchID) String() string {
	i := strings.LastIndex(string(b), ".")
	return string(b[:i]) + " Benchmark" + string(b[i+1:])
}

// module is the import path of the packages whose benchmarks are drawn.
const module = "github.com/sluice-data/sluice/"

// The benchmarks benchplots draws and the metrics it reads of them.
const (
	benchBound     benchID = "tests/scale.DatasetsToBound"
	benchFloor     benchID = "tests/scale.FloorObjectsToBound"
	benchAdmission benchID = "tests/bench.Admission"
	benchLoads     benchID = "tests/scale.DataLoadsToComplete"
)

const (
	unitBound    = "s-to-bound"
	unitRSS      = "peak-RSS-MiB"
	unitRequests = "requests/dataset"
	unitWrites   = "writes/dataset"
	unitP50      = "p50-µs"
	unitP99      = "p99-µs"
	unitLoads    = "dataloads/s"
)

// result is one benchmark result's metrics by unit, and where it was read.
type result struct {
	values map[string]float64
	pos    string
}

// need returns the result's value in unit, or an error naming the result.
func (r result) need(unit string) (float64, error) {
	v, ok := r.values[unit]
	if !ok {
		return 0, fmt.Errorf("%s: the result has no %s metric", r.pos, unit)
	}
	return v, nil
}

// figures are the results read, by benchmark (the "pkg" of the output
// and the name), then by the sub-benchmark's
// count (a single "key=N" part, e.g. datasets=100) or, for any other
// sub-benchmark, by its name ("affinity/cached").
type figures struct {
	byCount map[benchID]map[int][]result
	byCase  map[benchID]map[string][]result
}

// read reads the results of the files, in order.
func read(paths []string) (*figures, error) {
	f := &figures{byCount: map[benchID]map[int][]result{}, byCase: map[benchID]map[string][]result{}}
	files := &benchfmt.Files{Paths: paths}
	for files.Scan() {
		switch rec := files.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, rec
		case *benchfmt.Result:
			f.add(rec)
		}
	}
	if err := files.Err(); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *figures) add(rec *benchfmt.Result) {
	file, line := rec.Pos()
	r := result{values: map[string]float64{}, pos: fmt.Sprintf("%s:%d", file, line)}
	for _, v := range rec.Values {
		r.values[v.Unit] = v.Value
	}
	base, parts := rec.Name.Parts()
	var sub []string
	for _, p := range parts {
		if s, ok := strings.CutPrefix(string(p), "/"); ok {
			sub = append(sub, s)
		}
	}
	bench := benchID(strings.TrimPrefix(rec.GetConfig("pkg"), module) + "." + string(base))
	if len(sub) == 1 {
		if _, v, ok := strings.Cut(sub[0], "="); ok {
			if n, err := strconv.Atoi(v); err == nil {
				if f.byCount[bench] == nil {
					f.byCount[bench] = map[int][]result{}
				}
				f.byCount[bench][n] = append(f.byCount[bench][n], r)
				return
			}
		}
	}
	if f.byCase[bench] == nil {
		f.byCase[bench] = map[string][]result{}
	}
	name := strings.Join(sub, "/")
	f.byCase[bench][name] = append(f.byCase[bench][name], r)
}

// values are the runs' values in unit.
func values(runs []result, unit string) ([]float64, error) {
	out := make([]float64, 0, len(runs))
	for _, r := range runs {
		v, err := r.need(unit)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// median is the middle value of vs (the mean of the two middle ones for
// an even count); vs must not be empty.
func median(vs []float64) float64 {
	s := slices.Sorted(slices.Values(vs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// medianOf is the median of the runs' values in unit.
func medianOf(runs []result, unit string) (float64, error) {
	vs, err := values(runs, unit)
	if err != nil {
		return 0, err
	}
	return median(vs), nil
}
