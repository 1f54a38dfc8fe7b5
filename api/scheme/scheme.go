package scheme

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// New returns a scheme with Kubernetes' built-in kinds, CRDs and Sluice's kinds.
func New() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, datav1alpha1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err) // only on programming errors: the groups are static
		}
	}
	return s
}

// Codecs returns a codec factory for a scheme from New.
func Codecs(s *runtime.Scheme) serializer.CodecFactory {
	return serializer.NewCodecFactory(s, serializer.EnableStrict)
}
