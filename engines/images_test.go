package engines_test

import (
	"strings"
	"testing"

	"github.com/sluice-data/sluice/engines"
)

func TestImagesResolve(t *testing.T) {
	d := engines.DefaultImage{Name: "juicefs", Repository: "juicedata/juicefs-fuse", Tag: "ce-v1.2.1"}
	digest := "@sha256:" + strings.Repeat("a", 64)
	for _, tc := range []struct {
		name   string
		images engines.Images
		repo   string // want
		tag    string // want
	}{
		{"built-in", engines.Images{}, "juicedata/juicefs-fuse", "ce-v1.2.1"},
		{"Docker Hub image under a mirror", engines.Images{Registry: "mirror.example.com"}, "mirror.example.com/juicedata/juicefs-fuse", "ce-v1.2.1"},
		{"mirror with a port and a path", engines.Images{Registry: "mirror.example.com:5000/hub/"}, "mirror.example.com:5000/hub/juicedata/juicefs-fuse", "ce-v1.2.1"},
		{"override with a tag", engines.Images{Registry: "mirror.example.com", Overrides: map[string]string{"juicefs": "registry.example.com:5000/jfs:1"}}, "registry.example.com:5000/jfs", "1"},
		{"override without a tag keeps the default's", engines.Images{Overrides: map[string]string{"juicefs": "registry.example.com:5000/jfs"}}, "registry.example.com:5000/jfs", "ce-v1.2.1"},
		{"override with a digest", engines.Images{Overrides: map[string]string{"juicefs": "jfs" + digest}}, "jfs" + digest, ""},
		{"another image's override", engines.Images{Overrides: map[string]string{"alluxio": "a:1"}}, "juicedata/juicefs-fuse", "ce-v1.2.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo, tag := tc.images.Resolve(d)
			if repo != tc.repo || tag != tc.tag {
				t.Errorf("got %s, %s; want %s, %s", repo, tag, tc.repo, tc.tag)
			}
		})
	}
}

func TestMirrorRepository(t *testing.T) {
	for repo, want := range map[string]string{
		"alluxio/alluxio": "m.example.com/alluxio/alluxio",
		"busybox":         "m.example.com/busybox",
		"registry.cn-shanghai.aliyuncs.com/jindofs/smartdata": "m.example.com/jindofs/smartdata",
		"localhost/x/y":              "m.example.com/x/y",
		"localhost:5000/x":           "m.example.com/x",
		"ghcr.io/sluice-data/sluice": "m.example.com/sluice-data/sluice",
	} {
		if got := engines.MirrorRepository("m.example.com", repo); got != want {
			t.Errorf("%s: got %s, want %s", repo, got, want)
		}
	}
}

func TestImagesCheck(t *testing.T) {
	known := []engines.DefaultImage{{Name: "juicefs"}, {Name: "alluxio"}}
	for _, tc := range []struct {
		name   string
		images engines.Images
		want   string // in the error; "" for none
	}{
		{"fine", engines.Images{Registry: "m.example.com:5000/p", Overrides: map[string]string{"alluxio": "a/b:2.9"}}, ""},
		{"unknown name", engines.Images{Overrides: map[string]string{"alluxo": "a/b"}}, `engine image "alluxo" is not one of the engines' default images (juicefs, alluxio)`},
		{"not a reference", engines.Images{Overrides: map[string]string{"alluxio": "a b"}}, `engine image alluxio="a b" is not an image reference`},
		{"registry with a scheme", engines.Images{Registry: "https://m.example.com"}, `image registry "https://m.example.com" is not a registry`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.images.Check(known)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}
