package snapshot

import (
	"context"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	"github.com/sluice-data/sluice/webhook/internal/regovalue"
)

// A namespace's policy value is computed once per resource version, and is
// the value of its fields either way.
func TestNamespaceValueIsRememberedPerResourceVersion(t *testing.T) {
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a", Labels: map[string]string{"tier": "gold"}}}
	c := fake.NewClientBuilder().WithScheme(sluicescheme.New()).WithObjects(ns).Build()
	g := &Gatherer{Reader: c}
	value := func(name string) ast.Value {
		t.Helper()
		n, err := g.Namespace(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		v, err := n.RegoValue()
		if err != nil {
			t.Fatal(err)
		}
		want, err := regovalue.ToValue(plainNamespace(n))
		if err != nil {
			t.Fatal(err)
		}
		if v.Compare(want) != 0 {
			t.Fatalf("value %v, want %v", v, want)
		}
		return v
	}

	first := value("team-a")
	if second := value("team-a"); second != first {
		t.Fatal("an unchanged namespace was converted again")
	}
	ns.Labels["tier"] = "silver"
	if err := c.Update(ctx, ns); err != nil {
		t.Fatal(err)
	}
	if got := value("team-a"); got.Compare(first) == 0 {
		t.Fatalf("the changed namespace still has the value %v", got)
	}
	if got := value("missing").String(); got != `{"labels": {}, "name": "missing"}` {
		t.Fatalf("missing namespace: %s", got)
	}
}
