package thin

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

// chartValues are the values of charts/thin (see its values.yaml).
type chartValues struct {
	Name         string               `json:"name"`
	Namespace    string               `json:"namespace"`
	DatasetID    string               `json:"datasetId"`
	Placement    string               `json:"placement"`
	MountsDigest string               `json:"mountsDigest"`
	NodeAffinity *corev1.NodeSelector `json:"nodeAffinity"`
	Tolerations  []corev1.Toleration  `json:"tolerations"`
	Config       FuseConfig           `json:"config"`
	Secrets      []secretMount        `json:"secrets"`
	Cache        []cacheVolume        `json:"cache"`
	Fuse         fuseValues           `json:"fuse"`
	Worker       workerValues         `json:"worker"`
}

// container is what the FUSE and worker containers share.
type container struct {
	Image            string                        `json:"image"`
	ImagePullPolicy  string                        `json:"imagePullPolicy"`
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets"`
	Env              []corev1.EnvVar               `json:"env"`
	Ports            []corev1.ContainerPort        `json:"ports"`
	Resources        corev1.ResourceRequirements   `json:"resources"`
	NodeSelector     map[string]string             `json:"nodeSelector"`
	HostNetwork      bool                          `json:"hostNetwork"`
	LivenessProbe    *corev1.Probe                 `json:"livenessProbe"`
	ReadinessProbe   *corev1.Probe                 `json:"readinessProbe"`
	// VolumeMounts and Volumes are the user's (spec.volumes referenced by
	// the component's volumeMounts); the chart adds its own.
	VolumeMounts []corev1.VolumeMount `json:"volumeMounts"`
	Volumes      []corev1.Volume      `json:"volumes"`
}

type fuseValues struct {
	container   `json:",inline"`
	Command     []string                 `json:"command"`
	Args        []string                 `json:"args"`
	Lifecycle   *corev1.Lifecycle        `json:"lifecycle"`
	PodMetadata datav1alpha1.PodMetadata `json:"podMetadata"`
	// HostPath is the node directory holding the mount point, mounted at
	// the same path with Bidirectional propagation.
	HostPath string `json:"hostPath"`
}

type workerValues struct {
	container `json:",inline"`
	Enabled   bool  `json:"enabled"`
	Replicas  int32 `json:"replicas"`
}

// labelsSetByChart are pod labels the chart sets and selects on.
var labelsSetByChart = []string{"app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/managed-by",
	datav1alpha1.LabelDataset, "fluid.io/dataset-placement", "role"}

// ValuesFor returns the chart values of a ThinRuntime with its profile for
// the Dataset it serves; specs that cannot run are engines.Invalid errors
// naming the field.
func ValuesFor(ds *datav1alpha1.Dataset, profile *datav1alpha1.ThinRuntimeProfile, rt *datav1alpha1.ThinRuntime) (map[string]any, error) {
	// The fields this engine cannot honour, also denied at admission.
	if err := Fields.Refuse(rt); err != nil {
		return nil, err
	}
	if err := DatasetFields.Refuse(ds); err != nil {
		return nil, engines.Invalid("dataset %s/%s %w", ds.Namespace, ds.Name, err)
	}
	if err := ProfileFields.Refuse(profile); err != nil {
		return nil, engines.Invalid("ThinRuntimeProfile %q: %w", profile.Name, err)
	}
	res := Merge(profile, rt)
	where := fmt.Sprintf("ThinRuntime %s/%s with ThinRuntimeProfile %q", rt.Namespace, rt.Name, rt.Spec.ProfileName)
	if res.FileSystemType == "" {
		return nil, engines.Invalid("ThinRuntimeProfile %q: spec.fileSystemType is empty; the CSI plugin checks the FUSE mount by this type", rt.Spec.ProfileName)
	}
	// The options reach the FUSE program in MOUNT_OPTIONS, an option line.
	if err := engines.CheckOptions("spec.fuse.options", res.Fuse.Options); err != nil {
		return nil, engines.Invalid("%s: %w", where, err)
	}
	cfg, secrets, err := fuseConfig(ds, res.Fuse.Options)
	if err != nil {
		return nil, err
	}
	cache, err := cacheVolumes(rt.Spec.TieredStore, rt.Namespace, rt.Name)
	if err != nil {
		return nil, err
	}
	placement := string(ds.Spec.Placement)
	if placement == "" {
		placement = string(datav1alpha1.ExclusiveMode)
	}
	v := chartValues{
		Name: rt.Name, Namespace: rt.Namespace, DatasetID: datasetID(ds), Placement: placement, MountsDigest: engines.MountsDigest(ds),
		Tolerations: ds.Spec.Tolerations, Config: cfg, Secrets: secrets, Cache: cache,
	}
	if ds.Spec.NodeAffinity != nil {
		v.NodeAffinity = ds.Spec.NodeAffinity.Required
	}
	if v.Fuse, err = fuse(ds, rt, res, where, secrets, cache); err != nil {
		return nil, err
	}
	if res.Worker.Enabled {
		if v.Worker, err = worker(rt, res, where, secrets, cache); err != nil {
			return nil, err
		}
	}
	return engines.ToPlain(v)
}

