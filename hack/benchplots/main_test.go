package main

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadFixture: results are grouped by benchmark and count or case,
// -v log lines and other packages' results among them.
func TestReadFixture(t *testing.T) {
	f, err := read([]string{"testdata/results.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(f.byCount[benchBound][100]); got != 2 {
		t.Fatalf("DatasetsToBound at 100: %d runs, want 2", got)
	}
	if m, err := medianOf(f.byCount[benchBound][100], unitBound); err != nil || m != 14 {
		t.Errorf("median s-to-bound at 100 = %v, %v; want 14 (13 and 15)", m, err)
	}
	if v, err := f.byCount[benchFloor][500][0].need(unitWrites); err != nil || v != 5 {
		t.Errorf("floor writes/dataset at 500 = %v, %v; want 5", v, err)
	}
	if v, err := f.byCase[benchAdmission]["sidecar/uncached"][0].need(unitP99); err != nil || v != 290 {
		t.Errorf("admission sidecar/uncached p99 = %v, %v; want 290", v, err)
	}
	if _, err := f.byCount[benchLoads][100][0].need(unitP50); err == nil || !strings.Contains(err.Error(), "testdata/results.txt:") {
		t.Errorf("a missing metric: %v, want an error naming the file and line", err)
	}
}

// TestFitExtrapolates: the least-squares line through points on a line is
// that line, and it needs two counts.
func TestFitExtrapolates(t *testing.T) {
	byN := map[int][]result{
		100:  {{values: map[string]float64{unitBound: 3}}},
		1000: {{values: map[string]float64{unitBound: 12}}, {values: map[string]float64{unitBound: 12}}},
	}
	l, ok, err := fitCounts(byN, unitBound)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if got := l.at(extrapolateTo); got < 51.999 || got > 52.001 {
		t.Errorf("at 5000: %v, want 52 (2 + 0.01·N)", got)
	}
	delete(byN, 1000)
	if _, ok, _ := fitCounts(byN, unitBound); ok {
		t.Error("a line through one count")
	}
}

// TestRunWritesEveryFigure draws the fixture: four SVG documents and the
// table, whose ratio is Sluice's median time over the floor's.
func TestRunWritesEveryFigure(t *testing.T) {
	out := t.TempDir()
	var log bytes.Buffer
	if err := run("testdata", out, &log); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"scale-time.svg", "scale-rss.svg", "admission.svg", "dataloads.svg"} {
		data, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct{ XMLName xml.Name }
		if err := xml.Unmarshal(data, &doc); err != nil || doc.XMLName.Local != "svg" {
			t.Errorf("%s is not an SVG document (%v, root %q)", name, err, doc.XMLName.Local)
		}
	}
	table, err := os.ReadFile(filepath.Join(out, "scale.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| 100 | 14.0 | 10.0 | 1.40 | 131 | 21.2 (15.1) | 5.4 (5.0) | 2, 1 |",
		"| 500 | 45.0 | 30.0 | 1.50 | 160 | 20.0 (14.0) | 5.1 (5.0) | 1, 1 |",
		"floor, seconds to Bound: 5 + 0.05·N s, so 255 s at N=5000",
	} {
		if !strings.Contains(string(table), want) {
			t.Errorf("scale.md lacks %q:\n%s", want, table)
		}
	}
}

// TestRunSaysWhatItCannotDraw: without admission results the other
// figures are drawn and the log names the missing benchmark.
func TestRunSaysWhatItCannotDraw(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	data, err := os.ReadFile("testdata/results.txt")
	if err != nil {
		t.Fatal(err)
	}
	scaleOnly, _, _ := strings.Cut(string(data), "pkg: github.com/sluice-data/sluice/tests/bench")
	if err := os.WriteFile(filepath.Join(in, "scale.txt"), []byte(scaleOnly), 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	if err := run(in, out, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "admission.svg: not drawn: no results of tests/bench BenchmarkAdmission") {
		t.Errorf("log:\n%s", log.String())
	}
	if _, err := os.Stat(filepath.Join(out, "admission.svg")); !os.IsNotExist(err) {
		t.Errorf("admission.svg written without results: %v", err)
	}
}

// TestRunRefusesBadInput: a malformed benchmark line, a directory without
// output, and output of none of the benchmarks are errors.
func TestRunRefusesBadInput(t *testing.T) {
	for name, c := range map[string]struct{ file, content, want string }{
		"malformed":     {"bad.txt", "BenchmarkDatasetsToBound/datasets=100-2 1 12x s-to-bound\n", "bad.txt:1"},
		"no output":     {"notes.md", "nothing\n", "holds no benchmark output"},
		"none drawn":    {"other.txt", "BenchmarkOther-2 10 5.0 ns/op\n", "holds none of the benchmarks"},
		"no metric":     {"nometric.txt", "pkg: github.com/sluice-data/sluice/tests/scale\nBenchmarkDatasetsToBound/datasets=100-2 1 5.0 ns/op\n", "has no s-to-bound metric"},
		"other package": {"elsewhere.txt", "pkg: example.com/x\nBenchmarkDatasetsToBound/datasets=100-2 1 5.0 s-to-bound\n", "holds none of the benchmarks"},
	} {
		t.Run(name, func(t *testing.T) {
			in := t.TempDir()
			if err := os.WriteFile(filepath.Join(in, c.file), []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			err := run(in, t.TempDir(), &bytes.Buffer{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}
