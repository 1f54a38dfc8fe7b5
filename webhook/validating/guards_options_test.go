package validating

import (
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/juicefs"
	"github.com/sluice-data/sluice/trust/guards"
)

// TestOptionCacheFacts: the cache directories a JuiceFSRuntime's options
// name outside its tier are tier paths at the option's field, and a
// cache-size above the tier's quota is an option cache its budget (and
// its namespace's usage) counts, on every replica (audit N5).
func TestOptionCacheFacts(t *testing.T) {
	gi := int64(1) << 30
	quota := resource.MustParse("1Gi")
	rt := &datav1alpha1.JuiceFSRuntime{Spec: datav1alpha1.JuiceFSRuntimeSpec{Replicas: 2,
		TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{{MediumType: datav1alpha1.Memory, Path: "/dev/shm", Quota: &quota}}},
		Worker:      datav1alpha1.JuiceFSCompTemplateSpec{Options: map[string]string{"cache-dir": "/var/lib/kubelet:/dev/shm", "cache-size": "100000000"}},
		Fuse: datav1alpha1.JuiceFSFuseSpec{Options: map[string]string{"cache-dir": "/mnt/fuse:/own", "cache-size": "0"},
			VolumeMounts: []corev1.VolumeMount{{Name: "own", MountPath: "/own"}}},
	}}
	want := []guards.Value{
		{Path: "spec.tieredstore.levels[0].path", Value: "/dev/shm", HostPath: true},
		{Path: `spec.worker.options["cache-dir"]`, Value: "/var/lib/kubelet", HostPath: true},
		{Path: `spec.fuse.options["cache-dir"]`, Value: "/mnt/fuse", HostPath: true},
	}
	if diff := cmp.Diff(want, guards.OfUpdate(rt, nil).TierPaths); diff != "" {
		t.Fatalf("tier paths (-want +got):\n%s", diff)
	}
	wantCaches := []OptionCacheFacts{{Path: `spec.worker.options["cache-size"]`, Medium: "MEM", Bytes: (100000000<<20 - gi) * 2}}
	if diff := cmp.Diff(wantCaches, optionCaches(rt)); diff != "" {
		t.Fatalf("option caches (-want +got):\n%s", diff)
	}
	u := map[string]int64{}
	usage(u, rt)
	if u["MEM"] != 100000000<<20*2 {
		t.Fatalf("usage = %v, want the workers' option cache on both replicas", u)
	}

	// A cache directory without a tier caches JuiceFS's default size,
	// counted as disk; a size in units is read as JuiceFS reads it.
	bare := &datav1alpha1.JuiceFSRuntime{Spec: datav1alpha1.JuiceFSRuntimeSpec{Replicas: 1,
		Worker: datav1alpha1.JuiceFSCompTemplateSpec{Options: map[string]string{"cache-dir": "/mnt/jfs"}},
		Fuse:   datav1alpha1.JuiceFSFuseSpec{Options: map[string]string{"cache-size": "2G"}},
	}}
	wantCaches = []OptionCacheFacts{
		{Path: `spec.worker.options["cache-dir"]`, Medium: "HDD", Bytes: 100 * gi},
		{Path: `spec.fuse.options["cache-size"]`, Medium: "HDD", Bytes: 2 * gi},
	}
	if diff := cmp.Diff(wantCaches, optionCaches(bare)); diff != "" {
		t.Fatalf("option caches without a tier (-want +got):\n%s", diff)
	}

	// On UPDATE an option directory the old object had is unchanged.
	if upd := guards.OfUpdate(rt, rt.DeepCopy()); !upd.TierPaths[1].Unchanged {
		t.Fatalf("unchanged marks: %+v", upd.TierPaths)
	}

	// A JuiceFS tier path lists directories with ':' as well as ',': each
	// is judged on its own.
	split := &datav1alpha1.JuiceFSRuntime{Spec: datav1alpha1.JuiceFSRuntimeSpec{TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{
		{MediumType: datav1alpha1.SSD, Path: "/mnt/a:/var/lib/kubelet", Quota: &quota}}}}}
	want = []guards.Value{
		{Path: "spec.tieredstore.levels[0].path", Value: "/mnt/a", HostPath: true},
		{Path: "spec.tieredstore.levels[0].path", Value: "/var/lib/kubelet", HostPath: true},
	}
	if diff := cmp.Diff(want, guards.OfUpdate(split, nil).TierPaths); diff != "" {
		t.Fatalf("a ':'-separated JuiceFS tier path (-want +got):\n%s", diff)
	}
}

// TestEveryJuiceFSCacheOptionIsJudged enumerates the options the JuiceFS
// engine reads as a cache directory or size (juicefs.CacheOptionKinds,
// which engines/juicefs TestTierOptionsAreJudged keeps complete): set in
// the workers' or FUSE's options, each becomes a fact the guards judge,
// a directory a tier path and a size an option cache, at its field.
func TestEveryJuiceFSCacheOptionIsJudged(t *testing.T) {
	quota := resource.MustParse("1Gi")
	values := map[string]string{"dir": "/var/lib/kubelet", "size": "100000000"}
	for _, name := range slices.Sorted(maps.Keys(juicefs.CacheOptionKinds)) {
		kind := juicefs.CacheOptionKinds[name]
		for _, component := range []string{"spec.worker", "spec.fuse"} {
			rt := &datav1alpha1.JuiceFSRuntime{Spec: datav1alpha1.JuiceFSRuntimeSpec{Replicas: 1,
				TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{{MediumType: datav1alpha1.SSD, Path: "/mnt/ssd", Quota: &quota}}}}}
			opts := map[string]string{name: values[kind]}
			if component == "spec.worker" {
				rt.Spec.Worker.Options = opts
			} else {
				rt.Spec.Fuse.Options = opts
			}
			field := juicefs.OptionField(component, name)
			switch kind {
			case "dir":
				if !slices.ContainsFunc(guards.OfUpdate(rt, nil).TierPaths, func(v guards.Value) bool { return v.Path == field && v.Value == values[kind] && v.HostPath }) {
					t.Errorf("%s: no host tier path fact", field)
				}
			case "size":
				if !slices.ContainsFunc(optionCaches(rt), func(c OptionCacheFacts) bool { return c.Path == field && c.Medium == "SSD" && c.Bytes > 0 }) {
					t.Errorf("%s: no option cache fact: %+v", field, optionCaches(rt))
				}
			default:
				t.Errorf("%s: unknown kind %q", name, kind)
			}
		}
	}
}
