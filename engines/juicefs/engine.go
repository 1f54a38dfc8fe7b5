package juicefs

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/charts"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/dataop"
)

// Engine is the JuiceFS engine.
type Engine struct{}

var _ engines.Engine = Engine{}

// Type implements engines.Engine.
func (Engine) Type() string { return "juicefs" }

// Chart implements engines.Engine.
func (Engine) Chart() fs.FS { return charts.JuiceFS }

// NewObject implements engines.Engine: the JuiceFS engine serves
// JuiceFSRuntimes.
func (Engine) NewObject() datav1alpha1.RuntimeObject { return &datav1alpha1.JuiceFSRuntime{} }

// Components implements engines.Engine: JuiceFS runs workers (and FUSE).
func (Engine) Components(client.Object) engines.Components { return engines.Components{Worker: true} }

// MountType is the file-system type of the JuiceFS FUSE mount, recorded as
// the mount_type of the dataset's PV (Fluid's value).
const MountType = "fuse.juicefs"

// Volume implements engines.Engine.
func (Engine) Volume(rt client.Object) engines.FuseVolume {
	return engines.FuseVolume{Path: FusePath(rt.GetNamespace(), rt.GetName()), MountType: MountType, CleanPolicy: engines.CleanPolicyOf(rt)}
}

// MountRoot is where FUSE mounts datasets on nodes.
const MountRoot = "/runtime-mnt/juicefs"

// FusePath is the host directory of a dataset's FUSE mount (fluid_path).
func FusePath(namespace, name string) string {
	return fmt.Sprintf("%s/%s/%s/juicefs-fuse", MountRoot, namespace, name)
}

// Values implements engines.Engine. Every spec string reaches the chart as
// data: commands are argv lists (argv.go) and the chart quotes every
// scalar; check refuses the strings no container could take as they are.
func (Engine) Values(ds *datav1alpha1.Dataset, obj client.Object) (map[string]any, error) {
	rt, ok := obj.(*datav1alpha1.JuiceFSRuntime)
	if !ok {
		return nil, engines.Invalid("the JuiceFS engine serves JuiceFSRuntimes, not %T", obj)
	}
	// The fields this engine cannot honour, also denied at admission.
	if err := Fields.Refuse(rt); err != nil {
		return nil, err
	}
	if err := DatasetFields.Refuse(ds); err != nil {
		return nil, engines.Invalid("dataset %s/%s %w", ds.Namespace, ds.Name, err)
	}
	if len(ds.Spec.Mounts) == 0 {
		return nil, engines.Invalid("dataset %s/%s has no mounts", ds.Namespace, ds.Name)
	}
	if err := check(ds, rt); err != nil {
		return nil, err
	}
	src := ds.Spec.Mounts[0]
	var secrets []corev1.EnvVar
	for _, s := range datasetSecrets(ds) {
		secrets = append(secrets, secretEnv(s.env, s.secret, s.key))
	}
	cache, err := cacheValues(rt.Spec.TieredStore)
	if err != nil {
		return nil, err
	}
	img := runtimeImage(rt)
	image := map[string]any{"repository": img.Repository, "tag": img.Tag, "pullPolicy": img.PullPolicy}
	placement := string(ds.Spec.Placement)
	if placement == "" {
		placement = string(datav1alpha1.ExclusiveMode)
	}
	key := datav1alpha1.KeyOf(ds)
	fusePath := FusePath(ds.Namespace, ds.Name)
	w, f := rt.Spec.Worker, rt.Spec.Fuse
	worker := component(w.Resources, w.NodeSelector, append(slices.Clone(secrets), w.Env...), w.PodMetadata, w.NetworkMode == datav1alpha1.HostNetworkMode)
	worker["replicas"], worker["command"] = rt.Spec.Replicas, workerCommand(cache, w.Options)
	// FUSE starts only on nodes where the CSI plugin staged the dataset.
	fuseSelector := engines.Merge(f.NodeSelector, map[string]string{key.FuseLabelKey(): "true"})
	fuse := component(f.Resources, fuseSelector, append(slices.Clone(secrets), f.Env...), f.PodMetadata, f.NetworkMode != datav1alpha1.ContainerNetworkMode)
	fuse["hostPath"], fuse["metricsPort"] = strings.TrimSuffix(fusePath, "/juicefs-fuse"), MetricsPort
	fuse["command"], fuse["preStop"] = fuseCommand(fusePath, MetricsPort, f.Options), preStop(fusePath)
	values := map[string]any{
		"name": rt.Name, "namespace": rt.Namespace, "datasetID": key.DatasetID(), "image": image, "placement": placement,
		"source":      map[string]any{"mountPoint": src.MountPoint, "options": engines.Merge(ds.Spec.SharedOptions, src.Options)},
		"cache":       cache,
		"worker":      worker,
		"fuse":        fuse,
		"tolerations": ds.Spec.Tolerations,
	}
	if ds.Spec.NodeAffinity != nil && ds.Spec.NodeAffinity.Required != nil {
		values["nodeAffinity"] = ds.Spec.NodeAffinity.Required
	}
	return engines.ToPlain(values)
}

