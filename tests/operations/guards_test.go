package operations_test

import (
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// allowLocal lets the namespace's operations use local:// paths under dir
// (policy data validating.guards.<ns>.localPaths).
func allowLocal(t *testing.T, ns, dir string) {
	t.Helper()
	policyData(t, "local-"+ns, "validating: {guards: {"+ns+": {localPaths: ["+dir+"]}}}\n")
}

// TestTheGuardsRefuseAnOperationAtReconcile is issue 30 item 6 for data
// operations (audit N6): a DataBackup to a host directory the platform has
// not admitted, stored with no webhook in front of the API server, fails
// InvalidSpec naming the field and the rule, and no Job runs.
func TestTheGuardsRefuseAnOperationAtReconcile(t *testing.T) {
	ns := env.Namespace(t)
	seed(t, ns, "logs", engineFake)
	bk := &datav1alpha1.DataBackup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "etc"},
		Spec: datav1alpha1.DataBackupSpec{Dataset: "logs", BackupPath: "local:///etc"}}
	create(t, bk)
	reaches(t, bk, datav1alpha1.PhaseFailed, 10*time.Second)
	st := status(t, bk)
	var msg string
	for _, c := range st.Conditions {
		if c.Reason == "InvalidSpec" {
			msg = c.Message
		}
	}
	for _, want := range []string{`spec.backupPath: local path "/etc" is not under an allowed prefix`, "(rule local-mount)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the InvalidSpec condition %q does not say %q (conditions %+v)", msg, want, st.Conditions)
		}
	}
	if read(t, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "etc-backup"}}) {
		t.Error("a Job runs for a backup the guards refuse")
	}
}
