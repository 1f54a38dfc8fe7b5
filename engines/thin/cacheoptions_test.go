package thin_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/enginetest"
)

// TestOptionsNameNoCache (audit N5): the Thin engine derives no option of
// the FUSE program from spec.tieredstore (the profile's program reads the
// tier paths, mounted as they are, from config.json's cache list only),
// and no option, whatever its value, becomes a directory of the node: the
// host paths of the FUSE and worker pods are the tier's and the spec's
// volumes, both judged. So ThinRuntime options need no cache guard.
func TestOptionsNameNoCache(t *testing.T) {
	ds, profile, rt := sample()
	values, _ := render(t, ds, profile, rt)
	small := resource.MustParse("1Gi")
	other := rt.DeepCopy()
	other.Spec.TieredStore.Levels = []datav1alpha1.Level{{MediumType: datav1alpha1.HDD, Path: "/mnt/hdd", Quota: &small, High: "0.9", Low: "0.1"}}
	otherValues, _ := render(t, ds, profile, other)
	options := func(v map[string]any) string {
		cfg, _ := json.Marshal(v["config"].(map[string]any)["runtimeOptions"])
		return string(cfg)
	}
	if options(values) != options(otherValues) {
		t.Errorf("the FUSE options depend on spec.tieredstore: %s vs %s", options(values), options(otherValues))
	}

	hostPaths := func(manifests map[string]string) []string {
		var out []string
		for _, v := range slices.Concat(
			enginetest.Decode[appsv1.DaemonSet](t, manifests, "templates/fuse-daemonset.yaml").Spec.Template.Spec.Volumes,
			enginetest.Decode[appsv1.StatefulSet](t, manifests, "templates/worker-statefulset.yaml").Spec.Template.Spec.Volumes) {
			if v.HostPath != nil {
				out = append(out, v.HostPath.Path)
			}
		}
		slices.Sort(out)
		return out
	}
	_, base := render(t, ds, profile, rt)
	probe := rt.DeepCopy()
	probe.Spec.Fuse.Options = map[string]string{"cache-dir": "/var/lib/kubelet", "cache_dir": "/var/lib/kubelet", "dirs": "/var/lib/kubelet", "cache-size": "100000000"}
	_, probed := render(t, ds, profile, probe)
	if got, want := hostPaths(probed), hostPaths(base); !slices.Equal(got, want) {
		t.Errorf("options changed the pods' host paths: %v, want %v", got, want)
	}
	if !slices.ContainsFunc(hostPaths(base), func(p string) bool { return strings.HasPrefix(p, "/mnt/ssd1/") }) {
		t.Errorf("host paths %v lack the tier's: the probe is vacuous", hostPaths(base))
	}
}
