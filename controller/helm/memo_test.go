package helm

import (
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chart"
)

func TestMemo(t *testing.T) {
	c := &chart.Chart{Metadata: &chart.Metadata{Name: "e", Version: "0.1.0"}, Templates: []*chart.File{{Name: "templates/a.yaml", Data: []byte("a: 1")}}}
	d := Desired{Chart: c, Values: map[string]any{"replicas": 2, "name": "x"}}
	m := &Memo{TTL: time.Hour}
	dig := func(d Desired) string {
		t.Helper()
		s, err := d.Digest()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if m.InSync("ns/x", dig(d)) {
		t.Fatal("nothing recorded yet")
	}
	m.Record("ns/x", dig(d))
	if !m.InSync("ns/x", dig(Desired{Chart: c, Values: map[string]any{"name": "x", "replicas": 2}})) {
		t.Error("the same chart and values must be in sync")
	}
	if m.InSync("ns/x", dig(Desired{Chart: c, Values: map[string]any{"replicas": 3, "name": "x"}})) {
		t.Error("other values must not be in sync")
	}
	changed := &chart.Chart{Metadata: c.Metadata, Templates: []*chart.File{{Name: "templates/a.yaml", Data: []byte("a: 2")}}}
	if m.InSync("ns/x", dig(Desired{Chart: changed, Values: d.Values})) {
		t.Error("a changed template of the same chart version must not be in sync")
	}
	if m.InSync("ns/y", dig(d)) {
		t.Error("another release must not be in sync")
	}
	m.Forget("ns/x")
	if m.InSync("ns/x", dig(d)) {
		t.Error("a forgotten release must not be in sync")
	}
	m.TTL = time.Nanosecond
	m.Record("ns/x", dig(d))
	time.Sleep(time.Millisecond)
	if m.InSync("ns/x", dig(d)) {
		t.Error("an entry older than the TTL must not be trusted")
	}
}
