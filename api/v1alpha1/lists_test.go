package v1alpha1

import (
	"slices"
	"testing"
)

// TestSplitList trims entries, leaves out empty ones and never returns
// nil (policy facts are lists, not null).
func TestSplitList(t *testing.T) {
	for in, want := range map[string][]string{
		"":                   {},
		" , ,":               {},
		"a":                  {"a"},
		" load-1 ,, load-2 ": {"load-1", "load-2"},
	} {
		got := SplitList(in)
		if got == nil || !slices.Equal(got, want) {
			t.Errorf("SplitList(%q) = %#v, want %#v", in, got, want)
		}
	}
}
