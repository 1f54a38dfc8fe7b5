package jindo

import (
	"fmt"
	"io/fs"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/charts"
	"github.com/sluice-data/sluice/engines"
)

// Engine is the JindoCache engine for JindoRuntimes.
type Engine struct {
	// Images are the default images (DefaultImages) as the controller
	// was configured; the zero value runs the built-in ones.
	Images engines.Images
}

var _ engines.Engine = Engine{}

// Type implements engines.Engine: "jindo", the runtime type Fluid records in
// a Dataset's status.runtimes for a JindoRuntime, whichever implementation.
func (Engine) Type() string { return "jindo" }

// Chart implements engines.Engine.
func (Engine) Chart() fs.FS { return charts.Jindo }

// NewObject implements engines.Engine: the Jindo engine serves
// JindoRuntimes.
func (Engine) NewObject() datav1alpha1.RuntimeObject { return &datav1alpha1.JindoRuntime{} }

// Components implements engines.Engine: masters unless
// spec.master.disabled, workers unless spec.worker.disabled.
func (Engine) Components(obj client.Object) engines.Components {
	rt, ok := obj.(*datav1alpha1.JindoRuntime)
	if !ok {
		return engines.Components{}
	}
	return engines.Components{Master: !rt.Spec.Master.Disabled, Worker: !rt.Spec.Worker.Disabled}
}

// MountType is the file-system type of the JindoCache FUSE mount, recorded
// as the PV's mount_type (Fluid's value for JindoRuntime).
const MountType = "fuse.jindofs-fuse"

// Volume implements engines.Engine.
func (Engine) Volume(rt client.Object) engines.FuseVolume {
	return engines.FuseVolume{Path: FusePath(rt.GetNamespace(), rt.GetName()), MountType: MountType, CleanPolicy: engines.CleanPolicyOf(rt)}
}

// MountRoot is where FUSE mounts datasets on nodes.
const MountRoot = "/runtime-mnt/jindo"

// FusePath is the host directory of a dataset's FUSE mount (fluid_path).
func FusePath(namespace, name string) string {
	return fmt.Sprintf("%s/%s/%s/jindofs-fuse", MountRoot, namespace, name)
}

// DefaultImages are the engine's built-in default images: the JindoCache
// server (masters and workers), then FUSE.
var DefaultImages = []engines.DefaultImage{
	{Name: "jindo", Repository: "registry.cn-shanghai.aliyuncs.com/jindofs/smartdata", Tag: "6.2.0"},
	{Name: "jindo-fuse", Repository: "registry.cn-shanghai.aliyuncs.com/jindofs/jindo-fuse", Tag: "6.2.0"},
}

// defaultImage is DefaultImages[i] as e.Images set it.
func (e Engine) defaultImage(i int) image {
	img := image{PullPolicy: "IfNotPresent"}
	img.Repository, img.Tag = e.Images.Resolve(DefaultImages[i])
	return img
}

