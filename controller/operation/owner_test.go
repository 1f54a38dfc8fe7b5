package operation

import (
	"context"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
)

// TestOnlyTheOperationsOwnReleaseIsUninstalled (reliability audit N3): the
// paths that uninstall an operation's release (its deletion, and the end
// of a Cron operation that failed for good) uninstall a release of its
// name only when it is the operation's: of an operation chart, stamped
// with the operation's UID or (written before stamps) with none. A
// runtime's release of that name (runtime x-loader, DataLoad x), or
// another operation's, stays; the deletion goes on and says so in a
// Warning event.
func TestOnlyTheOperationsOwnReleaseIsUninstalled(t *testing.T) {
	for _, tc := range []struct {
		name         string
		chart, owner string // the release's chart and OwnerLabel
		wantGone     bool
	}{
		{"a runtime's release", "sluice-juicefs", "", false},
		{"another operation's", "sluice-dataop", "uid-other", false},
		{"the operation's own", "sluice-dataop", "uid-x", true},
		{"an unstamped one of an operation chart", "sluice-fakeop", "", true},
	} {
		for _, path := range []string{"delete", "cron over"} {
			t.Run(tc.name+"/"+path, func(t *testing.T) {
				ctx := ctrl.LoggerInto(context.Background(), ctrl.Log)
				dl := &datav1alpha1.DataLoad{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "x", UID: "uid-x", Finalizers: []string{Finalizer}},
					Spec: datav1alpha1.DataLoadSpec{Dataset: datav1alpha1.TargetDataset{Name: "d"}}}
				if path == "delete" {
					dl.DeletionTimestamp = &metav1.Time{Time: time.Now()}
				} else {
					dl.Spec.Policy, dl.Spec.Schedule = datav1alpha1.Cron, "*/5 * * * *"
					dl.Status.Phase = datav1alpha1.PhaseFailed
					dl.Status.Conditions = []metav1.Condition{{Type: ConditionFailed, Status: metav1.ConditionTrue, Reason: ReasonWorkloadMissing}}
				}
				ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "n"}}
				c := fakeclient.NewClientBuilder().WithScheme(scheme.New()).WithObjects(ns, dl).Build()
				hc := helm.NewMemoryClient("n", nil)
				rel := &release.Release{Name: "x-loader", Namespace: "n", Version: 1, Info: &release.Info{Status: release.StatusDeployed},
					Chart: &chart.Chart{Metadata: &chart.Metadata{Name: tc.chart, Version: "0.1.0"}}, Manifest: "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: x-loader-worker\n"}
				if tc.owner != "" {
					rel.Labels = map[string]string{helm.OwnerLabel: tc.owner}
				}
				if err := hc.Store(rel); err != nil {
					t.Fatal(err)
				}
				recorder := events.NewFakeRecorder(5)
				r := &Reconciler{Kind: datav1alpha1.DataLoadKind, Client: c, Live: c, Helm: func(string) (*helm.Client, error) { return hc, nil }, Events: recorder}

				var err error
				if path == "delete" {
					_, err = r.reconcileDelete(ctx, dl)
				} else {
					_, err = r.reconcileOver(ctx, dl)
				}
				if err != nil {
					t.Fatal(err)
				}
				latest, err := hc.Latest("x-loader")
				if err != nil {
					t.Fatal(err)
				}
				if gone := latest == nil; gone != tc.wantGone {
					t.Fatalf("release x-loader uninstalled: %v, want %v", gone, tc.wantGone)
				}
				if path == "delete" {
					if err := c.Get(ctx, client.ObjectKeyFromObject(dl), dl); err == nil {
						t.Fatalf("the operation's deletion did not finish: finalizers %v", dl.Finalizers)
					}
					if !tc.wantGone {
						if e := <-recorder.Events; !strings.Contains(e, "Warning "+ReasonReleaseConflict) || !strings.Contains(e, "left in place") {
							t.Fatalf("event %q, want a ReleaseConflict warning", e)
						}
					}
				}
			})
		}
	}
}
