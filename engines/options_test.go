package engines_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sluice-data/sluice/engines"
)

func TestMerge(t *testing.T) {
	shared := map[string]string{"endpoint": "http://minio:9000", "region": "us-east-1"}
	own := map[string]string{"region": "eu-west-1", "acl": "private"}
	got := engines.Merge(shared, own)
	want := map[string]string{"endpoint": "http://minio:9000", "region": "eu-west-1", "acl": "private"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Merge (-want +got):\n%s", diff)
	}
	if shared["region"] != "us-east-1" || len(shared) != 2 || len(own) != 2 {
		t.Errorf("Merge changed its layers: %v, %v", shared, own)
	}
	got["endpoint"] = "changed"
	if shared["endpoint"] != "http://minio:9000" {
		t.Error("the result shares storage with a layer")
	}
	if got := engines.Merge(map[string]string{"a": "1"}, nil, map[string]string{"a": "2"}, map[string]string{"a": "3"}); got["a"] != "3" {
		t.Errorf("the last layer must win, got %v", got)
	}
	for _, got := range []map[string]string{engines.Merge(), engines.Merge(nil, nil)} {
		if got == nil || len(got) != 0 {
			t.Errorf("Merge of nothing = %#v, want an empty map, not nil", got)
		}
	}
}

func TestToPlain(t *testing.T) {
	type image struct {
		Repository string `json:"repository"`
		Tag        string `json:"tag,omitempty"`
	}
	type values struct {
		Name     string            `json:"name"`
		Replicas int32             `json:"replicas"`
		Image    *image            `json:"image"`
		Labels   map[string]string `json:"labels"`
		Paths    []string          `json:"paths"`
	}
	v := values{Name: "imagenet", Replicas: 2, Image: &image{Repository: "juicedata/juicefs-fuse"}, Paths: []string{"/a", "/b"}}
	for _, in := range []any{v, &v} {
		got, err := engines.ToPlain(in)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"name": "imagenet", "replicas": float64(2), "image": map[string]any{"repository": "juicedata/juicefs-fuse"},
			"labels": nil, "paths": []any{"/a", "/b"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ToPlain(%T) (-want +got):\n%s", in, diff)
		}
	}
	if _, err := engines.ToPlain(map[string]any{"f": func() {}}); err == nil {
		t.Error("a value JSON cannot hold must fail")
	}
	if _, err := engines.ToPlain([]string{"not", "an", "object"}); err == nil {
		t.Error("values that are not an object must fail")
	}
}
