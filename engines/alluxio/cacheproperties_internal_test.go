package alluxio

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// propertiesFields set a map in each properties field of an
// AlluxioRuntime, by field path.
var propertiesFields = map[string]func(*datav1alpha1.AlluxioRuntimeSpec, map[string]string){
	"spec.properties":           func(s *datav1alpha1.AlluxioRuntimeSpec, m map[string]string) { s.Properties = m },
	"spec.master.properties":    func(s *datav1alpha1.AlluxioRuntimeSpec, m map[string]string) { s.Master.Properties = m },
	"spec.jobMaster.properties": func(s *datav1alpha1.AlluxioRuntimeSpec, m map[string]string) { s.JobMaster.Properties = m },
	"spec.worker.properties":    func(s *datav1alpha1.AlluxioRuntimeSpec, m map[string]string) { s.Worker.Properties = m },
	"spec.jobWorker.properties": func(s *datav1alpha1.AlluxioRuntimeSpec, m map[string]string) { s.JobWorker.Properties = m },
	"spec.fuse.properties":      func(s *datav1alpha1.AlluxioRuntimeSpec, m map[string]string) { s.Fuse.Properties = m },
	"spec.apiGateway.properties": func(s *datav1alpha1.AlluxioRuntimeSpec, m map[string]string) {
		s.APIGateway.Enabled, s.APIGateway.Properties = true, m
	},
}

// TestTierPropertiesAreRefused enumerates the properties that place or
// size a cache (audit N5), from the engine's own tables, so that none can
// slip in: every property planTiers derives from spec.tieredstore, and
// every other known cache property, is refused in every properties field
// of the field table (the webhook's denial) and by Values (the
// controller's), naming the field and the property.
func TestTierPropertiesAreRefused(t *testing.T) {
	mem, ssd := resource.MustParse("1Gi"), resource.MustParse("10Gi")
	tr, err := planTiers(datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{
		{MediumType: datav1alpha1.Memory, Path: "/dev/shm", Quota: &mem, High: "0.9", Low: "0.5"},
		{MediumType: datav1alpha1.SSD, Path: "/mnt/a,/mnt/b", QuotaList: "5Gi,5Gi"},
		{MediumType: datav1alpha1.HDD, Path: "/mnt/h", Quota: &ssd},
	}}, "team-a", "demo")
	if err != nil {
		t.Fatal(err)
	}
	keys := slices.Concat(slices.Sorted(maps.Keys(tr.props)), cacheProperties)
	if len(tr.props) < 10 {
		t.Fatalf("planTiers wrote %d properties: the probe is vacuous", len(tr.props))
	}

	var rows []string
	for _, f := range Fields {
		if strings.HasSuffix(f.Path, "properties") {
			rows = append(rows, f.Path)
			if f.Check == nil {
				t.Errorf("%s: a properties row without the cache check", f.Path)
			}
		}
	}
	slices.Sort(rows)
	if !slices.Equal(rows, slices.Sorted(maps.Keys(propertiesFields))) {
		t.Fatalf("properties rows %v, the test sets %v: add the new field to propertiesFields", rows, slices.Sorted(maps.Keys(propertiesFields)))
	}
	for _, field := range rows {
		set := propertiesFields[field]
		for _, k := range keys {
			ds, rt := probeRuntime()
			set(&rt.Spec, map[string]string{k: "/var/lib/kubelet"})
			found := Fields.Check(rt)
			if !slices.ContainsFunc(found, func(f engines.Finding) bool {
				return f.Path == field && f.Support == engines.Refused && strings.Contains(f.Message, k)
			}) {
				t.Errorf("%s[%s]: not refused by the field table: %v", field, k, found)
			}
			if _, err := (Engine{}).Values(ds, rt); err == nil || !strings.Contains(err.Error(), field) || !strings.Contains(err.Error(), k) {
				t.Errorf("%s[%s]: Values = %v, want it refused naming field and property", field, k, err)
			}
		}
	}
	// An ordinary property stays honoured.
	ds, rt := probeRuntime()
	rt.Spec.Properties = map[string]string{"alluxio.user.file.writetype.default": "MUST_CACHE"}
	if _, err := (Engine{}).Values(ds, rt); err != nil {
		t.Fatalf("an ordinary property: %v", err)
	}
}

// probeRuntime is a runtime with one MEM tier, and its Dataset.
func probeRuntime() (*datav1alpha1.Dataset, *datav1alpha1.AlluxioRuntime) {
	quota := resource.MustParse("1Gi")
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "team-a"},
		Spec: datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{{MountPoint: "s3://bucket/data", Name: "data"}}}}
	rt := &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "team-a"}, Spec: datav1alpha1.AlluxioRuntimeSpec{Replicas: 1,
		TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{{MediumType: datav1alpha1.Memory, Path: "/dev/shm", Quota: &quota}}}}}
	return ds, rt
}
