package nodelabels

import (
	"testing"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestRelabel: removing keeps another Dataset's exclusive label and
// recounts dataset-num from the total-capacity labels left.
func TestRelabel(t *testing.T) {
	node := map[string]string{
		"fluid.io/s-h-juicefs-t-a-x": "1GiB", "fluid.io/s-h-juicefs-t-a-y": "1GiB", "fluid.io/s-a-x": "true",
		datav1alpha1.LabelDatasetNum: "2", datav1alpha1.LabelExclusive: "a_y", "zone": "z1",
	}
	next, changed := Relabel(node, map[string]string{"fluid.io/s-h-juicefs-t-a-x": "", "fluid.io/s-a-x": "", datav1alpha1.LabelExclusive: "a_x"}, false)
	want := map[string]string{"fluid.io/s-h-juicefs-t-a-y": "1GiB", datav1alpha1.LabelDatasetNum: "1", datav1alpha1.LabelExclusive: "a_y", "zone": "z1"}
	if !changed || len(next) != len(want) {
		t.Fatalf("Relabel = %v, %v, want %v", next, changed, want)
	}
	for k, v := range want {
		if next[k] != v {
			t.Errorf("label %s = %q, want %q", k, next[k], v)
		}
	}
	if _, changed := Relabel(want, map[string]string{"fluid.io/s-a-x": ""}, false); changed {
		t.Error("removing absent labels changed the node")
	}
}
