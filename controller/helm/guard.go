package helm

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/postrender"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// EngineKinds are the kinds the engine and data-operation charts render
// (charts/alluxio, jindo, juicefs, thin, dataop, fake and fakeop), all of
// them namespaced: the default of Client.AllowedKinds.
var EngineKinds = []schema.GroupKind{
	{Group: "apps", Kind: "StatefulSet"},
	{Group: "apps", Kind: "DaemonSet"},
	{Group: "", Kind: "Service"},
	{Group: "", Kind: "ConfigMap"},
	{Group: "batch", Kind: "Job"},
	{Group: "batch", Kind: "CronJob"},
}

// guard is a Helm post-renderer that passes a rendered release on
// unchanged when every object in it is of an allowed kind and in the
// release's namespace (or names none, which Helm defaults to it), and
// refuses the whole release otherwise, before anything reaches the API
// server. It is defence in depth: engines hand charts their values as
// data, so a spec string cannot add an object, but if a template ever
// spliced one in, the release would still create nothing outside its
// namespace and no cluster-scoped object. Allowed kinds must be namespaced
// kinds: an object of any other kind is refused whatever its namespace.
type guard struct {
	namespace string
	kinds     map[schema.GroupKind]bool
}

var _ postrender.PostRenderer = guard{}

// guard returns the post-renderer of c's installs and upgrades.
func (c *Client) guard() postrender.PostRenderer {
	kinds := c.AllowedKinds
	if kinds == nil {
		kinds = EngineKinds
	}
	g := guard{namespace: c.namespace, kinds: map[schema.GroupKind]bool{}}
	for _, k := range kinds {
		g.kinds[k] = true
	}
	return g
}

// Run implements postrender.PostRenderer. It reads the documents as the
// Helm kube client will (Kubernetes' YAML stream reader), so that it sees
// exactly the objects that would be created.
func (g guard) Run(rendered *bytes.Buffer) (*bytes.Buffer, error) {
	var refused []string
	err := EachObject(rendered.String(), func(_ []byte, u *unstructured.Unstructured) {
		if why := g.check(u); why != "" {
			refused = append(refused, why)
		}
	})
	if err != nil {
		return nil, err
	}
	if len(refused) > 0 {
		return nil, fmt.Errorf("refusing the release, which would create objects an engine chart never creates: %s", strings.Join(refused, "; "))
	}
	return bytes.NewBuffer(bytes.Clone(rendered.Bytes())), nil
}

// EachObject reads a manifest's documents as Helm's kube client will
// (Kubernetes' YAML stream reader) and calls fn with each object and its
// document; documents of comments only are skipped.
func EachObject(manifest string, fn func(doc []byte, u *unstructured.Unstructured)) error {
	r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(manifest)))
	for i := 0; ; i++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading object %d: %w", i, err)
		}
		var obj map[string]any
		if err := yaml.Unmarshal(doc, &obj); err != nil {
			return fmt.Errorf("object %d does not decode: %w", i, err)
		}
		if obj != nil {
			fn(doc, &unstructured.Unstructured{Object: obj})
		}
	}
}

// check says why the object may not be created, or "" when it may.
func (g guard) check(u *unstructured.Unstructured) string {
	gvk := u.GroupVersionKind()
	name := fmt.Sprintf("%s %q", gvk.Kind, u.GetName())
	if gvk.Group != "" {
		name = fmt.Sprintf("%s.%s %q", gvk.Kind, gvk.Group, u.GetName())
	}
	switch {
	case !g.kinds[gvk.GroupKind()]:
		return fmt.Sprintf("%s is not of a kind engine charts create (%s)", name, kindList(g.kinds))
	case u.GetNamespace() != "" && u.GetNamespace() != g.namespace:
		return fmt.Sprintf("%s is in namespace %q, not the release's %q", name, u.GetNamespace(), g.namespace)
	}
	return ""
}

func kindList(kinds map[schema.GroupKind]bool) string {
	var out []string
	for k := range kinds {
		out = append(out, k.String())
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}
