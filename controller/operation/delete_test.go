package operation

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	kubefake "helm.sh/helm/v3/pkg/kube/fake"
	"helm.sh/helm/v3/pkg/release"
	batchv1 "k8s.io/api/batch/v1"
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

// TestDeletionOutlastsAFailingUninstall: a release Helm cannot uninstall
// (here its objects cannot be built; in clusters, a corrupted record or a
// kind no longer served) holds the deletion back while it may be a passing
// failure, and no longer than uninstallPatience, or not at all in a
// namespace being deleted: then the Job is deleted directly, the Dataset
// released, the finalizer removed, and a Warning says so.
func TestDeletionOutlastsAFailingUninstall(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name        string
		deletedAgo  time.Duration
		terminating bool
		wantGone    bool // the operation, its Job and its claim are gone
	}{
		{"a fresh deletion retries", 10 * time.Second, false, false},
		{"past patience, the Job is deleted directly", uninstallPatience + time.Second, false, true},
		{"in a namespace being deleted, at once", 0, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := ctrl.LoggerInto(context.Background(), ctrl.Log)
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "n"}}
			if tc.terminating {
				ns.Status.Phase = corev1.NamespaceTerminating
			}
			deleted := metav1.NewTime(now.Add(-tc.deletedAgo))
			dl := &datav1alpha1.DataLoad{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "x", Finalizers: []string{Finalizer}, DeletionTimestamp: &deleted},
				Spec: datav1alpha1.DataLoadSpec{Dataset: datav1alpha1.TargetDataset{Name: "d"}}}
			job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "x-loader", Annotations: map[string]string{helm.ReleaseNameAnnotation: "x-loader"}}}
			ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "d"},
				Status: datav1alpha1.DatasetStatus{OperationRef: map[string]string{"DataLoad": "x"}}}
			c := fakeclient.NewClientBuilder().WithScheme(scheme.New()).WithObjects(ns, dl, job, ds).WithStatusSubresource(&datav1alpha1.Dataset{}).Build()
			hc := helm.NewMemoryClient("n", &kubefake.FailingKubeClient{PrintingKubeClient: kubefake.PrintingKubeClient{Out: io.Discard}, BuildError: errors.New("no kind Job is served")})
			if err := hc.Store(&release.Release{Name: "x-loader", Namespace: "n", Version: 1, Info: &release.Info{Status: release.StatusDeployed},
				Chart: &chart.Chart{Metadata: &chart.Metadata{Name: "sluice-fakeop", Version: "0.1.0"}}, Manifest: "kind: Job\n"}); err != nil {
				t.Fatal(err)
			}
			recorder := events.NewFakeRecorder(5)
			r := &Reconciler{Kind: datav1alpha1.DataLoadKind, Client: c, Live: c, Helm: func(string) (*helm.Client, error) { return hc, nil },
				Events: recorder, now: func() time.Time { return now }}

			_, err := r.reconcileDelete(ctx, dl)
			gone := func(obj client.Object) bool { return c.Get(ctx, client.ObjectKeyFromObject(obj), obj) != nil }
			if err := c.Get(ctx, client.ObjectKeyFromObject(ds), ds); err != nil {
				t.Fatal(err)
			}
			released := len(ds.Status.OperationRef) == 0
			if !tc.wantGone {
				if err == nil || gone(dl) || gone(job) || released {
					t.Fatalf("a fresh failure: err %v, operation gone %v, Job gone %v, released %v; want an error and everything kept", err, gone(dl), gone(job), released)
				}
				return
			}
			if err != nil || !gone(dl) || !gone(job) || !released {
				t.Fatalf("err %v, operation gone %v, Job gone %v, released %v; want everything gone", err, gone(dl), gone(job), released)
			}
			if e := <-recorder.Events; !strings.Contains(e, "Warning UninstallFailed") || !strings.Contains(e, "deleting the workload x-loader directly") {
				t.Fatalf("event %q", e)
			}
		})
	}
}
