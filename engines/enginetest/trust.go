package enginetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/trust"
	"github.com/sluice-data/sluice/trust/guards"
)

// CheckTenantSafeStaysOut proves the tenant-safe rows of the trust table
// for kind (trust/table.go): setting each such field that the engine
// honours (table) to its sample changes nothing of what a container with
// host privileges (privileged, or on the host network) runs or mounts:
// its image, command, environment, mounts and the volumes behind them,
// hooks, probes, working directory and security context. Its arguments
// may change (a tenant value there is data: a mount option), and so may
// the argv data after its program, its image's tag and its resources. exempt names the tenant-safe fields that change such a
// container through what the platform judges elsewhere, each with why
// (a tier's volume type picks the mount of a judged path), so that the
// exemptions stay a short, explicit list.
func CheckTenantSafeStaysOut(t *testing.T, c RenderCase, spec apiextensionsv1.JSONSchemaProps, kind string, table engines.Fields, samples map[string]any, exempt map[string]string) {
	t.Helper()
	base, err := renderFor(c.Engine, c.Reader, c.Dataset, c.Runtime)
	if err != nil {
		t.Fatalf("baseline: %v", err)
	}
	baseHost := hostSurfaces(t, base)
	if len(baseHost) == 0 {
		t.Fatal("the baseline renders no container with host privileges: nothing to prove")
	}
	types, ok := trust.Kinds()[kind]
	if !ok {
		t.Fatalf("%s is not a data.fluid.io kind", kind)
	}
	leaves := trust.Paths(types)
	var seen []string
	for _, f := range table {
		if f.Support == engines.Refused || f.ActsOutsideChart != "" || !tenantSafe(kind, f.Path, leaves) {
			continue
		}
		path := f.Path
		seen = append(seen, path)
		if why, ok := exempt[path]; ok {
			if why == "" {
				t.Errorf("%s is exempt without a reason", path)
			}
			continue
		}
		baseHost := baseHost
		_, alternate := c.Alternate[path]
		c, rowBase := c.baseline(t, path, base)
		if alternate {
			baseHost = hostSurfaces(t, rowBase)
		}
		t.Run(path, func(t *testing.T) {
			out, v := c.renderSample(t, spec, samples, path, "a tenant-safe field")
			got := hostSurfaces(t, out)
			for name, want := range baseHost {
				after, ok := got[name]
				if !ok {
					continue // the field removed the container, or its host privileges
				}
				if d := cmp.Diff(want, after); d != "" {
					t.Errorf("the tenant-safe field %s (sample %v) changes %s, which runs with host privileges (-before +after):\n%s", path, v, name, d)
				}
			}
		})
	}
	for path := range exempt {
		if !slices.Contains(seen, path) {
			t.Errorf("exempt field %s is not a tenant-safe row the engine honours", path)
		}
	}
}

// tenantSafe says every field at or under path (an engine row's) is
// tenant-safe in the trust table.
func tenantSafe(kind, path string, leaves []string) bool {
	path = indexToEach(path)
	found := false
	for _, l := range leaves {
		if l == path || strings.HasPrefix(l, path+".") {
			found = true
			if row, _ := trust.Classify(kind, l); row.Class != trust.TenantSafe {
				return false
			}
		}
	}
	return found
}

// TierVolumeExempt are the tenant-safe tier fields that change the mounts
// of a host-privileged container, with why that is the platform's: they
// choose how the cache directory is backed, not which.
var TierVolumeExempt = map[string]string{
	"spec.tieredstore.levels[].volumeType":   "picks a hostPath (whose path the tieredstore-path rule judges) or an emptyDir for the cache directory",
	"spec.tieredstore.levels[].volumeSource": "an emptyDir cache directory's medium and size limit (other volume sources are refused by the engine)",
}

// hostSurface is what a container with host privileges runs and mounts:
// its image's repository (the image-registry rule judges it; a tag is the
// tenant's to choose), the program of its command (sh -c and its script,
// or the first element: what follows is argv data), environment, mounts
// and the volumes behind them, hooks, probes, working directory and
// security context.
type hostSurface struct {
	Image           string
	Program         []string
	Env             []corev1.EnvVar
	EnvFrom         []corev1.EnvFromSource
	VolumeMounts    []corev1.VolumeMount
	Volumes         []corev1.Volume
	Lifecycle       *corev1.Lifecycle
	LivenessProbe   *corev1.Probe
	ReadinessProbe  *corev1.Probe
	StartupProbe    *corev1.Probe
	WorkingDir      string
	SecurityContext *corev1.SecurityContext
}

// workload is the part of a rendered workload this check reads.
type workload struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Template corev1.PodTemplateSpec `json:"template"`
	} `json:"spec"`
}

// hostSurfaces are the host-privileged containers of every workload in
// out, by kind/name/container.
func hostSurfaces(t *testing.T, out map[string]string) map[string]hostSurface {
	t.Helper()
	surfaces := map[string]hostSurface{}
	for file, text := range out {
		for _, doc := range strings.Split(text, "\n---") {
			var w workload
			if err := yaml.Unmarshal([]byte(doc), &w); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			pod := w.Spec.Template.Spec
			for _, c := range append(slices.Clone(pod.InitContainers), pod.Containers...) {
				privileged := c.SecurityContext != nil && ptr.Deref(c.SecurityContext.Privileged, false)
				if !privileged && !pod.HostNetwork {
					continue
				}
				s := hostSurface{Image: guards.Repository(c.Image), Program: program(c.Command), Env: c.Env, EnvFrom: c.EnvFrom, VolumeMounts: c.VolumeMounts,
					Lifecycle: c.Lifecycle, LivenessProbe: c.LivenessProbe, ReadinessProbe: c.ReadinessProbe, StartupProbe: c.StartupProbe,
					WorkingDir: c.WorkingDir, SecurityContext: c.SecurityContext}
				for _, m := range c.VolumeMounts {
					for _, v := range pod.Volumes {
						if v.Name == m.Name {
							s.Volumes = append(s.Volumes, v)
						}
					}
				}
				surfaces[fmt.Sprintf("%s %s container %s", w.Kind, w.Metadata.Name, c.Name)] = s
			}
		}
	}
	return surfaces
}

// program is the part of a command that chooses the code that runs: a
// shell's -c and its script, or the first element.
func program(cmd []string) []string {
	if len(cmd) >= 3 && (cmd[0] == "sh" || cmd[0] == "bash" || strings.HasSuffix(cmd[0], "/sh") || strings.HasSuffix(cmd[0], "/bash")) && cmd[1] == "-c" {
		return cmd[:3]
	}
	if len(cmd) > 0 {
		return cmd[:1]
	}
	return nil
}
