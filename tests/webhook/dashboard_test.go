package webhook_test

import (
	"testing"

	dto "github.com/prometheus/client_model/go"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/monitoring"
)

// TestDashboardWebhookPanelsNameExportedMetrics: after an admission, every
// query of the Grafana dashboard's webhook row names a metric in the
// registry the webhook serves (the controller's rows: tests/controller).
func TestDashboardWebhookPanelsNameExportedMetrics(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "dash", datav1alpha1.BoundDatasetPhase)
	waitForCache()
	pod := datasetPod("dash", serverful, "dash")
	pod.Namespace = ns
	if err := env.Client.Create(ctxT(t), pod); err != nil {
		t.Fatal(err)
	}
	queries, err := monitoring.DashboardQueries()
	if err != nil {
		t.Fatal(err)
	}
	fams := families(t)
	all := make([]*dto.MetricFamily, 0, len(fams))
	for _, f := range fams {
		all = append(all, f)
	}
	exported := monitoring.ExportedNames(all)
	checked := 0
	for _, q := range queries {
		if q.Row != monitoring.WebhookRow {
			continue
		}
		names, err := monitoring.MetricNames(q.Expr)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			checked++
			if !exported[n] {
				t.Errorf("%s / %s: the webhook exports no %s", q.Row, q.Panel, n)
			}
		}
	}
	if checked == 0 {
		t.Fatal("the dashboard has no webhook queries")
	}
}
