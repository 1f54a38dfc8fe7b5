package sidecar

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/sluice-data/sluice/webhook/decision"
	"github.com/sluice-data/sluice/webhook/snapshot"
)

// juicefsLike is a FUSE template shaped like the engines' charts: the
// host directory /runtime-mnt/ds mounted at the same path, the FUSE mount
// point below it, and a cache directory.
func juicefsLike() []snapshot.DatasetVolume {
	bidi := corev1.MountPropagationBidirectional
	return []snapshot.DatasetVolume{{Volume: "data", Fuse: &snapshot.FuseTemplate{
		Container: corev1.Container{Name: "fuse", Image: "fuse:1", VolumeMounts: []corev1.VolumeMount{
			{Name: "fuse-mount", MountPath: "/runtime-mnt/ds", MountPropagation: &bidi},
			{Name: "cache-dir", MountPath: "/var/cache"},
		}},
		Volumes: []corev1.Volume{
			{Name: "fuse-mount", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/runtime-mnt/ds"}}},
			{Name: "cache-dir", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/cache"}}},
		},
	}}}
}

func uniqueDecision() *decision.Mutating {
	return &decision.Mutating{
		VolumeRewrites: []decision.VolumeRewrite{{Volume: "data", HostPath: "/runtime-mnt/ds/fuse/sub"}},
		Sidecars: []decision.Sidecar{{Volume: "data", Dataset: "ns/ds", MountPath: "/runtime-mnt/ds/fuse",
			Mode: decision.NativeSidecar, UniqueHostPath: true}},
	}
}

func hostPathOf(p *corev1.Pod, name string) string {
	if v := findVolume(p, name); v != nil && v.HostPath != nil {
		return v.HostPath.Path
	}
	return ""
}

func TestRandomSuffixGivesEachPodItsOwnHostDirectory(t *testing.T) {
	p := appPod()
	p.Name = "trainer-0"
	if err := (Mutator{}).Mutate(p, uniqueDecision(), juicefsLike()); err != nil {
		t.Fatal(err)
	}
	dir := hostPathOf(p, "fuse-mount")
	suffix := strings.TrimPrefix(dir, "/runtime-mnt/ds/")
	if !strings.HasPrefix(suffix, "trainer-0-") || !suffixPattern.MatchString(suffix) {
		t.Fatalf("FUSE host directory = %s, want /runtime-mnt/ds/trainer-0-<16 hex>", dir)
	}
	if got, want := hostPathOf(p, "data"), "/runtime-mnt/ds/"+suffix+"/fuse/sub"; got != want {
		t.Fatalf("dataset volume = %s, want %s", got, want)
	}
	if m := p.Spec.InitContainers[0].VolumeMounts[0]; m.Name != "fuse-mount" || m.MountPath != "/runtime-mnt/ds" {
		t.Fatalf("the FUSE container's own path changed: %+v", m)
	}

	// A second Pod from the same template gets another directory.
	other := appPod()
	other.GenerateName = "job-"
	if err := (Mutator{}).Mutate(other, uniqueDecision(), juicefsLike()); err != nil {
		t.Fatal(err)
	}
	if o := hostPathOf(other, "fuse-mount"); o == dir || !strings.HasPrefix(o, "/runtime-mnt/ds/job-") {
		t.Fatalf("second Pod's directory = %s (first %s)", o, dir)
	}

	// The pipeline run on its own output keeps the suffix.
	again := p.DeepCopy()
	if err := (Mutator{}).Mutate(again, uniqueDecision(), juicefsLike()); err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(again, p) {
		t.Fatalf("a second pass changed the Pod: %s -> %s", hostPathOf(p, "data"), hostPathOf(again, "data"))
	}
}

func TestWithoutTheAnnotationTheHostDirectoryIsShared(t *testing.T) {
	p := appPod()
	d := uniqueDecision()
	d.Sidecars[0].UniqueHostPath = false
	if err := (Mutator{}).Mutate(p, d, juicefsLike()); err != nil {
		t.Fatal(err)
	}
	if hostPathOf(p, "fuse-mount") != "/runtime-mnt/ds" || hostPathOf(p, "data") != "/runtime-mnt/ds/fuse/sub" {
		t.Fatalf("paths = %s, %s", hostPathOf(p, "fuse-mount"), hostPathOf(p, "data"))
	}
}

func TestRandomSuffixNeedsAHostDirectoryAboveTheMountPoint(t *testing.T) {
	vs := juicefsLike()
	vs[0].Fuse.Container.VolumeMounts[0].MountPath = "/elsewhere"
	p := appPod()
	before := p.DeepCopy()
	err := (Mutator{}).Mutate(p, uniqueDecision(), vs)
	if err == nil || !strings.Contains(err.Error(), "default.fuse-sidecar.fluid.io/host-mount-path-mode=random-suffix, volume \"data\" (dataset ns/ds): the FUSE template mounts no host directory at or above its mount point /runtime-mnt/ds/fuse") {
		t.Fatalf("error = %v", err)
	}
	if !equality.Semantic.DeepEqual(before, p) {
		t.Fatal("the Pod changed before the error")
	}
}

func TestCacheDirVolumesAreDroppedAsDecided(t *testing.T) {
	p := appPod()
	d := uniqueDecision()
	d.Sidecars[0].UniqueHostPath = false
	d.Sidecars[0].DropVolumes = []string{"cache-dir"}
	vs := juicefsLike()
	if err := (Mutator{}).Mutate(p, d, vs); err != nil {
		t.Fatal(err)
	}
	if findVolume(p, "cache-dir") != nil {
		t.Error("the cache-dir volume was injected")
	}
	for _, m := range p.Spec.InitContainers[0].VolumeMounts {
		if m.Name == "cache-dir" {
			t.Error("the sidecar mounts the dropped cache-dir volume")
		}
	}
	if len(vs[0].Fuse.Volumes) != 2 || len(vs[0].Fuse.Container.VolumeMounts) != 2 {
		t.Error("the shared FUSE template itself changed")
	}

	kept := appPod()
	d.Sidecars[0].DropVolumes = nil
	if err := (Mutator{}).Mutate(kept, d, juicefsLike()); err != nil {
		t.Fatal(err)
	}
	if hostPathOf(kept, "cache-dir") != "/var/cache" {
		t.Error("the cache-dir volume was dropped although the decision keeps it")
	}
}
