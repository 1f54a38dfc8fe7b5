package mutating

import (
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	corev1 "k8s.io/api/core/v1"

	"github.com/sluice-data/sluice/webhook/internal/randompod"
	"github.com/sluice-data/sluice/webhook/internal/regovalue"
	"github.com/sluice-data/sluice/webhook/snapshot"
)

// The decision memo hands a Pod the decision of an earlier one when
// sameInput says their inputs are the same: that must make the same Rego
// input, or a Pod would be decided as another was. Checked on the fixture
// Pods and random changes of them, pairing each with a changed copy: where
// the Rego inputs differ, sameInput must say so; the memo's own copy of an
// input must be the same input, with the same hash.
func TestSameInputMeansTheSameRegoInput(t *testing.T) {
	pods, err := randompod.Fixtures()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(3))
	vols := testVolumes()
	ns := snapshot.Namespace{Name: "ns", Labels: map[string]string{"team": "a"}}
	var same, differ int
	for i := 0; i < 1000; i++ {
		p := perturbed(rng, pods, 4)
		req := Request{Pod: p, Operation: "CREATE", Namespace: "ns", DryRun: rng.Intn(2) == 0}
		v, native := vols[:rng.Intn(2)], rng.Intn(2) == 0
		if len(v) > 0 && rng.Intn(2) == 0 {
			v = []snapshot.DatasetVolume{v[0]}
			v[0].Fuse = &snapshot.FuseTemplate{Volumes: []corev1.Volume{{Name: "fuse-mount"}}}
		}
		in, key := NewInput(req, v, ns, native), memoKey(req, v, ns, native)
		if slices.ContainsFunc(key.DatasetVolumes, func(dv snapshot.DatasetVolume) bool { return dv.Fuse != nil }) {
			t.Fatal("the memo's copy of an input keeps a FUSE template, which is not input and which its bytes do not count")
		}
		if !sameInput(&in, &key) || inputHash(&in) != inputHash(&key) {
			t.Fatalf("the memo's copy of an input is not the same input (same %v, hashes %x, %x)", sameInput(&in, &key), inputHash(&in), inputHash(&key))
		}
		q := p.DeepCopy()
		if rng.Intn(4) > 0 {
			randompod.Perturb(rng, q)
		}
		other := req
		other.Pod = q
		if rng.Intn(8) == 0 {
			other.DryRun = !other.DryRun
		}
		in2 := NewInput(other, v, ns, native)
		a, b := mustValue(t, &in), mustValue(t, &in2)
		if a.Compare(b) != 0 {
			differ++
			if sameInput(&in, &in2) {
				t.Fatalf("inputs with different Rego values are the same to the memo:\n%v\n%v", a, b)
			}
		} else {
			same++
		}
	}
	if same == 0 || differ < 100 {
		t.Fatalf("%d pairs the same and %d different: the pairs do not exercise both outcomes", same, differ)
	}
}

func mustValue(t *testing.T, in *Input) ast.Value {
	t.Helper()
	v, err := regovalue.ToValue(in)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// sameInput compares inputs with reflect.DeepEqual, which reads every field
// as it is: a field holding something that changes while it is compared
// (a lock, a lazily computed value, an OPA value sorting its keys) would be
// a data race, and a function or an interface may hide either. The
// namespace's and the volumes' remembered Rego values are the only such
// fields, and their Equal methods leave them out. This walks every type an
// Input holds, so that a field added later cannot bring one in unnoticed.
func TestInputIsPlainData(t *testing.T) {
	skip := map[string]bool{ // compared by their Equal methods, without these
		"snapshot.Namespace.value": true, "snapshot.DatasetVolume.value": true, "snapshot.DatasetVolume.Fuse": true,
	}
	seen := map[reflect.Type]bool{}
	var walk func(typ reflect.Type, path string)
	walk = func(typ reflect.Type, path string) {
		if seen[typ] {
			return
		}
		seen[typ] = true
		if pkg := typ.PkgPath(); pkg == "sync" || pkg == "sync/atomic" || strings.HasPrefix(pkg, "github.com/open-policy-agent/") {
			t.Errorf("%s is a %s: not plain data", path, typ)
			return
		}
		switch typ.Kind() {
		case reflect.Interface, reflect.Func, reflect.Chan, reflect.UnsafePointer:
			t.Errorf("%s is a %s: not plain data", path, typ)
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(typ.Elem(), path+"[]")
		case reflect.Map:
			walk(typ.Key(), path+"{key}")
			walk(typ.Elem(), path+"{}")
		case reflect.Struct:
			for i := 0; i < typ.NumField(); i++ {
				f := typ.Field(i)
				if skip[typ.String()+"."+f.Name] {
					continue
				}
				walk(f.Type, path+"."+f.Name)
			}
		}
	}
	walk(reflect.TypeFor[Input](), "Input")
	for k := range skip {
		name := k[:strings.LastIndex(k, ".")]
		found := false
		for typ := range seen {
			if typ.String() == name {
				found = true
			}
		}
		if !found {
			t.Errorf("%s is no longer part of Input: update the test and sameInput", name)
		}
	}
}
