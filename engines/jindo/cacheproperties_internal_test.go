package jindo

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

// propertiesFields set a map in each properties field of a JindoRuntime
// (each lands in a configuration section), by field path.
var propertiesFields = map[string]func(*datav1alpha1.JindoRuntimeSpec, map[string]string){
	"spec.properties":        func(s *datav1alpha1.JindoRuntimeSpec, m map[string]string) { s.Properties = m },
	"spec.logConfig":         func(s *datav1alpha1.JindoRuntimeSpec, m map[string]string) { s.LogConfig = m },
	"spec.master.properties": func(s *datav1alpha1.JindoRuntimeSpec, m map[string]string) { s.Master.Properties = m },
	"spec.worker.properties": func(s *datav1alpha1.JindoRuntimeSpec, m map[string]string) { s.Worker.Properties = m },
	"spec.fuse.properties":   func(s *datav1alpha1.JindoRuntimeSpec, m map[string]string) { s.Fuse.Properties = m },
	"spec.fuse.logConfig":    func(s *datav1alpha1.JindoRuntimeSpec, m map[string]string) { s.Fuse.LogConfig = m },
}

// TestTierPropertiesAreJudged enumerates the properties that place or
// size the cache (audit N5), from the engine's own configuration: every
// property whose value buildConfig derives from spec.tieredstore is
// refused (cacheProperties) or named harmless (boundedTierProperties),
// and every refused one is refused in every properties field, by the
// field table (the webhook) and by Values (the controller), naming both.
func TestTierPropertiesAreJudged(t *testing.T) {
	configOf := func(l datav1alpha1.Level) config {
		c, err := cacheLayout(datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{l}}, "team-a", "demo")
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := buildConfig(plan{rt: &datav1alpha1.JindoRuntime{}, worker: worker{pod: pod{Enabled: true}, RPCPort: 1}, cache: c})
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	mem, disk := resource.MustParse("1Gi"), resource.MustParse("10Gi")
	a := configOf(datav1alpha1.Level{MediumType: datav1alpha1.Memory, Path: "/dev/shm", Quota: &mem, High: "0.9", Low: "0.5"})
	b := configOf(datav1alpha1.Level{MediumType: datav1alpha1.SSD, Path: "/mnt/a,/mnt/b", Quota: &disk, High: "0.8", Low: "0.4"})
	derived := map[string]bool{}
	for i, sa := range []map[string]string{a.Common, a.Server, a.Worker, a.Client, a.SDKCommon, a.SDK} {
		sb := []map[string]string{b.Common, b.Server, b.Worker, b.Client, b.SDKCommon, b.SDK}[i]
		for _, k := range slices.Concat(slices.Collect(maps.Keys(sa)), slices.Collect(maps.Keys(sb))) {
			if sa[k] != sb[k] {
				derived[k] = true
			}
		}
	}
	if len(derived) < 4 {
		t.Fatalf("derived properties %v: the probe is vacuous", derived)
	}
	for _, k := range slices.Sorted(maps.Keys(derived)) {
		_, refused := cacheProperties[k]
		_, bounded := boundedTierProperties[k]
		if refused == bounded {
			t.Errorf("%s is derived from spec.tieredstore: list it in cacheProperties (refused) or boundedTierProperties (with why not), exactly one", k)
		}
	}

	var rows []string
	for _, f := range Fields {
		if strings.HasSuffix(f.Path, "properties") || strings.HasSuffix(f.Path, "logConfig") {
			rows = append(rows, f.Path)
		}
	}
	slices.Sort(rows)
	if !slices.Equal(rows, slices.Sorted(maps.Keys(propertiesFields))) {
		t.Fatalf("properties rows %v, the test sets %v: add the new field to propertiesFields", rows, slices.Sorted(maps.Keys(propertiesFields)))
	}
	for _, field := range rows {
		for _, k := range slices.Sorted(maps.Keys(cacheProperties)) {
			ds, rt := probeRuntime()
			propertiesFields[field](&rt.Spec, map[string]string{k: "/var/lib/kubelet"})
			if found := Fields.Check(rt); !slices.ContainsFunc(found, func(f engines.Finding) bool {
				return f.Path == field && f.Support == engines.Refused && strings.Contains(f.Message, k)
			}) {
				t.Errorf("%s[%s]: not refused by the field table: %v", field, k, found)
			}
			if _, err := (Engine{}).Values(ds, rt); err == nil || !strings.Contains(err.Error(), field) || !strings.Contains(err.Error(), k) {
				t.Errorf("%s[%s]: Values = %v, want it refused naming field and property", field, k, err)
			}
		}
	}
	ds, rt := probeRuntime()
	rt.Spec.Properties = map[string]string{"fs.oss.download.thread.concurrency": "32"}
	if _, err := (Engine{}).Values(ds, rt); err != nil {
		t.Fatalf("an ordinary property: %v", err)
	}
}

// probeRuntime is a runtime with one disk tier, and its Dataset.
func probeRuntime() (*datav1alpha1.Dataset, *datav1alpha1.JindoRuntime) {
	quota := resource.MustParse("1Gi")
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "team-a"},
		Spec: datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{{MountPoint: "oss://bucket/data", Name: "data", Options: map[string]string{"fs.oss.endpoint": "oss.example.com"}}}}}
	rt := &datav1alpha1.JindoRuntime{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "team-a"}, Spec: datav1alpha1.JindoRuntimeSpec{Replicas: 1,
		TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{{MediumType: datav1alpha1.SSD, Path: "/mnt/a", Quota: &quota}}}}}
	return ds, rt
}