// cacheDir is one cache directory of a worker.
type cacheDir struct {
	Name     string `json:"name"`
	Path     string `json:"path"`
	Type     string `json:"type"`
	QuotaMiB int64  `json:"quotaMiB"`
}

// cacheValues turns levels[0] (the only level JuiceFS uses) into cache
// directories; the tier's quota is split evenly over its paths.
func cacheValues(ts datav1alpha1.TieredStore) ([]cacheDir, error) {
	out := []cacheDir{}
	if len(ts.Levels) == 0 {
		return out, nil
	}
	l := ts.Levels[0]
	paths := strings.Split(l.Path, ",")
	var quotaMiB int64
	if l.Quota != nil {
		quotaMiB = l.Quota.Value() / (1 << 20)
	}
	if quotaMiB <= 0 {
		return nil, engines.Invalid("tieredstore.levels[0]: JuiceFS needs a quota of at least 1MiB")
	}
	volType := string(l.VolumeType)
	if volType == "" {
		volType = string(datav1alpha1.VolumeTypeHostPath)
	}
	for i, p := range paths {
		out = append(out, cacheDir{Name: fmt.Sprintf("cache-%d", i), Path: strings.TrimSpace(p), Type: volType, QuotaMiB: quotaMiB})
	}
	return out, nil
}

func component(res corev1.ResourceRequirements, sel map[string]string, env []corev1.EnvVar, pm datav1alpha1.PodMetadata, hostNetwork bool) map[string]any {
	if env == nil {
		env = []corev1.EnvVar{}
	}
	return map[string]any{
		"resources": res, "nodeSelector": sel, "env": env, "hostNetwork": hostNetwork,
		"podMetadata": map[string]any{"labels": pm.Labels, "annotations": pm.Annotations},
	}
}

// DefaultImage is the JuiceFS image (community edition) unless
// spec.juicefsVersion names another.
var DefaultImage = dataop.Image{Repository: "juicedata/juicefs-fuse", Tag: "ce-v1.2.1", PullPolicy: corev1.PullIfNotPresent}

// runtimeImage is the image of the runtime's workers and FUSE, which data
// operations run too.
func runtimeImage(rt *datav1alpha1.JuiceFSRuntime) dataop.Image {
	return DefaultImage.With(rt.Spec.JuiceFSVersion)
}

// secretRef is an environment variable taken from a Secret key.
type secretRef struct{ env, secret, key string }

// datasetSecrets are the Dataset's encrypt options (sharedEncryptOptions,
// then the first mount's) as the environment variables every JuiceFS
// container reads them from, e.g. metaurl as METAURL.
func datasetSecrets(ds *datav1alpha1.Dataset) []secretRef {
	var out []secretRef
	opts := append(append([]datav1alpha1.EncryptOption{}, ds.Spec.SharedEncryptOptions...), ds.Spec.Mounts[0].EncryptOptions...)
	for _, eo := range opts {
		out = append(out, secretRef{env: envName(eo.Name), secret: eo.ValueFrom.SecretKeyRef.Name, key: eo.ValueFrom.SecretKeyRef.Key})
	}
	return out
}

// envName turns an encrypt option name (metaurl, access-key) into an
// environment variable name (METAURL, ACCESS_KEY).
func envName(s string) string {
	return strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(s))
}
