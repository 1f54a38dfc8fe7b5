package juicefs

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

// TestTierOptionsAreJudged enumerates the options that name a cache
// directory or size (audit N5), from the engine's own tables, so that a
// new one cannot slip in unjudged:
//   - every flag the engine derives from spec.tieredstore (tier.flags) is
//     a cache option the webhook judges (CacheOptionKinds) or one named in
//     boundedTierOptions;
//   - every JuiceFS mount and global flag, given a directory as its value
//     in the workers' or FUSE's options, makes a host directory only if
//     it is a "dir" cache option, and exactly the host directories
//     OptionCaches reports (what the webhook judges).
func TestTierOptionsAreJudged(t *testing.T) {
	low := resource.MustParse("1Gi")
	tr, err := tierOf(datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{{MediumType: datav1alpha1.SSD, Path: "/mnt/a", Quota: &low, Low: "0.1"}}}, "team-a", "demo")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range tr.flags() {
		_, judged := CacheOptionKinds[f.Name]
		_, bounded := boundedTierOptions[f.Name]
		if judged == bounded {
			t.Errorf("--%s is derived from spec.tieredstore: list it in CacheOptionKinds (judged) or boundedTierOptions (with why not), exactly one", f.Name)
		}
	}

	probed := 0 // host directories the probes made: the probe is not vacuous
	names := slices.Concat(slices.Collect(maps.Keys(mountFlags)), slices.Collect(maps.Keys(globalFlags)))
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		for _, component := range []string{"spec.worker", "spec.fuse"} {
			ds, rt := probeRuntime()
			opts := map[string]string{name: "/probe/a:/probe/b"}
			if component == "spec.worker" {
				rt.Spec.Worker.Options = opts
			} else {
				rt.Spec.Fuse.Options = opts
			}
			values, err := Engine{}.Values(ds, rt)
			if err != nil {
				continue // refused: it makes nothing
			}
			key := "worker"
			if component == "spec.fuse" {
				key = "fuse"
			}
			var made []string
			for _, v := range values[key].(map[string]any)["volumes"].([]any) {
				hp, ok := v.(map[string]any)["hostPath"].(map[string]any)
				if ok && hp["path"] != engines.HostCacheDir("/mnt/a", "team-a", "demo") {
					made = append(made, hp["path"].(string))
				}
			}
			var reported []string
			for _, c := range OptionCaches(rt) {
				if c.Component == component {
					for _, d := range c.HostDirs {
						reported = append(reported, engines.HostCacheDir(d, "team-a", "demo"))
					}
				}
			}
			probed += len(made)
			if len(made) > 0 && CacheOptionKinds[name] != "dir" {
				t.Errorf("%s: option %s makes host directories %v but is not a judged directory option (CacheOptionKinds)", component, name, made)
			}
			if !slices.Equal(made, reported) {
				t.Errorf("%s: option %s: the engine makes host directories %v, OptionCaches reports %v", component, name, made, reported)
			}
		}
	}
	if probed != 4 {
		t.Errorf("the probes made %d host directories, want 4 (cache-dir's two, in workers and FUSE)", probed)
	}
}

// TestCacheSizes: cache-size reads as JuiceFS reads it; anything else is
// refused by the options rows, naming the option.
func TestCacheSizes(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "1024": 1 << 30, "100000000": 100000000 << 20, "2G": 2 << 30, "512k": 512 << 10, "1.5M": 3 << 19} {
		if got, ok := cacheSizeBytes(in); !ok || got != want {
			t.Errorf("cacheSizeBytes(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "-1", "ten", "1X", "8E", "1e30"} {
		if _, ok := cacheSizeBytes(in); ok {
			t.Errorf("cacheSizeBytes(%q) accepted", in)
		}
	}
	ds, rt := probeRuntime()
	rt.Spec.Worker.Options = map[string]string{"cache-size": "lots"}
	if _, err := (Engine{}).Values(ds, rt); err == nil || !containsAll(err.Error(), "spec.worker.options", `cache-size "lots" is not a cache size`) {
		t.Fatalf("Values = %v, want cache-size refused naming spec.worker.options", err)
	}
	ds, rt = probeRuntime()
	ds.Spec.SharedOptions = map[string]string{"cache-dir": "/var/lib/kubelet"}
	if _, err := (Engine{}).Values(ds, rt); err == nil || !containsAll(err.Error(), "spec.sharedOptions", "cache-dir", "belong to the JuiceFSRuntime") {
		t.Fatalf("Values = %v, want a Dataset's cache-dir refused", err)
	}
}

func containsAll(s string, subs ...string) bool {
	return !slices.ContainsFunc(subs, func(sub string) bool { return !strings.Contains(s, sub) })
}

// probeRuntime is a community-edition runtime with one hostPath tier,
// /mnt/a, and its Dataset.
func probeRuntime() (*datav1alpha1.Dataset, *datav1alpha1.JuiceFSRuntime) {
	quota := resource.MustParse("1Gi")
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "team-a"}, Spec: datav1alpha1.DatasetSpec{
		Mounts: []datav1alpha1.Mount{{MountPoint: "juicefs:///demo", EncryptOptions: []datav1alpha1.EncryptOption{{Name: "metaurl",
			ValueFrom: datav1alpha1.EncryptOptionSource{SecretKeyRef: datav1alpha1.SecretKeySelector{Name: "jfs", Key: "metaurl"}}}}}}}}
	rt := &datav1alpha1.JuiceFSRuntime{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "team-a"}, Spec: datav1alpha1.JuiceFSRuntimeSpec{Replicas: 1,
		TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{{MediumType: datav1alpha1.SSD, Path: "/mnt/a", Quota: &quota}}}}}
	return ds, rt
}
