package mutating_test

import (
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

func errNotFound(obj client.Object, k client.ObjectKey) error {
	return apierrors.NewNotFound(schema.GroupResource{Resource: "objects"}, k.Name)
}

func decodeYAMLPod(data []byte) (*corev1.Pod, error) {
	p := &corev1.Pod{}
	return p, yaml.Unmarshal(data, p)
}
