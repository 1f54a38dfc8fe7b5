package thin

import (
	"maps"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/thin/warmup"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

// Where the load pod has the Dataset: its PVC, read-only, at warmup's
// default root.
const (
	loadVolume    = "sluice-dataset"
	loadContainer = "warmup"
)

// The DataLoad options a Thin load takes, each a flag of sluice warmup.
const (
	optionThreads = "threads"
	optionTimeout = "timeout"
)

// loadPod runs `sluice warmup` in Sluice's image: it reads every file
// below the targets (the whole Dataset without targets) through the
// Dataset's PVC, so the CSI plugin starts the Dataset's FUSE on the pod's
// node and the FUSE program fills its cache there. The pod runs only where
// the runtime's FUSE may run (spec.fuse.nodeSelector, as merged over the
// profile's); spec.nodeSelector, spec.affinity or a runAfter affinity
// choose the node among those. loadMetadata lists and stats everything
// before reading; target replicas above 1 are refused (the FUSE program
// keeps one copy, on its node).
func (e ProfileEngine) loadPod(req engines.OperationRequest, rt *datav1alpha1.ThinRuntime) (dataop.Pod, error) {
	dl := req.Op.(*datav1alpha1.DataLoad)
	if e.SluiceImage == "" {
		return dataop.Pod{}, engines.Invalid("a Thin DataLoad runs `sluice warmup` in Sluice's image, which the controller was not given (its --sluice-image flag; the chart sets it)")
	}
	paths := make([]string, 0, len(dl.Spec.Target))
	for i, t := range dl.Spec.Target {
		if err := warmup.CheckPath(t.Path); err != nil {
			return dataop.Pod{}, engines.Invalid("spec.target[%d].path %q: %v", i, t.Path, err)
		}
		if t.Replicas > 1 {
			return dataop.Pod{}, engines.Invalid("spec.target[%d].replicas is %d: a Thin runtime's FUSE program caches one copy, on the node the load pod runs on", i, t.Replicas)
		}
		paths = append(paths, t.Path)
	}
	if len(paths) == 0 {
		paths = []string{"/"}
	}
	flags, err := loadFlags(dl.Spec.Options)
	if err != nil {
		return dataop.Pod{}, err
	}
	argv := append(dataop.Args("sluice", warmup.Command, "--root="+warmup.DefaultRoot), flags...)
	if dl.Spec.LoadMetadata {
		argv = append(argv, "--metadata")
	}
	argv = append(append(argv, "--"), dataop.Args(paths...)...)

	res := Merge(e.Profile, rt)
	c := dataop.Image{Repository: e.SluiceImage, PullPolicy: corev1.PullIfNotPresent}.Container()
	c.Name, c.Command, c.Resources = loadContainer, argv, dl.Spec.Resources
	c.VolumeMounts = []corev1.VolumeMount{{Name: loadVolume, MountPath: warmup.DefaultRoot, ReadOnly: true}}
	c.SecurityContext = &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true), RunAsNonRoot: ptr.To(true),
		Capabilities:   &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
	return dataop.Pod{Spec: corev1.PodSpec{
		Containers:       []corev1.Container{c},
		ImagePullSecrets: res.ImagePullSecrets,
		NodeSelector:     maps.Clone(res.Fuse.NodeSelector),
		Volumes: []corev1.Volume{{Name: loadVolume, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: req.Dataset.Name, ReadOnly: true}}}},
	}}, nil
}

// loadFlags are warmup's flags for the DataLoad's options: threads (files
// read at once) and timeout (how long the load may run, a Go duration);
// any other option is refused, naming it.
func loadFlags(opts map[string]string) ([]string, error) {
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		v := opts[k]
		switch k {
		case optionThreads:
			if n, err := strconv.Atoi(v); err != nil || n < 1 || n > warmup.MaxThreads {
				return nil, engines.Invalid("spec.options[%q] is %q: how many files are read at once, 1 to %d", k, v, warmup.MaxThreads)
			}
		case optionTimeout:
			if d, err := time.ParseDuration(v); err != nil || d <= 0 {
				return nil, engines.Invalid("spec.options[%q] is %q: how long the load may run, a duration such as 30m or 2h", k, v)
			}
		default:
			return nil, engines.Invalid("spec.options[%q]: a Thin DataLoad takes the options %s and %s only", k, optionThreads, optionTimeout)
		}
	}
	return dataop.Flags("spec.options", opts)
}
