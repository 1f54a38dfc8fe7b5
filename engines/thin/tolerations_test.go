package thin_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/sluice-data/sluice/engines/enginetest"
)

// TestFuseToleratesTheDatasetsTaintsOnly (audit N13): the privileged FUSE
// pods tolerate the Dataset's tolerations, which the toleration guard
// judges, and no others; before, they tolerated every taint, so a Pod
// placed on the control plane by nodeName brought its FUSE there.
func TestFuseToleratesTheDatasetsTaintsOnly(t *testing.T) {
	ds, profile, rt := sample()
	for _, tt := range []struct {
		name        string
		tolerations []corev1.Toleration // the Dataset's
	}{
		{"the Dataset's", ds.Spec.Tolerations},
		{"none", nil},
	} {
		ds.Spec.Tolerations = tt.tolerations
		_, out := render(t, ds, profile, rt)
		got := enginetest.Decode[appsv1.DaemonSet](t, out, "templates/fuse-daemonset.yaml").Spec.Template.Spec.Tolerations
		if diff := cmp.Diff(tt.tolerations, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: FUSE tolerations (-want +got):\n%s", tt.name, diff)
		}
	}
}
