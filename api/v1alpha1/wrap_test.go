package v1alpha1

import "testing"

func TestWrappedClaim(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mounts []string // the Dataset's mount points
		claim  string   // "" when it wraps nothing
	}{
		{"a whole PVC", []string{"pvc://nas-data"}, "nas-data"},
		{"a whole PVC with a trailing slash", []string{"pvc://nas-data/"}, "nas-data"},
		{"a sub-path of a PVC", []string{"pvc://nas-data/train"}, ""},
		{"a PVC beside another mount", []string{"pvc://nas-data", "s3://bucket"}, ""},
		{"two PVCs", []string{"pvc://a", "pvc://b"}, ""},
		{"no PVC", []string{"nfs://10.0.0.5/share"}, ""},
		{"no claim name", []string{"pvc://"}, ""},
		{"an invalid claim name", []string{"pvc://Nas_Data"}, ""},
		{"no mount", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := &Dataset{}
			for _, m := range tc.mounts {
				ds.Spec.Mounts = append(ds.Spec.Mounts, Mount{MountPoint: m})
			}
			claim, ok := WrappedClaim(ds)
			if claim != tc.claim || ok != (tc.claim != "") {
				t.Errorf("WrappedClaim(%v) = %q, %v; want %q", tc.mounts, claim, ok, tc.claim)
			}
		})
	}
}
