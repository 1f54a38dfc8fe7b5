package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// event is the part of a test2json event the summary reads.
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// timing is one finished test or package.
type timing struct {
	name    string
	elapsed time.Duration
}

// slowest is how many tests the summary names.
const slowest = 10

func main() {
	if err := summarise(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(1)
	}
}

// summarise copies the output of the events in r to w, then writes the
// slowest top-level tests and packages.
func summarise(r io.Reader, w io.Writer) error {
	var tests, packages []timing
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			// Not an event (a build error go test printed as text).
			if _, err := fmt.Fprintf(w, "%s\n", line); err != nil {
				return err
			}
			continue
		}
		if e.Action == "output" || e.Action == "build-output" {
			if _, err := io.WriteString(w, e.Output); err != nil {
				return err
			}
			continue
		}
		if e.Action != "pass" && e.Action != "fail" {
			continue
		}
		d := time.Duration(e.Elapsed * float64(time.Second))
		switch {
		case e.Test == "":
			packages = append(packages, timing{e.Package, d})
		case !strings.Contains(e.Test, "/"):
			tests = append(tests, timing{e.Package + " " + e.Test, d})
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return report(w, tests, packages)
}

func report(w io.Writer, tests, packages []timing) error {
	var total time.Duration
	for _, p := range packages {
		total += p.elapsed
	}
	fmt.Fprintf(w, "\n%d packages, %s of package time (they run in parallel).\n", len(packages), total.Round(time.Second))
	for _, list := range []struct {
		what  string
		items []timing
	}{{"tests", tests}, {"packages", packages}} {
		slices.SortStableFunc(list.items, func(a, b timing) int { return int(b.elapsed - a.elapsed) })
		fmt.Fprintf(w, "The slowest %s:\n", list.what)
		for _, t := range list.items[:min(slowest, len(list.items))] {
			if _, err := fmt.Fprintf(w, "  %8s  %s\n", t.elapsed.Round(100*time.Millisecond), t.name); err != nil {
				return err
			}
		}
	}
	return nil
}
