package dataop_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

func TestParseLocation(t *testing.T) {
	dirType := corev1.HostPathDirectoryOrCreate
	for _, tc := range []struct {
		uri   string
		want  corev1.Volume
		mount corev1.VolumeMount // mounted at /target
	}{
		{"local:///mnt/backup", corev1.Volume{Name: "v", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/mnt/backup", Type: &dirType}}},
			corev1.VolumeMount{Name: "v", MountPath: "/target"}},
		{"pvc://claim", corev1.Volume{Name: "v", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "claim"}}},
			corev1.VolumeMount{Name: "v", MountPath: "/target"}},
		{"pvc://claim/a/b/", corev1.Volume{Name: "v", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "claim"}}},
			corev1.VolumeMount{Name: "v", MountPath: "/target", SubPath: "a/b"}},
	} {
		loc, err := dataop.ParseLocation("spec.backupPath", tc.uri, "v")
		if err != nil {
			t.Fatalf("%s: %v", tc.uri, err)
		}
		if diff := cmp.Diff(tc.want, loc.Volume); diff != "" {
			t.Errorf("%s volume (-want +got):\n%s", tc.uri, diff)
		}
		if diff := cmp.Diff(tc.mount, loc.Mount("/target", false)); diff != "" {
			t.Errorf("%s mount (-want +got):\n%s", tc.uri, diff)
		}
	}
	for _, uri := range []string{"", "/mnt/backup", "local://relative", "pvc://", "pvc://Not_A_Claim/x", "pvc://claim/../other", "s3://bucket"} {
		_, err := dataop.ParseLocation("spec.backupPath", uri, "v")
		enginetest.WantInvalid(t, err, "spec.backupPath")
	}
}
