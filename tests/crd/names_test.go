package crd_test

import (
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/sluice-data/sluice/tests/support/testobj"
)

// TestDatasetNamesAreDNS1035Labels (audit N11) through the real API
// server, without the webhook: a Dataset named b.c is refused by the CRD's
// own rule, naming it, so that it cannot take the PersistentVolume name
// of Dataset c of namespace <ns>-b (controller/volume); so are the other
// names Fluid's controller refuses. A DNS-1035 name is admitted and stays
// updatable.
func TestDatasetNamesAreDNS1035Labels(t *testing.T) {
	const rule = "metadata.name must be a DNS-1035 label"
	ns := env.Namespace(t)
	for _, name := range []string{"b.c", "1data", "data-" + strings.Repeat("x", 60)} {
		err := env.Client.Create(ctxT(t), testobj.Dataset(name, ns, testobj.WithMounts("s3://bucket/a")))
		if err == nil || !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), rule) {
			t.Errorf("Dataset %s/%s: want Invalid naming %q, got %v", ns, name, rule, err)
		}
	}
	ok := testobj.Dataset("b-c", ns, testobj.WithMounts("s3://bucket/a"))
	if err := env.Client.Create(ctxT(t), ok); err != nil {
		t.Fatalf("Dataset %s/b-c: %v", ns, err)
	}
	ok.Labels = map[string]string{"team": "a"}
	if err := env.Client.Update(ctxT(t), ok); err != nil {
		t.Fatalf("updating Dataset %s/b-c: %v", ns, err)
	}
}