// Values implements engines.Engine.
func (e Engine) Values(ds *datav1alpha1.Dataset, obj client.Object) (map[string]any, error) {
	rt, ok := obj.(*datav1alpha1.JindoRuntime)
	if !ok {
		return nil, engines.Invalid("the Jindo engine serves JindoRuntimes, not %T", obj)
	}
	// The fields this engine cannot honour, also denied at admission.
	if err := Fields.Refuse(rt); err != nil {
		return nil, err
	}
	if err := DatasetFields.Refuse(ds); err != nil {
		return nil, engines.Invalid("dataset %s/%s %w", ds.Namespace, ds.Name, err)
	}
	if err := checkSupported(ds, rt); err != nil {
		return nil, err
	}
	if err := checkVolumes(rt.Spec.Volumes); err != nil {
		return nil, err
	}
	u, err := ufsOf(ds)
	if err != nil {
		return nil, err
	}
	cr, err := credentialsOf(ds, rt, u.Schemes)
	if err != nil {
		return nil, err
	}
	readOnly := slices.Contains(ds.Spec.AccessModes, corev1.ReadOnlyMany)
	p := plan{rt: rt, ufs: u, creds: cr, readOnly: readOnly}
	if p.master, err = masterOf(ds, rt); err != nil {
		return nil, err
	}
	if p.worker, err = workerOf(ds, rt); err != nil {
		return nil, err
	}
	if p.worker.Enabled {
		if p.cache, err = cacheLayout(rt.Spec.TieredStore, ds.Namespace, ds.Name); err != nil {
			return nil, err
		}
		if err := checkMemoryLimit(p.cache, rt.Spec.Worker.Resources); err != nil {
			return nil, err
		}
	}
	f, err := fuseOf(ds, rt, readOnly)
	if err != nil {
		return nil, err
	}
	cfg, err := buildConfig(p)
	if err != nil {
		return nil, err
	}
	placement := ds.Spec.Placement
	if placement == datav1alpha1.DefaultMode {
		placement = datav1alpha1.ExclusiveMode
	}
	v := values{
		Name: rt.Name, Namespace: rt.Namespace, DatasetID: datav1alpha1.KeyOf(ds).DatasetID(), Placement: string(placement),
		MountsDigest: engines.MountsDigest(ds),
		Image:        imageOf(e.defaultImage(0), rt.Spec.JindoVersion),
		FuseImage:    imageOf(e.defaultImage(1), datav1alpha1.VersionSpec{Image: rt.Spec.Fuse.Image, ImageTag: rt.Spec.Fuse.ImageTag, ImagePullPolicy: rt.Spec.Fuse.ImagePullPolicy}),
		HostNetwork:  hostNetwork(rt),
		Volumes:      rt.Spec.Volumes, User: rt.Spec.User,
		Master: p.master, Worker: p.worker, Fuse: f,
		Tiers: p.cache.Tiers, UFSVolumes: u.Volumes, Credentials: cr.Volume, Config: cfg,
	}
	if ds.Spec.NodeAffinity != nil {
		v.NodeAffinity = ds.Spec.NodeAffinity.Required
	}
	if ra := rt.Spec.RunAs; ra != nil {
		v.RunAs = &runAs{UID: ra.UID, GID: ra.GID}
	}
	return engines.ToPlain(v)
}

// checkSupported rejects component combinations that cannot serve the
// dataset, and runtime fields this engine cannot honour.
func checkSupported(ds *datav1alpha1.Dataset, rt *datav1alpha1.JindoRuntime) error {
	m, w := rt.Spec.Master.Disabled, rt.Spec.Worker.Disabled
	switch {
	case m && !w:
		return engines.Invalid("spec.master.disabled: workers register with the master; disable spec.worker as well to run FUSE alone")
	case m && w && rt.Spec.Fuse.Disabled:
		return engines.Invalid("spec.master, spec.worker and spec.fuse are all disabled; nothing would run")
	case m && w && len(ds.Spec.Mounts) != 1:
		return engines.Invalid("spec.master.disabled and spec.worker.disabled run FUSE alone, which reads one mount; dataset %s/%s has %d",
			ds.Namespace, ds.Name, len(ds.Spec.Mounts))
	}
	if err := engines.CheckVersion("spec.jindoVersion", rt.Spec.JindoVersion); err != nil {
		return err
	}
	f := rt.Spec.Fuse
	return engines.CheckVersion("spec.fuse", datav1alpha1.VersionSpec{Image: f.Image, ImageTag: f.ImageTag, ImagePullPolicy: f.ImagePullPolicy})
}

func imageOf(def image, v datav1alpha1.VersionSpec) image {
	if v.Image != "" {
		def.Repository = v.Image
	}
	if v.ImageTag != "" {
		def.Tag = v.ImageTag
	}
	if v.ImagePullPolicy != "" {
		def.PullPolicy = v.ImagePullPolicy
	}
	return def
}
