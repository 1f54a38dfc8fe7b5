package podpatch

import (
	"reflect"
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

var containerType = reflect.TypeFor[corev1.Container]()

// Inserted reports whether the container list to is from with containers
// inserted (at any positions) and none removed, renamed or reordered, and
// at least one inserted: what the sidecar mutator does.
func Inserted(from, to []corev1.Container) bool {
	if len(to) <= len(from) {
		return false
	}
	seen := make(map[string]bool, len(from))
	for _, c := range from {
		if seen[c.Name] {
			return false // names are unique in a valid Pod; leave others to the index diff
		}
		seen[c.Name] = true
	}
	i := 0
	for _, c := range to {
		switch {
		case i < len(from) && c.Name == from[i].Name:
			i++
		case seen[c.Name]:
			return false // moved
		}
	}
	return i == len(from)
}

// insertions diffs two container lists of which b only inserts containers
// into a (Inserted): each inserted container is an add at its index, which
// shifts the ones after it as the patch is applied, and every other
// container is compared with itself at its new index. Fields unknown to
// this build then stay on their container instead of staying at their
// index, which an index-by-index diff would move onto the inserted
// container (reliability audit L3).
func (d *differ) insertions(a, b reflect.Value) error {
	i := 0
	for j := 0; j < b.Len(); j++ {
		if i < a.Len() && b.Index(j).FieldByName("Name").String() == a.Index(i).FieldByName("Name").String() {
			if err := d.child(a.Index(i), b.Index(j), strconv.Itoa(j)); err != nil {
				return err
			}
			i++
			continue
		}
		d.add("add", d.pathTo(strconv.Itoa(j)), b.Index(j))
	}
	return nil
}

// containerInsertions says whether a and b are container lists b only
// inserts into (Inserted).
func containerInsertions(a, b reflect.Value) bool {
	if a.Type().Elem() != containerType || !a.CanInterface() || !b.CanInterface() {
		return false
	}
	from, okA := a.Interface().([]corev1.Container)
	to, okB := b.Interface().([]corev1.Container)
	return okA && okB && Inserted(from, to)
}