func fuse(ds *datav1alpha1.Dataset, rt *datav1alpha1.ThinRuntime, res Resolved, where string, secrets []secretMount, cache []cacheVolume) (fuseValues, error) {
	f := res.Fuse
	target := FusePath(ds.Namespace, ds.Name)
	hostPath := path.Dir(target)
	c, err := common("spec.fuse", where, f.VersionSpec, orList(f.ImagePullSecrets, res.ImagePullSecrets))
	if err != nil {
		return fuseValues{}, err
	}
	for _, k := range labelsSetByChart {
		if _, ok := f.PodMetadata.Labels[k]; ok {
			return fuseValues{}, engines.Invalid("%s: spec.fuse.podMetadata.labels sets %q, which the chart sets and selects on", where, k)
		}
	}
	reserved := reservedMounts(secrets, cache, map[string]string{hostPath: "the FUSE mount's host directory", devFuse: "the FUSE device"})
	if c.Volumes, err = userVolumes("spec.fuse.volumeMounts", where, f.VolumeMounts, res.Volumes, reserved, secrets, cache); err != nil {
		return fuseValues{}, err
	}
	// The FUSE label starts FUSE where the CSI plugin staged the dataset.
	sel := mergeMap(f.NodeSelector, map[string]string{datav1alpha1.KeyOf(ds).FuseLabelKey(): "true"})
	builtin := []corev1.EnvVar{
		{Name: "FLUID_RUNTIME_TYPE", Value: "thin"},
		{Name: "FLUID_RUNTIME_NS", Value: rt.Namespace},
		{Name: "FLUID_RUNTIME_NAME", Value: rt.Name},
		{Name: "FLUID_FUSE_MOUNTPOINT", Value: target},
	}
	if opts := optionString(f.Options); opts != "" {
		// The kubelet expands $(VAR) in env values: the options pass as they are.
		builtin = append(builtin, corev1.EnvVar{Name: "MOUNT_OPTIONS", Value: dataop.NoExpand(opts)})
	}
	c.Env = mergeByKey(builtin, f.Env, func(e corev1.EnvVar) string { return e.Name })
	c.Ports, c.Resources, c.NodeSelector = f.Ports, f.Resources, sel
	c.HostNetwork = f.NetworkMode != datav1alpha1.ContainerNetworkMode
	c.LivenessProbe, c.ReadinessProbe, c.VolumeMounts = f.LivenessProbe, f.ReadinessProbe, f.VolumeMounts
	return fuseValues{container: c, Command: f.Command, Args: f.Args, Lifecycle: f.Lifecycle, PodMetadata: f.PodMetadata, HostPath: hostPath}, nil
}

func worker(rt *datav1alpha1.ThinRuntime, res Resolved, where string, secrets []secretMount, cache []cacheVolume) (workerValues, error) {
	w := res.Worker
	c, err := common("spec.worker", where, w.VersionSpec, orList(w.ImagePullSecrets, res.ImagePullSecrets))
	if err != nil {
		return workerValues{}, err
	}
	reserved := reservedMounts(secrets, cache, nil)
	if c.Volumes, err = userVolumes("spec.worker.volumeMounts", where, w.VolumeMounts, res.Volumes, reserved, secrets, cache); err != nil {
		return workerValues{}, err
	}
	builtin := []corev1.EnvVar{
		{Name: "FLUID_RUNTIME_TYPE", Value: "thin"},
		{Name: "FLUID_RUNTIME_NS", Value: rt.Namespace},
		{Name: "FLUID_RUNTIME_NAME", Value: rt.Name},
	}
	c.Env = mergeByKey(builtin, w.Env, func(e corev1.EnvVar) string { return e.Name })
	c.Ports, c.Resources, c.NodeSelector = w.Ports, w.Resources, w.NodeSelector
	c.HostNetwork = w.NetworkMode != datav1alpha1.ContainerNetworkMode
	c.LivenessProbe, c.ReadinessProbe, c.VolumeMounts = w.LivenessProbe, w.ReadinessProbe, w.VolumeMounts
	replicas := rt.Spec.Replicas
	if replicas == 0 {
		replicas = w.Replicas
	}
	return workerValues{container: c, Enabled: true, Replicas: replicas}, nil
}

// common checks a component's image and starts its values.
func common(field, where string, v datav1alpha1.VersionSpec, pullSecrets []corev1.LocalObjectReference) (container, error) {
	if v.Image == "" {
		return container{}, engines.Invalid("%s: %s.image is empty in both the runtime and the profile", where, field)
	}
	policy := v.ImagePullPolicy
	switch corev1.PullPolicy(policy) {
	case "":
		policy = string(corev1.PullIfNotPresent)
	case corev1.PullAlways, corev1.PullNever, corev1.PullIfNotPresent:
	default:
		return container{}, engines.Invalid("%s: %s.imagePullPolicy %q is not Always, Never or IfNotPresent", where, field, policy)
	}
	for _, c := range []struct{ field, s string }{{field + ".image", v.Image}, {field + ".imageTag", v.ImageTag}} {
		if err := engines.CheckLine(c.field, c.s); err != nil {
			return container{}, engines.Invalid("%s: %w", where, err)
		}
	}
	image := v.Image
	if v.ImageTag != "" {
		image += ":" + v.ImageTag
	}
	return container{Image: image, ImagePullPolicy: policy, ImagePullSecrets: pullSecrets}, nil
}

// datasetID is the fluid.io/dataset label value, "<namespace>-<name>", or
// the Dataset's UID when that is too long for a label value.
func datasetID(ds *datav1alpha1.Dataset) string {
	id := datav1alpha1.KeyOf(ds).DatasetID()
	if len(id) > validation.LabelValueMaxLength && ds.UID != "" {
		return string(ds.UID)
	}
	return id
}

// optionString joins FUSE options as "k=v" (or "k" for an empty value),
// comma-separated in key order: the MOUNT_OPTIONS environment variable.
func optionString(opts map[string]string) string {
	keys := slices.Sorted(maps.Keys(opts))
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		if opts[k] == "" {
			parts = append(parts, k)
		} else {
			parts = append(parts, k+"="+opts[k])
		}
	}
	return strings.Join(parts, ",")
}
