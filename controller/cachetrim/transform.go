package cachetrim

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
)

// Transform is the controller cache's DefaultTransform: a Pod is cut to
// Pod, a PersistentVolumeClaim keeps only the annotations the controller
// reads, and every object loses its managedFields. Objects the cache
// cannot read the metadata of (tombstones) pass unchanged.
func Transform(obj any) (any, error) {
	switch o := obj.(type) {
	case *corev1.Pod:
		return Pod(o), nil
	case *corev1.PersistentVolumeClaim:
		o.ManagedFields = nil
		o.Annotations = keepAnnotations(o.Annotations)
		return o, nil
	}
	if m, err := meta.Accessor(obj); err == nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}
