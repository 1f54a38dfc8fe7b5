package volume

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

func dataset(ns, name string) *datav1alpha1.Dataset {
	return &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
}

// TestNameKeepsFluidsNameWhereItIsUnambiguous: a namespace without '-'
// keeps Fluid's "<namespace>-<name>"; the two Datasets the audit (H5)
// names, which Fluid's name gives the same PV, get two.
func TestNameKeepsFluidsNameWhereItIsUnambiguous(t *testing.T) {
	for _, c := range []struct{ ns, name, want string }{
		{"default", "imagenet", "default-imagenet"},
		{"a", "b-c", "a-b-c"},
		{"a-b", "c", "a-b.c"},
		{"team-a", "imagenet-v2", "team-a.imagenet-v2"},
	} {
		if got := Name(dataset(c.ns, c.name)); got != c.want {
			t.Errorf("Name(%s/%s) = %q, want %q", c.ns, c.name, got, c.want)
		}
	}
}

// TestNoTwoDatasetsShareAPVName: over every namespace (DNS-1123 label)
// and Dataset name (DNS-1035 label) of up to four characters from
// {a, b, -}, no two pairs get the same PV name, every name is a valid PV
// name, and Names lists Name first and the earlier name second, only
// when it differs.
func TestNoTwoDatasetsShareAPVName(t *testing.T) {
	var words []string
	var grow func(string)
	grow = func(w string) {
		if w != "" {
			words = append(words, w)
		}
		if len(w) < 4 {
			for _, r := range "ab-" {
				grow(w + string(r))
			}
		}
	}
	grow("")
	seen := map[string][2]string{}
	pairs := 0
	for _, ns := range words {
		if len(validation.IsDNS1123Label(ns)) > 0 {
			continue
		}
		for _, name := range words {
			if len(validation.IsDNS1035Label(name)) > 0 {
				continue
			}
			pairs++
			ds := dataset(ns, name)
			n := Name(ds)
			if errs := validation.IsDNS1123Subdomain(n); len(errs) > 0 {
				t.Fatalf("Name(%s/%s) = %q is not a valid PV name: %v", ns, name, n, errs)
			}
			if prev, dup := seen[n]; dup {
				t.Fatalf("%s/%s and %s/%s share PV name %q", prev[0], prev[1], ns, name, n)
			}
			seen[n] = [2]string{ns, name}
			names, legacy := Names(ds), ns+"-"+name
			if names[0] != n || (legacy == n) != (len(names) == 1) || (len(names) == 2 && names[1] != legacy) {
				t.Fatalf("Names(%s/%s) = %q", ns, name, names)
			}
		}
	}
	if pairs < 100 {
		t.Fatalf("only %d pairs checked", pairs)
	}
}

// TestClaimedNameFollowsTheClaim: a PVC created before the names changed
// keeps naming the PV of the earlier name; a volumeName that is neither of
// the Dataset's names is not followed.
func TestClaimedNameFollowsTheClaim(t *testing.T) {
	ds := dataset("team-a", "imagenet")
	for volumeName, want := range map[string]string{
		"team-a-imagenet": "team-a-imagenet",
		"team-a.imagenet": "team-a.imagenet",
		"":                "team-a.imagenet",
		"team-b.secret":   "team-a.imagenet",
	} {
		pvc, err := PVC(ds)
		if err != nil {
			t.Fatal(err)
		}
		if pvc.Spec.VolumeName != "team-a.imagenet" {
			t.Fatalf("a new PVC names PV %q", pvc.Spec.VolumeName)
		}
		pvc.Spec.VolumeName = volumeName
		if got := ClaimedName(ds, pvc); got != want {
			t.Errorf("ClaimedName with volumeName %q = %q, want %q", volumeName, got, want)
		}
	}
}
