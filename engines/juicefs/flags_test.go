package juicefs_test

import (
	"bufio"
	"os"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/sluice-data/sluice/engines/enginetest"
)

// juicefsFlags reads testdata/juicefs-v1.2.1-flags.txt: the flags of
// juicefs format and juicefs mount and the global flags of JuiceFS
// community edition v1.2.1 (the default image), taken from
// github.com/juicedata/juicefs at tag v1.2.1 (cmd/flags.go, cmd/format.go,
// cmd/mount.go, cmd/mount_unix.go); command → flag → whether it is a bool
// flag.
func juicefsFlags(t *testing.T) map[string]map[string]bool {
	t.Helper()
	f, err := os.Open("testdata/juicefs-v1.2.1-flags.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 3 {
			t.Fatalf("bad line %q", line)
		}
		if out[fields[0]] == nil {
			out[fields[0]] = map[string]bool{}
		}
		out[fields[0]][fields[1]] = fields[2] == "bool"
	}
	return out
}

// TestRenderedFlagsAreJuiceFSFlags renders the sample and every golden
// case of the community edition and checks each flag of every juicefs
// format and juicefs mount command against JuiceFS's own list: the flag
// exists for that command (or globally), a bool flag has no value, any
// other flag has one.
func TestRenderedFlagsAreJuiceFSFlags(t *testing.T) {
	known := juicefsFlags(t)
	checked := map[string]int{}
	for name, mk := range goldenCases {
		if name == "ee-token" {
			continue // the enterprise client is not open source; its options are not checked against a list
		}
		ds, rt := mk()
		out := render(t, ds, rt)
		var containers []corev1.Container
		sts := enginetest.Decode[appsv1.StatefulSet](t, out, "templates/worker-statefulset.yaml").Spec.Template.Spec
		dsf := enginetest.Decode[appsv1.DaemonSet](t, out, "templates/fuse-daemonset.yaml").Spec.Template.Spec
		containers = append(append(append(append(containers, sts.InitContainers...), sts.Containers...), dsf.InitContainers...), dsf.Containers...)
		for _, c := range containers {
			a := argv(c)
			for i, arg := range a {
				if arg != "juicefs" || i+1 >= len(a) || a[i+1] == "quota" {
					continue
				}
				cmd := a[i+1]
				for j := i + 2; j < len(a) && a[j] != "juicefs" && strings.Trim(a[j], "0123456789") != ""; j++ {
					if a[j] == "-o" {
						j++ // FUSE options, checked by TestOptionMapping
						continue
					}
					if !strings.HasPrefix(a[j], "--") {
						continue
					}
					name, value, hasValue := strings.Cut(strings.TrimPrefix(a[j], "--"), "=")
					isBool, ok := known[cmd][name]
					if !ok {
						isBool, ok = known["global"][name]
					}
					switch {
					case !ok:
						t.Errorf("%s: %s: juicefs %s has no flag --%s (JuiceFS v1.2.1)", name, c.Name, cmd, name)
					case isBool && hasValue && value != "true" && value != "false":
						t.Errorf("%s: %s: --%s is a bool flag, given %q", name, c.Name, name, value)
					case !isBool && !hasValue:
						t.Errorf("%s: %s: --%s takes a value", name, c.Name, name)
					}
					checked[cmd]++
				}
			}
		}
	}
	if checked["format"] < 10 || checked["mount"] < 20 {
		t.Errorf("checked %v flags; the cases no longer render format and mount flags", checked)
	}
}
