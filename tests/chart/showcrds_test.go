package chart_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/action"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// showCRDs returns what `helm show crds <chart>` prints, split into
// documents as kubectl splits them.
func showCRDs(t *testing.T) []string {
	t.Helper()
	show := action.NewShowWithConfig(action.ShowCRDs, &action.Configuration{})
	out, err := show.Run(chartDir())
	if err != nil {
		t.Fatalf("helm show crds: %v", err)
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(out)))
	var docs []string
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(string(doc)) != "" && strings.TrimSpace(string(doc)) != "---" {
			docs = append(docs, string(doc))
		}
	}
}

// TestShowCRDsIsKubectlInput checks the upgrade step docs/install.md gives
// (`helm show crds … | kubectl apply --server-side -f -`): the output splits
// into one strict CRD per generated file.
func TestShowCRDsIsKubectlInput(t *testing.T) {
	docs := showCRDs(t)
	if want := len(loadChart(t).CRDObjects()); len(docs) != want {
		t.Fatalf("helm show crds printed %d documents, want %d", len(docs), want)
	}
	for _, d := range docs {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict([]byte(d), crd); err != nil {
			t.Errorf("not a CRD: %v\n%.200s", err, d)
		}
	}
}

// applyShownCRDs applies `helm show crds` server-side, as docs/install.md
// says to before an upgrade.
func applyShownCRDs(ctx context.Context, t *testing.T, c client.Client) {
	t.Helper()
	docs := showCRDs(t)
	if want := len(loadChart(t).CRDObjects()); len(docs) != want {
		t.Fatalf("helm show crds printed %d documents, want %d", len(docs), want)
	}
	for _, d := range docs {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(d), &u.Object); err != nil {
			t.Fatal(err)
		}
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner("kubectl"), client.ForceOwnership); err != nil {
			t.Errorf("server-side apply of %s: %v", u.GetName(), err)
		}
	}
}
