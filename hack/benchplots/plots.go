package main

import (
	"bytes"
	"fmt"
	"image/color"
	"maps"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// series is one benchmark drawn on a scale plot.
type series struct {
	bench benchID
	label string
}

// scaleTime draws the seconds to Bound of Sluice and of the floor.
func scaleTime(f *figures) ([]byte, error) {
	return scalePlot(f, "Datasets to Bound on the simulated cluster (50 kwok nodes, 2 cores)", "seconds until all N are Bound", unitBound,
		[]series{{benchBound, "Sluice"}, {benchFloor, "floor (the same objects, no Sluice)"}})
}

// scaleRSS draws the controller's peak RSS.
func scaleRSS(f *figures) ([]byte, error) {
	return scalePlot(f, "Controller peak RSS while N Datasets are bound", "peak RSS (MiB)", unitRSS,
		[]series{{benchBound, "Sluice controller"}})
}

// scalePlot draws, for each series present, every run's value in unit
// against N, and its least-squares line: solid over the counts measured,
// dashed from there to extrapolateTo.
func scalePlot(f *figures, title, yLabel, unit string, ss []series) ([]byte, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "Datasets (N)"
	p.Y.Label.Text = yLabel
	p.X.Min, p.Y.Min = 0, 0
	p.X.Max = extrapolateTo
	p.Legend.Top, p.Legend.Left = true, true
	drawn, top := 0, 0.0
	for i, s := range ss {
		byN := f.byCount[s.bench]
		if len(byN) == 0 {
			continue
		}
		drawn++
		var pts plotter.XYs
		for _, n := range slices.Sorted(maps.Keys(byN)) {
			vs, err := values(byN[n], unit)
			if err != nil {
				return nil, err
			}
			for _, v := range vs {
				pts = append(pts, plotter.XY{X: float64(n), Y: v})
				top = max(top, v)
			}
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.Color = plotutil.Color(i)
		sc.Shape = plotutil.Shape(i)
		p.Add(sc)
		l, ok, err := fitCounts(byN, unit)
		if err != nil {
			return nil, err
		}
		if !ok {
			p.Legend.Add(s.label+" (one N measured: no line)", sc)
			continue
		}
		last := slices.Max(slices.Collect(maps.Keys(byN)))
		measured, err := plotter.NewLine(plotter.XYs{{X: 0, Y: l.at(0)}, {X: float64(last), Y: l.at(float64(last))}})
		if err != nil {
			return nil, err
		}
		beyond, err := plotter.NewLine(plotter.XYs{{X: float64(last), Y: l.at(float64(last))}, {X: extrapolateTo, Y: l.at(extrapolateTo)}})
		if err != nil {
			return nil, err
		}
		measured.Color, beyond.Color = plotutil.Color(i), plotutil.Color(i)
		beyond.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(measured, beyond)
		top = max(top, l.at(0), l.at(extrapolateTo))
		p.Legend.Add(fmt.Sprintf("%s: %s; %s at N=%d", s.label, l, strconv.FormatFloat(l.at(extrapolateTo), 'f', 0, 64), extrapolateTo), sc, measured)
	}
	if drawn == 0 {
		return nil, fmt.Errorf("%w of %s", errNoResults, benchNames(ss))
	}
	// Room above the data for the legend.
	p.Y.Max = top * 1.3
	return svg(p, 16*vg.Centimeter, 10*vg.Centimeter)
}

func benchNames(ss []series) string {
	var out string
	for i, s := range ss {
		if i > 0 {
			out += " or "
		}
		out += s.bench.String()
	}
	return out
}

// admissionCases are BenchmarkAdmission's sub-benchmarks, in the order drawn.
var admissionCases = []string{"affinity/cached", "affinity/uncached", "sidecar/cached", "sidecar/uncached"}

// admission draws the median p50 and p99 of each admission case present.
func admission(f *figures) ([]byte, error) {
	byCase := f.byCase[benchAdmission]
	var names []string
	var p50, p99 plotter.Values
	for _, c := range admissionCases {
		runs := byCase[c]
		if len(runs) == 0 {
			continue
		}
		a, err := medianOf(runs, unitP50)
		if err != nil {
			return nil, err
		}
		b, err := medianOf(runs, unitP99)
		if err != nil {
			return nil, err
		}
		names, p50, p99 = append(names, c), append(p50, a), append(p99, b)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%w of %s (%v)", errNoResults, benchAdmission, admissionCases)
	}
	top := slices.Max(p99)
	p := plot.New()
	p.Title.Text = "Mutating admission latency (1,000 Bound Datasets cached)"
	p.Y.Label.Text = "µs per Pod (median of runs)"
	// Room above the bars for the legend.
	p.Y.Min, p.Y.Max = 0, top*1.25
	w := vg.Points(18)
	for i, set := range []struct {
		label string
		vs    plotter.Values
	}{{"p50", p50}, {"p99", p99}} {
		bars, err := plotter.NewBarChart(set.vs, w)
		if err != nil {
			return nil, err
		}
		bars.Color = plotutil.Color(i)
		bars.LineStyle.Width = 0
		bars.Offset = w * vg.Length(2*i-1) / 2
		p.Add(bars)
		p.Legend.Add(set.label, bars)
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.NominalX(names...)
	return svg(p, 16*vg.Centimeter, 9*vg.Centimeter)
}

// dataLoads draws the median DataLoads Complete per second at each N.
func dataLoads(f *figures) ([]byte, error) {
	byN := f.byCount[benchLoads]
	if len(byN) == 0 {
		return nil, fmt.Errorf("%w of %s", errNoResults, benchLoads)
	}
	var names []string
	var vs plotter.Values
	for _, n := range slices.Sorted(maps.Keys(byN)) {
		v, err := medianOf(byN[n], unitLoads)
		if err != nil {
			return nil, err
		}
		names, vs = append(names, fmt.Sprintf("%d DataLoads", n)), append(vs, v)
	}
	p := plot.New()
	p.Title.Text = "DataLoads to Complete on the simulated cluster (2 cores)"
	p.Y.Label.Text = "Complete per second (median)"
	p.Y.Min = 0
	bars, err := plotter.NewBarChart(vs, vg.Points(30))
	if err != nil {
		return nil, err
	}
	bars.Color = plotutil.Color(0)
	bars.LineStyle.Width = 0
	p.Add(bars)
	p.NominalX(names...)
	return svg(p, 12*vg.Centimeter, 8*vg.Centimeter)
}

// svg renders the plot as SVG on a white background, its axes' numbers
// as short as they can be (2500, not 2500.00).
func svg(p *plot.Plot, w, h vg.Length) ([]byte, error) {
	p.BackgroundColor = color.White
	p.Y.Tick.Marker = plainTicks{}
	if _, nominal := p.X.Tick.Marker.(plot.ConstantTicks); !nominal {
		p.X.Tick.Marker = plainTicks{}
	}
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	p.Legend.ThumbnailWidth = vg.Points(20)
	p.Legend.Padding = vg.Points(2)
	wt, err := p.WriterTo(w, h, "svg")
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// plainTicks are gonum's default ticks with their labels in %g.
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'g', -1, 64)
		}
	}
	return ticks
}
