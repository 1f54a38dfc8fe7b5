package cachecleanup_test

import (
	"path"
	"strings"
	"testing"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/juicefs"
	"github.com/sluice-data/sluice/engines/workloads/cachecleanup"
)

// TestHostileTierPathsReachTheJobsAsData: tier paths full of quotes,
// $(...), ${...}, template actions and YAML syntax reach the cleanup Jobs
// only as hostPath paths, whole; the rm argv holds nothing of them (its
// arguments are the pod's own mount paths), so neither the kubelet's
// $(VAR) expansion nor a shell ever sees them; the chart renders nothing
// but the Jobs. A path with a line break is refused by the engine, naming
// the field, before any pod mounts it.
func TestHostileTierPathsReachTheJobsAsData(t *testing.T) {
	// ':' and ',' separate JuiceFS cache directories.
	line := strings.NewReplacer(":", "", ",", "").Replace(enginetest.HostileLine)
	c := engineCases()["juicefs"]
	rt := c.runtime.(*datav1alpha1.JuiceFSRuntime)
	rt.Spec.TieredStore.Levels[0].Path = "/mnt/a" + line + ":/mnt/b" + line
	req, release := c.build(t)
	if len(req.Nodes) != 3 {
		t.Fatalf("planned %d nodes, want the workers' and FUSE's 3: %+v", len(req.Nodes), req.Nodes)
	}
	js := jobs(t, render(t, release, cachecleanup.Build(release, req)))
	if len(js) != 3 {
		t.Fatalf("%d Jobs, want 3", len(js))
	}
	for _, j := range js {
		var parents []string
		for _, v := range j.Spec.Template.Spec.Volumes {
			parents = append(parents, v.HostPath.Path)
		}
		want := []string{path.Dir(engines.HostCacheDir("/mnt/a"+line, "team-a", "imagenet")), path.Dir(engines.HostCacheDir("/mnt/b"+line, "team-a", "imagenet"))}
		if strings.Join(parents, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s mounts %q, want %q", j.Name, parents, want)
		}
		for _, a := range j.Spec.Template.Spec.Containers[0].Command[3:] {
			if !strings.HasPrefix(a, cachecleanup.MountRoot+"/") || strings.ContainsAny(a, "$'\"` ;{}") {
				t.Errorf("%s's argv holds %q", j.Name, a)
			}
		}
	}

	rt.Spec.TieredStore.Levels[0].Path = "/mnt/a" + enginetest.Hostile
	_, err := juicefs.Engine{}.Values(c.dataset, rt)
	enginetest.WantInvalid(t, err, "spec.tieredstore.levels[0].path")
}
