package crds

import (
	"fmt"
	"io/fs"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/sluice-data/sluice/config"
)

// Embedded returns the CRDs this binary was built with, by file name.
func Embedded() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	files, err := fs.Glob(config.FS, "crd/bases/*.yaml")
	if err != nil {
		return nil, err
	}
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(files))
	for _, f := range files {
		data, err := fs.ReadFile(config.FS, f)
		if err != nil {
			return nil, err
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(data, crd); err != nil {
			return nil, fmt.Errorf("decoding %s: %w", f, err)
		}
		crd.APIVersion, crd.Kind = apiextensionsv1.SchemeGroupVersion.String(), "CustomResourceDefinition"
		out = append(out, crd)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no CRDs embedded (config/crd/bases is empty)")
	}
	return out, nil
}
