package juicefs

import (
	"bufio"
	"maps"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFlagTablesMatchJuiceFS: the engine's flag tables (flags.go) are
// JuiceFS v1.2.1's, as testdata/juicefs-v1.2.1-flags.txt lists them from
// its source.
func TestFlagTablesMatchJuiceFS(t *testing.T) {
	f, err := os.Open("testdata/juicefs-v1.2.1-flags.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]map[string]bool{"global": {}, "format": {}, "mount": {}}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) == 3 && !strings.HasPrefix(fields[0], "#") {
			want[fields[0]][fields[1]] = fields[2] == "bool"
		}
	}
	got := map[string]map[string]bool{"global": maps.Clone(globalFlags), "format": maps.Clone(formatFlags), "mount": maps.Clone(mountFlags)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("flag tables differ from JuiceFS v1.2.1's (-source +flags.go):\n%s", diff)
	}
}
