package operation

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

func TestReleaseName(t *testing.T) {
	long := strings.Repeat("a", 40) + "-" + strings.Repeat("b", 30)
	for _, tc := range []struct {
		kind datav1alpha1.OperationKind
		name string
		want string // "" when the name is too long to keep whole
	}{
		{datav1alpha1.DataLoadKind, "warm", "warm-loader"},
		{datav1alpha1.DataMigrateKind, "sync", "sync-migrate"},
		{datav1alpha1.DataBackupKind, "nightly", "nightly-backup"},
		{datav1alpha1.DataProcessKind, "train.v2", "train.v2-processor"},
		{datav1alpha1.DataLoadKind, long, ""},
		{datav1alpha1.DataLoadKind, long + "x", ""},
		{datav1alpha1.DataProcessKind, strings.Repeat("c", 35) + ".-" + strings.Repeat("d", 30), ""},
	} {
		got := ReleaseName(tc.kind, tc.name)
		if tc.want != "" && got != tc.want {
			t.Errorf("ReleaseName(%s, %s) = %s, want %s", tc.kind, tc.name, got, tc.want)
		}
		if len(got) > maxReleaseName || len(validation.IsDNS1123Subdomain(got)) > 0 || !strings.HasSuffix(got, releaseSuffixes[tc.kind]) {
			t.Errorf("ReleaseName(%s, %s) = %s: not a release and CronJob name of the kind", tc.kind, tc.name, got)
		}
	}
	if ReleaseName(datav1alpha1.DataLoadKind, long) == ReleaseName(datav1alpha1.DataLoadKind, long+"x") {
		t.Error("two long names sharing their start share a release")
	}
}
