package fluiddocs_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// page is one documentation page's objects, in the page's order.
type page struct {
	name string
	objs []*unstructured.Unstructured
}

// loadPages reads testdata/*.yaml, sorted by name.
func loadPages(t *testing.T) []page {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	var pages []page
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p := page{name: strings.TrimSuffix(filepath.Base(f), ".yaml")}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
		for {
			u := &unstructured.Unstructured{}
			if err := dec.Decode(&u.Object); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				t.Fatalf("%s: %v", f, err)
			}
			if len(u.Object) > 0 {
				p.objs = append(p.objs, u)
			}
		}
		pages = append(pages, p)
	}
	if len(pages) == 0 {
		t.Fatal("no pages in testdata")
	}
	return pages
}

// namespaces maps each namespace the page's objects name (none: "default")
// to one of the test's, so that the pages do not meet: a page's objects
// live in ns, or ns-<name> for a page's other namespaces.
type namespaces struct {
	ns    string
	names map[string]string
}

func (n *namespaces) of(name string) string {
	if name == "" || name == "default" {
		return n.ns
	}
	if n.names == nil {
		n.names = map[string]string{}
	}
	if _, ok := n.names[name]; !ok {
		n.names[name] = fmt.Sprintf("%s-%s", n.ns, name)
	}
	return n.names[name]
}

// all are the namespaces the page uses, its own first.
func (n *namespaces) all() []string {
	out := []string{n.ns}
	for _, v := range n.names {
		out = append(out, v)
	}
	sort.Strings(out[1:])
	return out
}

// rewrite moves obj into the test's namespaces: metadata.namespace, every
// "namespace" key naming one (operations' dataset references, runAfter, a
// PV's claimRef), and dataset://<namespace>/ mount points.
// A PersistentVolume, cluster-scoped, is named <ns>-<name>, and a claim's
// spec.volumeName with it.
func (n *namespaces) rewrite(obj *unstructured.Unstructured) {
	if obj.GetKind() == "PersistentVolume" {
		obj.SetName(n.ns + "-" + obj.GetName())
	} else {
		obj.SetNamespace(n.of(obj.GetNamespace()))
	}
	if obj.GetKind() == "PersistentVolumeClaim" {
		if v, ok, _ := unstructured.NestedString(obj.Object, "spec", "volumeName"); ok && v != "" {
			_ = unstructured.SetNestedField(obj.Object, n.ns+"-"+v, "spec", "volumeName")
		}
	}
	n.walk(obj.Object["spec"])
}

func (n *namespaces) walk(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if s, ok := e.(string); ok {
				switch {
				case k == "namespace":
					v[k] = n.of(s)
				case strings.HasPrefix(s, "dataset://"):
					ref := strings.TrimPrefix(s, "dataset://")
					ns, rest, _ := strings.Cut(ref, "/")
					v[k] = "dataset://" + n.of(ns) + "/" + rest
				}
				continue
			}
			n.walk(e)
		}
	case []any:
		for _, e := range v {
			n.walk(e)
		}
	}
}

// nodeLabels are the node labels the page's objects select (nodeSelector
// maps, and the first value of each In requirement), which the page tells
// its reader to put on nodes (kubectl label nodes …) before applying.
func (p page) nodeLabels() map[string]string { return p.selected(func(string) bool { return true }) }

// placesWorkers says whether the page's Datasets or runtimes select nodes,
// so that their cache workers run only on nodes labelled for them.
func (p page) placesWorkers() bool {
	return len(p.selected(func(kind string) bool { return kind == "Dataset" || strings.HasSuffix(kind, "Runtime") })) > 0
}

// workerNodes is how many nodes the page labels: three, or as many as its
// largest runtime has workers, so that workers placed one to a node
// (Exclusive placement) fit on the page's own nodes.
func (p page) workerNodes() int {
	n := 3
	for _, o := range p.objs {
		if strings.HasSuffix(o.GetKind(), "Runtime") {
			if r, ok, _ := unstructured.NestedInt64(o.Object, "spec", "replicas"); ok && int(r) > n {
				n = int(r)
			}
		}
	}
	return n
}

// selected are the node labels the spec of the page's objects of the kinds
// keep selects (see nodeLabels).
func (p page) selected(keep func(kind string) bool) map[string]string {
	out := map[string]string{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				switch k {
				case "nodeSelector":
					if sel, ok := e.(map[string]any); ok {
						for lk, lv := range sel {
							if s, ok := lv.(string); ok {
								addLabel(out, lk, s)
							}
						}
					}
				case "matchExpressions":
					if reqs, ok := e.([]any); ok {
						for _, r := range reqs {
							req, _ := r.(map[string]any)
							values, _ := req["values"].([]any)
							key, _ := req["key"].(string)
							if req["operator"] == "In" && len(values) > 0 {
								if s, ok := values[0].(string); ok {
									addLabel(out, key, s)
								}
							}
						}
					}
				}
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	for _, o := range p.objs {
		if keep(o.GetKind()) {
			walk(o.Object["spec"])
		}
	}
	return out
}

// addLabel adds key=value unless the key is the node's own name or
// already has a value.
func addLabel(labels map[string]string, key, value string) {
	if _, ok := labels[key]; ok || key == "kubernetes.io/hostname" {
		return
	}
	labels[key] = value
}

// creates says whether the page creates an object of the kind (any, for
// "Runtime") and name in namespace.
func (p page) creates(kind, namespace, name string) bool {
	for _, o := range p.objs {
		k := o.GetKind()
		if (k == kind || (kind == "Runtime" && strings.HasSuffix(k, "Runtime"))) && o.GetNamespace() == namespace && o.GetName() == name {
			return true
		}
	}
	return false
}

// nodeNames are the nodes the page's objects name (nodeName), which the
// reader's cluster has.
func (p page) nodeNames() []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if s, ok := e.(string); ok && k == "nodeName" && s != "" && !slices.Contains(out, s) {
					out = append(out, s)
				}
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	for _, o := range p.objs {
		walk(o.Object["spec"])
	}
	slices.Sort(out)
	return out
}
