package gc

import (
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/nodelabels"
)

// TestOrphanLabels: only a group of cache labels recognised by its
// runtime-type label, whose keys no runtime uses, is an orphan; the
// exclusive label goes with it when it names a Dataset without runtime.
func TestOrphanLabels(t *testing.T) {
	group := func(typ, suffix string) map[string]string {
		l := map[string]string{}
		for i, k := range nodelabels.CacheKeys(typ, suffix) {
			l[k] = map[bool]string{true: "true", false: "1GiB"}[i < 2]
		}
		return l
	}
	merge := func(ls ...map[string]string) map[string]string {
		out := map[string]string{}
		for _, l := range ls {
			maps.Copy(out, l)
		}
		return out
	}
	live := &owners{names: map[string]bool{"a/live": true}, labelKeys: map[string]bool{}}
	for _, k := range nodelabels.CacheKeys("juicefs", "a-live") {
		live.labelKeys[k] = true
	}
	// A runtime juicefs/b-x: its cache label fluid.io/s-juicefs-b-x reads
	// as the runtime-type label of a JuiceFS runtime of Dataset key b-x.
	live.labelKeys["fluid.io/s-juicefs-b-x"] = true
	for _, tc := range []struct {
		name   string
		labels map[string]string // the node's
		want   map[string]string // removed (nil: nothing)
	}{
		{"a live runtime's group stays", group("juicefs", "a-live"), nil},
		{"a gone runtime's group goes", group("juicefs", "a-gone"), group("juicefs", "a-gone")},
		{"by UID too", group("alluxio", "6b1e-uid"), group("alluxio", "6b1e-uid")},
		{"with its exclusive label", merge(group("juicefs", "a-gone"), map[string]string{datav1alpha1.LabelExclusive: "a_gone"}),
			merge(group("juicefs", "a-gone"), map[string]string{datav1alpha1.LabelExclusive: "a_gone"})},
		{"not a live Dataset's exclusive label", merge(group("juicefs", "b-gone"), group("juicefs", "a-live"), map[string]string{datav1alpha1.LabelExclusive: "a_live"}),
			group("juicefs", "b-gone")},
		{"a lone capacity label is not the controller's to judge", map[string]string{"fluid.io/s-h-juicefs-t-other-ds": "1GiB"}, nil},
		{"a lone cache label neither", map[string]string{"fluid.io/s-other-ds": "true"}, nil},
		{"a type no engine here has", group("curvine", "a-gone"), nil},
		{"a runtime-type label that is not true", map[string]string{"fluid.io/s-juicefs-a-gone2": "yes"}, nil},
		{"a live runtime's cache label is no orphan's runtime-type label", merge(group("juicefs", "b-x"), group("alluxio", "a-gone")),
			group("alluxio", "a-gone")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: tc.labels}}
			got := orphanLabels(n, live, []string{"alluxio", "juicefs"})
			want := map[string]string{}
			for k, v := range tc.want {
				if k != datav1alpha1.LabelExclusive {
					v = ""
				}
				want[k] = v
			}
			if len(tc.want) == 0 {
				want = nil
			}
			if !maps.Equal(got, want) {
				t.Errorf("orphanLabels = %v, want %v", got, want)
			}
		})
	}
}
