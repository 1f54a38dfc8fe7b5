package testenv_test

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/sluice-data/sluice/tests/support/testenv"
)

// A control plane started from the seed serves the CRDs a control plane
// that installs config/crd/bases itself serves: the same names, and each
// the same spec (a stale seed would differ here).
func TestTheSeedServesTheInstalledCRDs(t *testing.T) {
	seeded := crdsOf(t, false)
	installed := crdsOf(t, true)
	if len(seeded) != len(installed) || len(installed) == 0 {
		t.Fatalf("%d CRDs from the seed, %d installed", len(seeded), len(installed))
	}
	for name, want := range installed {
		got, ok := seeded[name]
		if !ok {
			t.Errorf("%s: not served from the seed", name)
			continue
		}
		if !equality.Semantic.DeepEqual(got.Spec, want.Spec) {
			t.Errorf("%s: the seed's spec differs from the installed one", name)
		}
		if !established(got) {
			t.Errorf("%s: not established from the seed", name)
		}
	}
}

// crdsOf starts a control plane, from the seed or installing the CRDs
// itself, and returns its CRDs by name.
func crdsOf(t *testing.T, install bool) map[string]apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	if install {
		t.Setenv("SLUICE_TESTENV_NO_SEED", "1")
	}
	env, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stopping the control plane: %v", err)
		}
	}()
	list := &apiextensionsv1.CustomResourceDefinitionList{}
	if err := env.Client.List(testenv.Context(t), list); err != nil {
		t.Fatal(err)
	}
	out := map[string]apiextensionsv1.CustomResourceDefinition{}
	for _, crd := range list.Items {
		out[crd.Name] = crd
	}
	return out
}

func established(crd apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established {
			return c.Status == apiextensionsv1.ConditionTrue
		}
	}
	return false
}
