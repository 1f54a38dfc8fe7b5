package main

import (
	"fmt"
	"strings"
	"testing"
)

func TestSummaryCopiesTheOutputAndNamesTheSlowest(t *testing.T) {
	var in strings.Builder
	in.WriteString("# example.com/broken\nbroken/x.go:1: syntax error\n")
	in.WriteString(`{"ImportPath":"q","Action":"build-output","Output":"q/y.go:2: undefined: z\n"}` + "\n")
	for i := range 12 {
		fmt.Fprintf(&in, `{"Action":"output","Package":"p","Test":"T%d","Output":"=== RUN   T%d\n"}`+"\n", i, i)
		fmt.Fprintf(&in, `{"Action":"pass","Package":"p","Test":"T%d","Elapsed":%d}`+"\n", i, i)
		fmt.Fprintf(&in, `{"Action":"pass","Package":"p","Test":"T%d/sub","Elapsed":100}`+"\n", i)
	}
	in.WriteString(`{"Action":"fail","Package":"p","Elapsed":80}` + "\n")
	var out strings.Builder
	if err := summarise(strings.NewReader(in.String()), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"# example.com/broken\nbroken/x.go:1: syntax error\nq/y.go:2: undefined: z\n=== RUN   T0\n",
		"1 packages, 1m20s of package time",
		"The slowest tests:\n       11s  p T11\n       10s  p T10\n",
		"        2s  p T2\nThe slowest packages:\n     1m20s  p\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the summary lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "T1/sub") || strings.Contains(got, "  p T1\n") {
		t.Errorf("subtests or tests beyond the slowest ten are named:\n%s", got)
	}
}
