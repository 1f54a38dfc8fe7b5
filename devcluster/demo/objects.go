package demo

import (
	"bytes"
	"fmt"
	"io/fs"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	"github.com/sluice-data/sluice/config"
)

// The demo's objects, from config/samples.
const (
	ns      = "demo"
	dataset = "imagenet"
)

// samples decodes an embedded file of config/.
func samples(name string) ([]client.Object, error) {
	data, err := fs.ReadFile(config.FS, name)
	if err != nil {
		return nil, err
	}
	objs, err := sluicescheme.DecodeObjects[client.Object](bytes.NewReader(data), sluicescheme.New())
	if err != nil {
		return nil, fmt.Errorf("config/%s: %w", name, err)
	}
	return objs, nil
}

// samplePod returns the Pod of config/samples/demo-pods.yaml named name.
func samplePod(name string) (*corev1.Pod, error) {
	objs, err := samples("samples/demo-pods.yaml")
	if err != nil {
		return nil, err
	}
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok && p.Name == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("config/samples/demo-pods.yaml has no Pod %s", name)
}

func sorted(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
