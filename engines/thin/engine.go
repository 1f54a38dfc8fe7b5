package thin

import (
	"fmt"
	"io/fs"

	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/charts"
	"github.com/sluice-data/sluice/engines"
)

// Engine is the Thin engine. Its release depends on the
// ThinRuntimeProfile the runtime names, so the reconciler resolves it
// (engines.Resolver) and asks the ProfileEngine it returns; asked directly,
// it answers as for a runtime without a profile.
type Engine struct {
	// SluiceImage is the image of the sluice binary, which runs a
	// DataLoad's `sluice warmup` (the controller's --sluice-image).
	SluiceImage string
}

var (
	_ engines.Engine   = Engine{}
	_ engines.Resolver = Engine{}
	_ engines.Engine   = ProfileEngine{}
)

// Type implements engines.Engine.
func (Engine) Type() string { return "thin" }

// NewObject implements engines.Engine: the Thin engine serves ThinRuntimes.
func (Engine) NewObject() datav1alpha1.RuntimeObject { return &datav1alpha1.ThinRuntime{} }

// Chart implements engines.Engine.
func (Engine) Chart() fs.FS { return charts.Thin }

// Values implements engines.Engine. Thin values cannot be computed from the
// runtime alone, so it always fails; the reconciler calls Resolve and takes
// the values of the ProfileEngine it returns.
func (Engine) Values(_ *datav1alpha1.Dataset, rt client.Object) (map[string]any, error) {
	return nil, engines.Invalid("ThinRuntime %s/%s: the Thin engine needs the ThinRuntimeProfile named by spec.profileName, "+
		"so its values come from Resolve (engines.Resolver), not Values", rt.GetNamespace(), rt.GetName())
}

// Components implements engines.Engine as for a runtime without a profile.
func (Engine) Components(rt client.Object) engines.Components { return ProfileEngine{}.Components(rt) }

// Volume implements engines.Engine as for a runtime without a profile.
func (Engine) Volume(rt client.Object) engines.FuseVolume { return ProfileEngine{}.Volume(rt) }

// CacheMetrics implements engines.Engine: none, by design (the FUSE program
// is the user's, with no known metrics).
func (Engine) CacheMetrics(client.Object) (engines.MetricsSource, bool) {
	return engines.MetricsSource{}, false
}

// ProfileEngine is the Thin engine with a runtime's ThinRuntimeProfile read
// (Engine.Resolve): everything it says about the runtime comes from that
// one version of the profile, without reading it again.
type ProfileEngine struct {
	// Profile is the runtime's ThinRuntimeProfile.
	Profile *datav1alpha1.ThinRuntimeProfile
	// SluiceImage is the Engine's.
	SluiceImage string
}

// Type implements engines.Engine.
func (ProfileEngine) Type() string { return Engine{}.Type() }

// NewObject implements engines.Engine.
func (ProfileEngine) NewObject() datav1alpha1.RuntimeObject { return Engine{}.NewObject() }

// Chart implements engines.Engine.
func (ProfileEngine) Chart() fs.FS { return Engine{}.Chart() }

// Values implements engines.Engine: the chart values of the runtime merged
// over the profile.
func (e ProfileEngine) Values(ds *datav1alpha1.Dataset, obj client.Object) (map[string]any, error) {
	rt, err := thinRuntime(obj)
	if err != nil {
		return nil, err
	}
	return ValuesFor(ds, e.Profile, rt)
}

// Components implements engines.Engine: workers run when the runtime or
// its profile enables them (a runtime of another kind runs none).
func (e ProfileEngine) Components(obj client.Object) engines.Components {
	rt, err := thinRuntime(obj)
	if err != nil {
		return engines.Components{}
	}
	return ComponentsOf(e.Profile, rt)
}

// Volume implements engines.Engine: the mount type is the profile's
// fileSystemType; the FUSE cleanPolicy is the runtime's
// spec.fuse.cleanPolicy, else the profile's (as Merge), else Fluid's
// default OnRuntimeDeleted.
func (e ProfileEngine) Volume(obj client.Object) engines.FuseVolume {
	v := engines.FuseVolume{Path: FusePath(obj.GetNamespace(), obj.GetName()), MountType: MountType(e.Profile)}
	var p datav1alpha1.FuseCleanPolicy
	if rt, err := thinRuntime(obj); err == nil {
		p = Merge(e.Profile, rt).Fuse.CleanPolicy
	}
	v.CleanPolicy = engines.OrDefaultCleanPolicy(p)
	return v
}

// CacheMetrics implements engines.Engine: none (Engine.CacheMetrics).
func (ProfileEngine) CacheMetrics(rt client.Object) (engines.MetricsSource, bool) {
	return Engine{}.CacheMetrics(rt)
}

// ComponentsOf is the exact topology of a runtime with its profile: workers
// run when either enables them.
func ComponentsOf(profile *datav1alpha1.ThinRuntimeProfile, rt *datav1alpha1.ThinRuntime) engines.Components {
	return engines.Components{Worker: Merge(profile, rt).Worker.Enabled}
}

// MountRoot is where Thin FUSE programs mount datasets on nodes.
const MountRoot = "/runtime-mnt/thin"

// FusePath is the host directory of a dataset's FUSE mount (fluid_path); the
// FUSE container sees it at the same path (FuseConfig.TargetPath).
func FusePath(namespace, name string) string {
	return fmt.Sprintf("%s/%s/%s/thin-fuse", MountRoot, namespace, name)
}

// MountType is the file-system type recorded as the PV's mount_type: the
// profile's fileSystemType, which the CSI plugin looks for in the node's
// mount table before it publishes the volume.
func MountType(profile *datav1alpha1.ThinRuntimeProfile) string {
	if profile == nil {
		return ""
	}
	return profile.Spec.FileSystemType
}
