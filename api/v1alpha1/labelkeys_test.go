package v1alpha1

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

func TestDatasetLabelKeys(t *testing.T) {
	const uid = "6f1c2e0a-8b8e-4c51-9a6f-0d3b5c7e9f21"
	long := strings.Repeat("n", 55)
	tests := []struct {
		name string
		key  DatasetKey
		got  func(DatasetKey) string
		want string
	}{
		// name, dataset key, key builder, expected label key
		{"cache", DatasetKey{"default", "imagenet", uid}, DatasetKey.CacheLabelKey, "fluid.io/s-default-imagenet"},
		{"runtime cache", DatasetKey{"team-a", "demo", uid}, func(k DatasetKey) string { return k.RuntimeCacheLabelKey("juicefs") }, "fluid.io/s-juicefs-team-a-demo"},
		{"memory capacity", DatasetKey{"default", "demo", uid}, func(k DatasetKey) string { return k.CapacityLabelKey("alluxio", MemoryCapacity) }, "fluid.io/s-h-alluxio-m-default-demo"},
		{"disk capacity", DatasetKey{"default", "demo", uid}, func(k DatasetKey) string { return k.CapacityLabelKey("alluxio", DiskCapacity) }, "fluid.io/s-h-alluxio-d-default-demo"},
		{"total capacity", DatasetKey{"default", "demo", uid}, func(k DatasetKey) string { return k.CapacityLabelKey("jindo", TotalCapacity) }, "fluid.io/s-h-jindo-t-default-demo"},
		{"fuse", DatasetKey{"default", "demo", uid}, DatasetKey.FuseLabelKey, "fluid.io/f-default-demo"},
		{"exactly 63 keeps the name", DatasetKey{strings.Repeat("a", 30), strings.Repeat("b", 30), uid}, DatasetKey.CacheLabelKey, "fluid.io/s-" + strings.Repeat("a", 30) + "-" + strings.Repeat("b", 30)},
		{"64 switches to the UID", DatasetKey{strings.Repeat("a", 30), strings.Repeat("b", 31), uid}, DatasetKey.CacheLabelKey, "fluid.io/s-" + uid},
		{"long fuse key", DatasetKey{"default", long, uid}, DatasetKey.FuseLabelKey, "fluid.io/f-" + uid},
		{"long capacity key", DatasetKey{"ns", long, uid}, func(k DatasetKey) string { return k.CapacityLabelKey("juicefs", MemoryCapacity) }, "fluid.io/s-h-juicefs-m-" + uid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.got(tt.key)
			if got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			if errs := validation.IsQualifiedName(got); len(errs) > 0 {
				t.Fatalf("%q is not a valid label key: %v", got, errs)
			}
		})
	}
}

func TestDatasetKeyValues(t *testing.T) {
	k := KeyOf(&Dataset{})
	k.Namespace, k.Name = "team-a", "demo"
	if got := k.ExclusiveLabelValue(); got != "team-a_demo" {
		t.Errorf("ExclusiveLabelValue = %q", got)
	}
	if got := k.DatasetID(); got != "team-a-demo" {
		t.Errorf("DatasetID = %q", got)
	}
	if got := DatasetSchedLabelKey("imagenet"); got != "fluid.io/dataset.imagenet.sched" {
		t.Errorf("DatasetSchedLabelKey = %q", got)
	}
}
