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
}

var (
	_ engines.Engine   = Engine{}
	_ engines.Topology = Engine{}
)

// Type implements engines.Engine.
func (e Engine) Type() string {
	if e.Name == "" {
		return "fake"
	}
	return e.Name
}

// Chart implements engines.Engine.
func (Engine) Chart() fs.FS { return charts.Fake }

// Operations implements engines.Engine.
func (Engine) Operations() []datav1alpha1.OperationKind {
	return []datav1alpha1.OperationKind{datav1alpha1.DataLoadKind}
}

// Components implements engines.Topology.
func (e Engine) Components(client.Object) engines.Components {
	return engines.Components{Master: e.Master, Worker: true}
}

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
	return map[string]any{
		"name": rt.GetName(), "namespace": rt.GetNamespace(), "engine": e.Type(),
		"master": map[string]any{"enabled": e.Master},
		"worker": map[string]any{"replicas": replicas},
		"fuse":   map[string]any{"labelKey": datav1alpha1.KeyOf(ds).FuseLabelKey()},
	}, nil
}
