package helm

import (
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/sluice-data/sluice/charts"
)

// TestEngineKindsAreWhatChartsCreate: EngineKinds are exactly the kinds
// the templates of the engine and data-operation charts declare (every
// chart but the platform's, which is never installed through a Client),
// so the guard refuses nothing they render and allows nothing more.
func TestEngineKindsAreWhatChartsCreate(t *testing.T) {
	head := regexp.MustCompile(`(?m)^apiVersion: (\S+)\n(?:.*\n)*?kind: (\S+)$`)
	found := map[schema.GroupKind][]string{}
	for name, fsys := range map[string]fs.FS{"alluxio": charts.Alluxio, "jindo": charts.Jindo, "juicefs": charts.JuiceFS, "thin": charts.Thin,
		"dataop": charts.DataOp, "fake": charts.Fake, "fakeop": charts.FakeOp, "cachecleanup": charts.CacheCleanup} {
		err := fs.WalkDir(fsys, "templates", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := fs.ReadFile(fsys, p)
			for _, m := range head.FindAllStringSubmatch(string(data), -1) {
				gv, perr := schema.ParseGroupVersion(m[1])
				if perr != nil {
					t.Errorf("%s/%s: %v", name, p, perr)
				}
				gk := gv.WithKind(m[2]).GroupKind()
				found[gk] = append(found[gk], name+"/"+p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var got, want []string
	for gk := range found {
		got = append(got, gk.String())
	}
	for _, gk := range EngineKinds {
		want = append(want, gk.String())
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("the charts declare %s; EngineKinds are %s", strings.Join(got, ", "), strings.Join(want, ", "))
	}
}
