package thin

import (
	"context"
	"fmt"
	"io/fs"

	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/charts"
	"github.com/sluice-data/sluice/engines"
)

// Engine is the Thin engine.
type Engine struct{}

var (
	_ engines.Engine           = Engine{}
	_ engines.TopologyResolver = Engine{}
	_ engines.Resolver         = Engine{}
)

// Type implements engines.Engine.
func (Engine) Type() string { return "thin" }

// Chart implements engines.Engine.
func (Engine) Chart() fs.FS { return charts.Thin }

// Operations implements engines.Engine: a user-supplied FUSE program offers
// no load or migrate command, so only DataProcess runs on Thin datasets.
func (Engine) Operations() []datav1alpha1.OperationKind {
	return []datav1alpha1.OperationKind{datav1alpha1.DataProcessKind}
}

// Values implements engines.Engine. Thin values cannot be computed from the
// runtime alone, so it always fails; the reconciler calls ResolveValues.
func (Engine) Values(_ *datav1alpha1.Dataset, rt client.Object) (map[string]any, error) {
	return nil, engines.Invalid("ThinRuntime %s/%s: the Thin engine needs the ThinRuntimeProfile named by spec.profileName, "+
		"so its values come from ResolveValues (engines.Resolver), not Values", rt.GetNamespace(), rt.GetName())
}

// ResolveComponents implements engines.TopologyResolver: workers run when
// the runtime or its profile enables them.
func (Engine) ResolveComponents(ctx context.Context, r client.Reader, obj client.Object) (engines.Components, error) {
	rt, profile, err := withProfile(ctx, r, obj)
	if err != nil {
		return engines.Components{}, err
	}
	return ComponentsOf(profile, rt), nil
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
