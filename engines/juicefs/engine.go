package juicefs

import (
	"fmt"
	"io/fs"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/charts"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

// Engine is the JuiceFS engine.
type Engine struct {
	// Images are the default images (DefaultImages) as the controller
	// was configured; the zero value runs the built-in ones.
	Images engines.Images
}

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
// data: commands are argv lists (argv.go, options.go) and the chart quotes
// every scalar; check refuses the strings no container could take as they
// are, and the fields the engine cannot honour are refused by name.
func (e Engine) Values(ds *datav1alpha1.Dataset, obj client.Object) (map[string]any, error) {
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
		return nil, engines.Invalid("dataset %s/%s: spec.mounts is empty; a JuiceFS Dataset needs one mount, of the file system (juicefs:///)", ds.Namespace, ds.Name)
	}
	for _, err := range []error{check(ds, rt), checkVolumes(rt)} {
		if err != nil {
			return nil, err
		}
	}
	vol, err := parseVolume(ds, rt.Spec.Configs)
	if err != nil {
		return nil, err
	}
	t, err := tierOf(rt.Spec.TieredStore, rt.Namespace, rt.Name)
	if err != nil {
		return nil, err
	}
	b := builder{ds: ds, rt: rt, vol: vol, tier: t}
	for _, s := range datasetSecrets(ds) {
		b.secrets = append(b.secrets, secretEnv(s.env, s.secret, s.key))
	}
	w, f := rt.Spec.Worker, rt.Spec.Fuse
	img := e.imageOf(vol.edition, rt.Spec.JuiceFSVersion)
	worker, err := b.component(part{field: "spec.worker", image: img, env: w.Env, options: w.Options, mounts: w.VolumeMounts,
		podMetadata: w.PodMetadata, resources: w.Resources, nodeSelector: w.NodeSelector, hostNetwork: w.NetworkMode == datav1alpha1.HostNetworkMode})
	if err != nil {
		return nil, err
	}
	worker["replicas"] = rt.Spec.Replicas
	// FUSE starts only on nodes where the CSI plugin staged the dataset.
	key := datav1alpha1.KeyOf(ds)
	fuseImage := img.With(datav1alpha1.VersionSpec{Image: f.Image, ImageTag: f.ImageTag, ImagePullPolicy: f.ImagePullPolicy})
	fuse, err := b.component(part{field: "spec.fuse", image: fuseImage, env: f.Env, options: f.Options, mounts: f.VolumeMounts, fuse: true,
		podMetadata: f.PodMetadata, resources: f.Resources, nodeSelector: engines.Merge(f.NodeSelector, map[string]string{key.FuseLabelKey(): "true"}),
		hostNetwork: f.NetworkMode != datav1alpha1.ContainerNetworkMode})
	if err != nil {
		return nil, err
	}
	fusePath := FusePath(ds.Namespace, ds.Name)
	fuse["hostPath"], fuse["preStop"] = strings.TrimSuffix(fusePath, "/juicefs-fuse"), preStop(fusePath)
	placement := string(ds.Spec.Placement)
	if placement == "" {
		placement = string(datav1alpha1.ExclusiveMode)
	}
	values := map[string]any{
		"name": rt.Name, "namespace": rt.Namespace, "datasetID": key.DatasetID(), "placement": placement,
		"mountsDigest": engines.MountsDigest(ds),
		"worker":       worker,
		"fuse":         fuse,
		"tolerations":  ds.Spec.Tolerations,
	}
	if ds.Spec.NodeAffinity != nil && ds.Spec.NodeAffinity.Required != nil {
		values["nodeAffinity"] = ds.Spec.NodeAffinity.Required
	}
	return engines.ToPlain(values)
}

// DefaultImage is the JuiceFS image (community edition) unless
// spec.juicefsVersion names another.
var DefaultImage = dataop.Image{Repository: "juicedata/juicefs-fuse", Tag: "ce-v1.2.1", PullPolicy: corev1.PullIfNotPresent}

// DefaultImages are the engine's built-in default images: the community
// and the enterprise edition's.
var DefaultImages = []engines.DefaultImage{
	{Name: "juicefs", Repository: DefaultImage.Repository, Tag: DefaultImage.Tag},
	{Name: "juicefs-enterprise", Repository: DefaultImage.Repository, Tag: DefaultEnterpriseTag},
}

// defaultImage is the edition's default image, as e.Images set it.
func (e Engine) defaultImage(ed edition) dataop.Image {
	d := DefaultImages[0]
	if ed == enterprise {
		d = DefaultImages[1]
	}
	img := DefaultImage
	img.Repository, img.Tag = e.Images.Resolve(d)
	return img
}

// runtimeImage is the image of the runtime's workers and FUSE, which data
// operations run too.
func (e Engine) runtimeImage(rt *datav1alpha1.JuiceFSRuntime) dataop.Image {
	return e.defaultImage(community).With(rt.Spec.JuiceFSVersion)
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
