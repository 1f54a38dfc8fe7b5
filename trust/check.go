package trust

import (
	"fmt"
	"slices"
)

// Unclassified lists, as "Kind path", the fields of fields (kind -> its
// field paths, as Paths gives them) that no row of the table classifies.
func Unclassified(fields map[string][]string) []string {
	var out []string
	for _, kind := range sortedKeys(fields) {
		for _, p := range fields[kind] {
			if _, ok := Classify(kind, p); !ok {
				out = append(out, kind+" "+p)
			}
		}
	}
	return out
}

// Unused lists the rows of the table that classify no field of fields:
// a row naming a field the API does not have.
func Unused(fields map[string][]string) []string {
	var out []string
	for _, s := range Table {
		for _, r := range s.Rows {
			used := false
			for _, kind := range s.Kinds {
				for _, p := range fields[kind] {
					if got, ok := Classify(kind, p); ok && got.Path == r.Path && got.Class == r.Class {
						used = true
					}
				}
			}
			if !used {
				out = append(out, fmt.Sprintf("%v %s", s.Kinds, r.Path))
			}
		}
	}
	return out
}

// AllFields are the field paths of every data.fluid.io kind.
func AllFields() map[string][]string {
	out := map[string][]string{}
	for kind, t := range Kinds() {
		out[kind] = Paths(t)
	}
	return out
}

// Rules are the guard rules the table's guarded rows name, sorted.
func Rules() []string {
	var out []string
	for _, s := range Table {
		for _, r := range s.Rows {
			if r.Class == Guarded && !slices.Contains(out, r.Rule) {
				out = append(out, r.Rule)
			}
		}
	}
	slices.Sort(out)
	return out
}

func sortedKeys(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
