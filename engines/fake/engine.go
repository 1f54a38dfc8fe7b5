package fake

import (
	"fmt"
	"io/fs"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/charts"
	"github.com/sluice-data/sluice/engines"
)

// Engine is the fake engine.
type Engine struct {
	// Name is the engine type; "fake" when empty.
	Name string
	// Master adds a master StatefulSet of one replica.
	Master bool
	// Object returns the runtime kind it serves; AlluxioRuntime when nil.
	Object func() datav1alpha1.RuntimeObject
	// Metrics is where cache figures are read; none when nil.
	Metrics *engines.MetricsSource
	// Unsupported are the operation kinds Operation refuses.
	Unsupported []datav1alpha1.OperationKind
	// UngatedCron renders CronJobs whose runs start at once instead of
	// suspended (a broken chart, for testing the controller's check).
	UngatedCron bool
	// MountJob renders a mount Job (engines.Components.MountJob).
	MountJob bool
}

var _ engines.Engine = Engine{}

// MountType is the fake FUSE file-system type recorded on PVs.
const MountType = "fuse.fake"

// Type implements engines.Engine.
func (e Engine) Type() string {
	if e.Name == "" {
		return "fake"
	}
	return e.Name
}

// Chart implements engines.Engine.
func (Engine) Chart() fs.FS { return charts.Fake }

// NewObject implements engines.Engine.
func (e Engine) NewObject() datav1alpha1.RuntimeObject {
	if e.Object == nil {
		return &datav1alpha1.AlluxioRuntime{}
	}
	return e.Object()
}

// Components implements engines.Engine: workers, a master if Master and a
// mount Job if MountJob.
func (e Engine) Components(client.Object) engines.Components {
	return engines.Components{Master: e.Master, Worker: true, MountJob: e.MountJob}
}

// Volume implements engines.Engine.
func (Engine) Volume(rt client.Object) engines.FuseVolume {
	return engines.FuseVolume{Path: FusePath(rt.GetNamespace(), rt.GetName()), MountType: MountType, CleanPolicy: engines.CleanPolicyOf(rt)}
}

// CacheMetrics implements engines.Engine: Metrics, if set.
func (e Engine) CacheMetrics(client.Object) (engines.MetricsSource, bool) {
	if e.Metrics == nil {
		return engines.MetricsSource{}, false
	}
	return *e.Metrics, true
}

// UFSMetadata implements engines.Engine: the fake engine learns no
// Dataset's usage (sync off).
func (Engine) UFSMetadata(client.Object) engines.MetadataSource { return engines.MetadataSource{} }

// FusePath is where the fake FUSE would mount the Dataset on a node.
func FusePath(namespace, name string) string {
	return fmt.Sprintf("/runtime-mnt/fake/%s/%s/fake-fuse", namespace, name)
}

// Values implements engines.Engine for any runtime kind with spec.replicas.
func (e Engine) Values(ds *datav1alpha1.Dataset, rt client.Object) (map[string]any, error) {
	obj, err := k8sruntime.DefaultUnstructuredConverter.ToUnstructured(rt)
	if err != nil {
		return nil, err
	}
	replicas, _, err := unstructured.NestedInt64(obj, "spec", "replicas")
	if err != nil {
		return nil, engines.Invalid("spec.replicas: %v", err)
	}
	digest, job := engines.MountsDigest(ds), ""
	if e.MountJob {
		job = engines.MountJobName(rt.GetName(), digest)
	}
	return map[string]any{
		"name": rt.GetName(), "namespace": rt.GetNamespace(), "engine": e.Type(),
		"mountsDigest": digest, "mountJob": map[string]any{"name": job},
		"master": map[string]any{"enabled": e.Master},
		"worker": map[string]any{"replicas": replicas},
		"fuse":   map[string]any{"labelKey": datav1alpha1.KeyOf(ds).FuseLabelKey()},
	}, nil
}
