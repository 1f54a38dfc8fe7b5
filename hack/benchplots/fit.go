package main

import (
	"fmt"
	"maps"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// extrapolateTo is the Dataset count the scale lines reach: the largest
// `make bench-scale` measures.
const extrapolateTo = 5000

// line is a least-squares line y = a + b·x.
type line struct{ a, b float64 }

func (l line) at(x float64) float64 { return l.a + l.b*x }

func (l line) String() string { return fmt.Sprintf("%.3g + %.3g·N", l.a, l.b) }

// fitCounts fits a line through every run's value in unit against its
// count. It needs runs at two counts at least; ok is false otherwise.
func fitCounts(byN map[int][]result, unit string) (l line, ok bool, err error) {
	var xs, ys []float64
	for _, n := range slices.Sorted(maps.Keys(byN)) {
		vs, err := values(byN[n], unit)
		if err != nil {
			return line{}, false, err
		}
		for _, v := range vs {
			xs, ys = append(xs, float64(n)), append(ys, v)
		}
	}
	if len(byN) < 2 {
		return line{}, false, nil
	}
	l.a, l.b = stat.LinearRegression(xs, ys, nil, false)
	return l, true, nil
}
