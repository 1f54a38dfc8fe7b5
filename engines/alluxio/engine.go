package alluxio

import (
	"fmt"
	"io/fs"

	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/charts"
	"github.com/sluice-data/sluice/engines"
)

// Engine is the Alluxio engine. The zero Engine serves every runtime but
// one naming a Hadoop configuration (spec.hadoopConfig), whose values come
// from the Engine Resolve returns, holding what it read (hadoop.go).
type Engine struct {
	hadoop *hadoopConfig
	// Images are the default images (DefaultImages) as the controller
	// was configured; the zero value runs the built-in ones.
	Images engines.Images
}

var (
	_ engines.Engine   = Engine{}
	_ engines.Resolver = Engine{}
	_ engines.Watcher  = Engine{}
	_ engines.Gateway  = Engine{}
)

// Type implements engines.Engine.
func (Engine) Type() string { return "alluxio" }

// Chart implements engines.Engine.
func (Engine) Chart() fs.FS { return charts.Alluxio }

// NewObject implements engines.Engine: the Alluxio engine serves
// AlluxioRuntimes.
func (Engine) NewObject() datav1alpha1.RuntimeObject { return &datav1alpha1.AlluxioRuntime{} }

// Components implements engines.Engine: Alluxio runs masters and workers,
// and a Job that applies the Dataset's nested mounts to the running
// masters (mountjob.go).
func (Engine) Components(client.Object) engines.Components {
	return engines.Components{Master: true, Worker: true, MountJob: true}
}

// MountType is the file-system type of the Alluxio FUSE mount, recorded as
// the mount_type of the dataset's PV (Fluid's value).
const MountType = "fuse.alluxio-fuse"

// Volume implements engines.Engine.
func (Engine) Volume(rt client.Object) engines.FuseVolume {
	return engines.FuseVolume{Path: FusePath(rt.GetNamespace(), rt.GetName()), MountType: MountType, CleanPolicy: engines.CleanPolicyOf(rt)}
}

// MountRoot is where FUSE mounts datasets on nodes.
const MountRoot = "/runtime-mnt/alluxio"

// FusePath is the host directory of a dataset's FUSE mount (fluid_path).
func FusePath(namespace, name string) string {
	return fmt.Sprintf("%s/%s/%s/alluxio-fuse", MountRoot, namespace, name)
}

// Values implements engines.Engine.
func (e Engine) Values(ds *datav1alpha1.Dataset, obj client.Object) (map[string]any, error) {
	rt, err := alluxioRuntime(obj)
	if err != nil {
		return nil, err
	}
	// The fields this engine cannot honour, also denied at admission.
	if err := Fields.Refuse(rt); err != nil {
		return nil, err
	}
	if err := DatasetFields.Refuse(ds); err != nil {
		return nil, engines.Invalid("dataset %s/%s %w", ds.Namespace, ds.Name, err)
	}
	r, err := e.plan(ds, rt)
	if err != nil {
		return nil, err
	}
	return engines.ToPlain(r)
}

// alluxioRuntime returns obj as an AlluxioRuntime.
func alluxioRuntime(obj client.Object) (*datav1alpha1.AlluxioRuntime, error) {
	rt, ok := obj.(*datav1alpha1.AlluxioRuntime)
	if !ok {
		return nil, engines.Invalid("the Alluxio engine serves AlluxioRuntimes, not %T", obj)
	}
	return rt, nil
}
