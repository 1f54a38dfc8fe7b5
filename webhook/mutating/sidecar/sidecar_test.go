package sidecar

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/sluice-data/sluice/webhook/decision"
	"github.com/sluice-data/sluice/webhook/mutating/mountcheck"
	"github.com/sluice-data/sluice/webhook/snapshot"
)

func appPod() *corev1.Pod {
	return &corev1.Pod{Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Name: "app", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}},
		Volumes: []corev1.Volume{
			{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "ds"}}},
			{Name: "mnt", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		},
	}}
}

func template() *snapshot.FuseTemplate {
	bidi := corev1.MountPropagationBidirectional
	return &snapshot.FuseTemplate{
		Container: corev1.Container{Name: "fuse", Image: "fuse:1", VolumeMounts: []corev1.VolumeMount{
			{Name: "mnt", MountPath: "/runtime-mnt", MountPropagation: &bidi},
			{Name: "dev", MountPath: "/dev/fuse"},
		}},
		Volumes: []corev1.Volume{
			{Name: "mnt", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/runtime-mnt"}}},
			{Name: "dev", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/dev/fuse"}}},
		},
	}
}

func decide(mode decision.SidecarMode, unprivileged, gate bool) *decision.Mutating {
	return &decision.Mutating{
		VolumeRewrites: []decision.VolumeRewrite{{Volume: "data", HostPath: "/runtime-mnt/ds/fuse"}},
		Sidecars:       []decision.Sidecar{{Volume: "data", Dataset: "ns/ds", MountPath: "/runtime-mnt/ds/fuse", Mode: mode, Unprivileged: unprivileged, ReadinessGate: gate}},
	}
}

func vols() []snapshot.DatasetVolume {
	return []snapshot.DatasetVolume{{Volume: "data", Fuse: template()}}
}

func TestNativeSidecarWithRenamedVolumeAndGate(t *testing.T) {
	p := appPod()
	if err := (Mutator{}).Mutate(p, decide(decision.NativeSidecar, false, true), vols()); err != nil {
		t.Fatal(err)
	}
	if p.Spec.Volumes[0].HostPath == nil || p.Spec.Volumes[0].HostPath.Path != "/runtime-mnt/ds/fuse" || p.Spec.Volumes[0].PersistentVolumeClaim != nil {
		t.Fatalf("volume not rewritten: %+v", p.Spec.Volumes[0])
	}
	if m := p.Spec.Containers[0].VolumeMounts[0].MountPropagation; m == nil || *m != corev1.MountPropagationHostToContainer {
		t.Fatalf("app mount propagation = %v", m)
	}
	if len(p.Spec.InitContainers) != 1 {
		t.Fatalf("want one init container, got %d", len(p.Spec.InitContainers))
	}
	sc := p.Spec.InitContainers[0]
	if sc.Name != "fluid-fuse-0" || sc.RestartPolicy == nil || *sc.RestartPolicy != corev1.ContainerRestartPolicyAlways {
		t.Fatalf("sidecar = %s restartPolicy %v", sc.Name, sc.RestartPolicy)
	}
	if sc.VolumeMounts[0].Name != "mnt-0" {
		t.Fatalf("clashing template volume not renamed: mount uses %q", sc.VolumeMounts[0].Name)
	}
	if sc.StartupProbe == nil || !slices.Equal(sc.StartupProbe.Exec.Command, mountcheck.Command(1, "/runtime-mnt/ds/fuse")) {
		t.Fatalf("no mount-readiness startup probe: %+v", sc.StartupProbe)
	}
	if p.Labels["dataset-namespace.sidecar.fluid.io/fluid-fuse-0"] != "ns" || p.Labels["dataset-name.sidecar.fluid.io/fluid-fuse-0"] != "ds" {
		t.Fatalf("labels = %v", p.Labels)
	}
	names := map[string]bool{}
	for _, v := range p.Spec.Volumes {
		if names[v.Name] {
			t.Fatalf("duplicate volume %q", v.Name)
		}
		names[v.Name] = true
	}
}

func TestContainerSidecarUnprivilegedNoGate(t *testing.T) {
	p := appPod()
	if err := (Mutator{}).Mutate(p, decide(decision.ContainerSidecar, true, false), vols()); err != nil {
		t.Fatal(err)
	}
	if len(p.Spec.Containers) != 2 || p.Spec.Containers[0].Name != "fluid-fuse-0" {
		t.Fatalf("sidecar not first container: %v", p.Spec.Containers)
	}
	sc := p.Spec.Containers[0]
	if sc.Lifecycle != nil || sc.StartupProbe != nil {
		t.Fatal("readiness gate added although the decision opted out")
	}
	if sc.SecurityContext == nil || sc.SecurityContext.Privileged == nil || *sc.SecurityContext.Privileged {
		t.Fatal("sidecar is still privileged")
	}
	for _, m := range sc.VolumeMounts {
		if m.MountPath == "/dev/fuse" {
			t.Fatal("unprivileged sidecar still mounts /dev/fuse")
		}
		if m.MountPropagation != nil && *m.MountPropagation == corev1.MountPropagationBidirectional {
			t.Fatal("unprivileged sidecar keeps a Bidirectional mount")
		}
	}
	for _, v := range p.Spec.Volumes {
		if v.HostPath != nil && v.HostPath.Path == "/dev/fuse" {
			t.Fatal("/dev/fuse volume left in the Pod")
		}
	}
}

func TestErrorsLeaveNoHalfMutation(t *testing.T) {
	tests := []struct {
		name string
		d    *decision.Mutating
		vols []snapshot.DatasetVolume
		want string
	}{
		{"rewrite of a missing volume", &decision.Mutating{VolumeRewrites: []decision.VolumeRewrite{{Volume: "nope", HostPath: "/x"}}}, nil, `no volume "nope"`},
		{"sidecar without template", decide(decision.NativeSidecar, false, true), []snapshot.DatasetVolume{{Volume: "data"}}, "no FUSE template"},
		{"unknown mode", decide("sideways", false, true), vols(), `unknown mode "sideways"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := (Mutator{}).Mutate(appPod(), tt.d, tt.vols)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestEnvAndResourcesSetOnTheSidecarOnly(t *testing.T) {
	vs := vols()
	tmpl := vs[0].Fuse
	tmpl.Container.Env = []corev1.EnvVar{{Name: "LOG", Value: "info"}, {Name: "KEEP", Value: "1"}}
	tmpl.Container.Resources = corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi"), corev1.ResourceCPU: resource.MustParse("1")},
	}
	d := decide(decision.NativeSidecar, false, true)
	d.Sidecars[0].Env = []corev1.EnvVar{{Name: "LOG", Value: "debug"}, {Name: "HTTPS_PROXY", Value: "http://proxy:3128"}}
	d.Sidecars[0].Resources = corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("2Gi")}}
	p := appPod()
	if err := (Mutator{}).Mutate(p, d, vs); err != nil {
		t.Fatal(err)
	}
	sc := p.Spec.InitContainers[0]
	want := []corev1.EnvVar{{Name: "LOG", Value: "debug"}, {Name: "KEEP", Value: "1"}, {Name: "HTTPS_PROXY", Value: "http://proxy:3128"}}
	if !equality.Semantic.DeepEqual(sc.Env, want) {
		t.Errorf("env = %+v, want %+v", sc.Env, want)
	}
	if sc.Resources.Limits.Memory().String() != "2Gi" || sc.Resources.Requests.Memory().String() != "1Gi" || sc.Resources.Requests.Cpu().String() != "1" {
		t.Errorf("resources = %+v", sc.Resources)
	}
	if len(p.Spec.Containers[0].Env) != 0 || len(p.Spec.Containers[0].Resources.Limits) != 0 {
		t.Errorf("app container changed: %+v", p.Spec.Containers[0])
	}
	if tmpl.Container.Env[0].Value != "info" || tmpl.Container.Resources.Limits != nil {
		t.Errorf("the FUSE template itself changed: %+v", tmpl.Container)
	}
	// A second pass over its own output changes nothing.
	again := p.DeepCopy()
	if err := (Mutator{}).Mutate(again, d, vs); err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(again, p) {
		t.Error("a second pass changed the Pod")
	}
}

func TestLimitBelowTheTemplatesRequestIsRefused(t *testing.T) {
	vs := vols()
	vs[0].Fuse.Container.Resources.Requests = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("4Gi")}
	d := decide(decision.NativeSidecar, false, true)
	d.Sidecars[0].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("2Gi")}
	p := appPod()
	err := (Mutator{}).Mutate(p, d, vs)
	if err == nil || !strings.Contains(err.Error(), "the memory request 4Gi would exceed the limit 2Gi (the limit set by the policy, the request the FUSE template's)") {
		t.Fatalf("error = %v", err)
	}
	if len(p.Spec.InitContainers) != 0 || len(p.Spec.Volumes) != 2 {
		t.Fatalf("the Pod was changed before the error: %+v", p.Spec)
	}
	d.Sidecars[0].Resources.Requests = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("2Gi")}
	if err := (Mutator{}).Mutate(appPod(), d, vs); err != nil {
		t.Fatalf("limit and request set together: %v", err)
	}
}

// TestAReadOnlyClaimStaysReadOnly (reliability audit M3): a claim the Pod
// mounts read-only is still read-only in every mount once it is rewritten
// to the FUSE hostPath; the rewrite used to drop the flag, so sidecar Pods
// could write to a shared dataset.
func TestAReadOnlyClaimStaysReadOnly(t *testing.T) {
	p := appPod()
	p.Spec.Volumes[0].PersistentVolumeClaim.ReadOnly = true
	p.Spec.InitContainers = []corev1.Container{{Name: "prepare", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/in"}}}}
	if err := (Mutator{}).Mutate(p, decide(decision.ContainerSidecar, false, false), vols()); err != nil {
		t.Fatal(err)
	}
	for _, c := range append(p.Spec.InitContainers, p.Spec.Containers...) {
		for _, m := range c.VolumeMounts {
			if m.Name == "data" && !m.ReadOnly {
				t.Errorf("container %s mounts the read-only claim writable at %s", c.Name, m.MountPath)
			}
		}
	}
	writable := appPod()
	if err := (Mutator{}).Mutate(writable, decide(decision.ContainerSidecar, false, false), vols()); err != nil {
		t.Fatal(err)
	}
	if writable.Spec.Containers[0].VolumeMounts[0].ReadOnly {
		t.Error("a claim mounted writable became read-only")
	}
}

// TestAReadOnlyDatasetStaysReadOnly: a dataset volume whose PV admits
// only ReadOnlyMany (snapshot.VolumeFacts.ReadOnly), which the CSI plugin
// would mount read-only, is read-only in every mount of the rewritten
// hostPath volume, though the Pod's claim is writable; the sidecar's own
// mounts are untouched.
func TestAReadOnlyDatasetStaysReadOnly(t *testing.T) {
	p := appPod()
	p.Spec.InitContainers = []corev1.Container{{Name: "prepare", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/in"}}}}
	v := vols()
	v[0].Dataset.Volume.ReadOnly = true
	if err := (Mutator{}).Mutate(p, decide(decision.ContainerSidecar, false, false), v); err != nil {
		t.Fatal(err)
	}
	for _, c := range append(p.Spec.InitContainers, p.Spec.Containers...) {
		for _, m := range c.VolumeMounts {
			if m.Name == "data" && !m.ReadOnly {
				t.Errorf("container %s mounts the read-only dataset writable at %s", c.Name, m.MountPath)
			}
			if strings.HasPrefix(c.Name, ContainerPrefix) && m.ReadOnly && m.Name != AppsDoneVolume {
				t.Errorf("the sidecar's own mount %s became read-only", m.Name)
			}
		}
	}
}
