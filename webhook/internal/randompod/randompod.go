package randompod

import (
	"fmt"
	"io/fs"
	"math/rand"
	"path"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/sluice-data/sluice/policies"
)

// Fixtures returns the Pods of the mutating fixture cases (each case's
// pod.yaml and expected.yaml), in file-name order.
func Fixtures() ([]*corev1.Pod, error) {
	files, err := fs.Glob(policies.FS, "testdata/mutating/*/*.yaml")
	if err != nil {
		return nil, err
	}
	var pods []*corev1.Pod
	for _, f := range files {
		if base := path.Base(f); base != "pod.yaml" && base != "expected.yaml" {
			continue
		}
		data, err := fs.ReadFile(policies.FS, f)
		if err != nil {
			return nil, err
		}
		p := &corev1.Pod{}
		if err := yaml.Unmarshal(data, p); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		pods = append(pods, p)
	}
	if len(pods) == 0 {
		return nil, fmt.Errorf("no fixture Pods")
	}
	return pods, nil
}

// Perturb makes one random change of the kind mutators (or users) make.
func Perturb(rng *rand.Rand, p *corev1.Pod) {
	pick := func(s ...string) string { return s[rng.Intn(len(s))] }
	container := func() *corev1.Container {
		cs := &p.Spec.Containers
		if rng.Intn(3) == 0 {
			cs = &p.Spec.InitContainers
		}
		if len(*cs) == 0 || rng.Intn(5) == 0 {
			*cs = append(*cs, corev1.Container{Name: pick("a", "b", "fuse")})
		}
		return &(*cs)[rng.Intn(len(*cs))]
	}
	switch rng.Intn(25) {
	case 0:
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		p.Labels[pick("a", "b/c", "x~y", "done.sidecar.fluid.io/inject")] = pick("true", "false", "")
	case 1:
		for k := range p.Labels {
			delete(p.Labels, k)
			break
		}
	case 2:
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[pick("fluid.io/datasets-in-use", "note")] = pick("a", "a,b")
	case 3:
		p.Annotations = nil
	case 4:
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: pick("data", "fuse-mount", "cache"),
			VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "c"}}})
	case 5:
		if n := len(p.Spec.Volumes); n > 0 {
			i := rng.Intn(n)
			p.Spec.Volumes[i].VolumeSource = corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/runtime-mnt/x", Type: ptr.To(corev1.HostPathDirectoryOrCreate)}}
		}
	case 6:
		if n := len(p.Spec.Volumes); n > 0 {
			p.Spec.Volumes = slices.Delete(p.Spec.Volumes, 0, 1+rng.Intn(n))
		}
	case 7:
		c := container()
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "data", MountPath: pick("/data", "/mnt")})
	case 8:
		c := container()
		for i := range c.VolumeMounts {
			c.VolumeMounts[i].MountPropagation = ptr.To(corev1.MountPropagationMode(pick("HostToContainer", "Bidirectional")))
		}
	case 9:
		c := container()
		c.SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(rng.Intn(2) == 0),
			Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"SYS_ADMIN"}}}
	case 10:
		c := container()
		if c.SecurityContext != nil {
			c.SecurityContext.Privileged = nil
			c.SecurityContext.Capabilities = nil
		}
	case 11:
		c := container()
		c.Resources = corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(pick("1Gi", "1024Mi", "2Gi"))}}
	case 12:
		c := container()
		c.StartupProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", pick("a", "b")}}},
			PeriodSeconds: int32(rng.Intn(3))}
	case 13:
		c := container()
		c.Lifecycle = &corev1.Lifecycle{PostStart: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromString(pick("http", "8080"))}}}
	case 14:
		c := container()
		c.RestartPolicy = ptr.To(corev1.ContainerRestartPolicyAlways)
	case 15:
		c := container()
		c.Env = append(c.Env, corev1.EnvVar{Name: "X", Value: pick("1", "")})
	case 16:
		p.Spec.Affinity = nil
	case 17:
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &corev1.Affinity{}
		}
		if p.Spec.Affinity.NodeAffinity == nil {
			p.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
		}
		na := p.Spec.Affinity.NodeAffinity
		na.PreferredDuringSchedulingIgnoredDuringExecution = append(na.PreferredDuringSchedulingIgnoredDuringExecution, corev1.PreferredSchedulingTerm{
			Weight: int32(rng.Intn(100)), Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "k", Operator: corev1.NodeSelectorOpIn, Values: []string{"true"}}}}})
	case 18:
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{}}
		}
		if p.Spec.Affinity.NodeAffinity == nil {
			p.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
		}
		na := p.Spec.Affinity.NodeAffinity
		if na.RequiredDuringSchedulingIgnoredDuringExecution == nil || rng.Intn(2) == 0 {
			na.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{}}}
		}
		terms := na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
		if len(terms) > 0 {
			terms[0].MatchExpressions = append(terms[0].MatchExpressions, corev1.NodeSelectorRequirement{Key: pick("a", "b"), Operator: corev1.NodeSelectorOpExists})
		}
	case 19:
		p.CreationTimestamp = metav1.Unix(int64(rng.Intn(2)), 0)
	case 20:
		c := container()
		c.Image = pick("busybox", "fuse:1", "")
	case 21:
		c := container()
		c.VolumeMounts = nil
	case 22:
		// nil and empty collections: equal to equality.Semantic, not to JSON
		c := container()
		switch rng.Intn(3) {
		case 0:
			c.Command = []string{}
		case 1:
			c.Command = nil
		default:
			c.Resources.Limits = corev1.ResourceList{}
		}
	case 23:
		if p.Labels == nil {
			p.Labels = map[string]string{}
		} else if len(p.Labels) == 0 {
			p.Labels = nil
		}
	case 24:
		c := container()
		c.SecurityContext = &corev1.SecurityContext{Capabilities: &corev1.Capabilities{Add: []corev1.Capability{}}}
	}
}
