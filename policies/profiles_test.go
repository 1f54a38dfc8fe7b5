package policies_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/webhook/decision"
	"github.com/sluice-data/sluice/webhook/fixture"
	"github.com/sluice-data/sluice/webhook/policy"
)

func TestTheProfilesAreKnown(t *testing.T) {
	if got, want := policies.Profiles(), []string{policies.ProfileFluidCompatible, policies.ProfileRestricted}; !slices.Equal(got, want) {
		t.Fatalf("profiles %v, want %v", got, want)
	}
	for _, name := range []string{"", policies.ProfileRestricted} {
		data, err := policies.Profile(name)
		if err != nil || len(data) != 0 {
			t.Errorf("profile %q: %v, %v; want the defaults unchanged", name, data, err)
		}
	}
	_, err := policies.Profile("fluid")
	if err == nil || !strings.Contains(err.Error(), `unknown policy profile "fluid" (known: fluid-compatible, restricted)`) {
		t.Errorf("unknown profile: %v", err)
	}
}

// widened are the only policy data the fluid-compatible profile may set:
// the lists of what a namespace user reaches on the nodes for its own data.
// Everything that protects the platform (reservedHostPaths,
// reservedTaints, privilegedFields, processPrivileges, thinOverrides,
// envNames, jvmOptions, fuseArgs, references, operations) stays the
// default's.
var widened = []string{
	"validating.guards.*.localPaths",
	"validating.guards.*.tieredstorePaths",
	"validating.guards.*.hostPathVolumes",
	"validating.guards.*.imagePrefixes",
}

func TestFluidCompatibleWidensOnlyTheDataLists(t *testing.T) {
	over, err := policies.Profile(policies.ProfileFluidCompatible)
	if err != nil {
		t.Fatal(err)
	}
	var set []string
	var leaves func(prefix string, m map[string]any)
	leaves = func(prefix string, m map[string]any) {
		for k, v := range m {
			if sub, ok := v.(map[string]any); ok {
				leaves(prefix+k+".", sub)
				continue
			}
			set = append(set, prefix+k)
		}
	}
	leaves("", over)
	slices.Sort(set)
	for _, s := range set {
		if !slices.Contains(widened, s) {
			t.Errorf("the profile sets %s; only %v may be set", s, widened)
		}
	}
	defaults, err := policies.DefaultData(policies.ProfileRestricted)
	if err != nil {
		t.Fatal(err)
	}
	merged, err := policies.DefaultData(policies.ProfileFluidCompatible)
	if err != nil {
		t.Fatal(err)
	}
	star := func(d map[string]any) map[string]any {
		return d["validating"].(map[string]any)["guards"].(map[string]any)["*"].(map[string]any)
	}
	for _, img := range star(defaults)["imagePrefixes"].([]any) {
		if !slices.Contains(star(merged)["imagePrefixes"].([]any), img) {
			t.Errorf("fluid-compatible drops the default image prefix %v", img)
		}
	}
	if len(star(merged)["reservedHostPaths"].([]any)) == 0 {
		t.Error("fluid-compatible has no reserved host paths")
	}
}

// TestFluidCompatibleAdmitsFluidsSetupsAndKeepsThePlatformsRules
// evaluates the validating webhook's pipeline under each profile.
func TestFluidCompatibleAdmitsFluidsSetupsAndKeepsThePlatformsRules(t *testing.T) {
	ns := "team-a"
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name, Namespace: ns} }
	dataset := func(mount string) client.Object {
		return &datav1alpha1.Dataset{ObjectMeta: meta("data"), Spec: datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{{MountPoint: mount, Name: "data"}}}}
	}
	alluxio := func(tier, image string) client.Object {
		rt := &datav1alpha1.AlluxioRuntime{ObjectMeta: meta("data")}
		rt.Spec.Replicas = 1
		rt.Spec.AlluxioVersion.Image = image
		rt.Spec.TieredStore.Levels = []datav1alpha1.Level{{MediumType: datav1alpha1.SSD, Path: tier, Quota: ptrQuantity("10Gi")}}
		return rt
	}
	juicefsVolume := func(hostPath string) client.Object {
		rt := &datav1alpha1.JuiceFSRuntime{ObjectMeta: meta("data")}
		rt.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: hostPath}}}}
		return rt
	}
	backup := func(path string) client.Object {
		return &datav1alpha1.DataBackup{ObjectMeta: meta("backup"), Spec: datav1alpha1.DataBackupSpec{Dataset: "data", BackupPath: path}}
	}
	tolerating := func() client.Object {
		ds := dataset("https://mirrors.example.com/spark/").(*datav1alpha1.Dataset)
		ds.Spec.Tolerations = []corev1.Toleration{{Key: "node-role.kubernetes.io/control-plane", Operator: corev1.TolerationOpExists}}
		return ds
	}
	cases := []struct {
		what       string
		obj        client.Object
		restricted string // the rule that denies it under restricted ("" admitted)
		fluid      string // and under fluid-compatible
	}{
		{"a local:// mount of Fluid's docs", dataset("local:///mnt/nfs-imagenet"), "local-mount", ""},
		{"a local:// mount with a trailing slash", dataset("local:///data/subpath1/"), "local-mount", ""},
		{"a local:// mount of the kubelet's directory", dataset("local:///var/lib/kubelet"), "local-mount", "local-mount"},
		{"a local:// mount of the root", dataset("local:///"), "local-mount", "local-mount"},
		{"Fluid's docker tier", alluxio("/var/lib/docker/alluxio", ""), "tieredstore-path", ""},
		{"a tier in /proc", alluxio("/proc/sys", ""), "tieredstore-path", "tieredstore-path"},
		{"Fluid's Alluxio image", alluxio("/dev/shm", "fluidcloudnative/alluxio"), "image-registry", ""},
		{"an unknown image", alluxio("/dev/shm", "evil.example.com/alluxio"), "image-registry", "image-registry"},
		{"a hostPath volume of JuiceFS's cache", juicefsVolume("/var/jfsCache"), "host-path-volume", ""},
		{"a hostPath volume of /etc", juicefsVolume("/etc"), "host-path-volume", "host-path-volume"},
		{"a backup to a node directory", backup("local:///data/backup"), "local-mount", ""},
		{"a toleration of the control plane's taint", tolerating(), "toleration", "toleration"},
	}
	for _, profile := range []string{policies.ProfileRestricted, policies.ProfileFluidCompatible} {
		b, err := policy.ProfileBundle(profile)
		if err != nil {
			t.Fatal(err)
		}
		p, err := fixture.NewValidatingPipeline(context.Background(), b, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			want := c.restricted
			if profile == policies.ProfileFluidCompatible {
				want = c.fluid
			}
			req, err := fixture.ValidatingRequest(c.obj, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Validate(context.Background(), req)
			var denied *decision.DeniedError
			switch {
			case want == "" && err != nil:
				t.Errorf("%s: %s is denied: %v", profile, c.what, err)
			case want != "" && !errors.As(err, &denied):
				t.Errorf("%s: %s: %v; want denied by rule %s", profile, c.what, err, want)
			case want != "" && !strings.Contains(err.Error(), "(rule "+want+")"):
				t.Errorf("%s: %s: %v; want rule %s", profile, c.what, err, want)
			}
		}
	}
}

func ptrQuantity(s string) *resource.Quantity {
	q := resource.MustParse(s)
	return &q
}
