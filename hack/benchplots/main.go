package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

func main() {
	in := flag.String("in", "docs/bench", "directory of `go test -bench` output files (*.txt)")
	out := flag.String("out", "docs/bench", "directory to write the SVGs and scale.md to")
	flag.Parse()
	if err := run(*in, *out, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchplots:", err)
		os.Exit(1)
	}
}

// run reads every *.txt file of in and writes to out each figure the
// results hold, saying on log what it wrote and what it could not draw.
func run(in, out string, log io.Writer) error {
	paths, err := filepath.Glob(filepath.Join(in, "*.txt"))
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("%s holds no benchmark output (*.txt)", in)
	}
	f, err := read(paths)
	if err != nil {
		return err
	}
	wrote := 0
	for _, d := range drawings {
		data, err := d.draw(f)
		if errors.Is(err, errNoResults) {
			fmt.Fprintf(log, "%s: not drawn: %v\n", d.file, err)
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w", d.file, err)
		}
		if err := os.WriteFile(filepath.Join(out, d.file), data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(log, "%s: written\n", filepath.Join(out, d.file))
		wrote++
	}
	if wrote == 0 {
		return fmt.Errorf("%s holds none of the benchmarks benchplots draws", in)
	}
	return nil
}

// errNoResults says that the input holds no result of a figure's benchmark.
var errNoResults = errors.New("no results")

// drawing is one output file and how to make it from the figures.
type drawing struct {
	file string
	draw func(*figures) ([]byte, error)
}

var drawings = []drawing{
	{"scale-time.svg", scaleTime},
	{"scale-rss.svg", scaleRSS},
	{"admission.svg", admission},
	{"dataloads.svg", dataLoads},
	{"scale.md", scaleTable},
}
