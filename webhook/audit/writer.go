package audit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"golang.org/x/time/rate"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	policyreportv1alpha2 "github.com/sluice-data/sluice/api/policyreport/v1alpha2"
)

// Writer replaces the reports in the cluster. It remembers a fingerprint
// of each report it wrote (one short string per namespace), so that an
// unchanged report costs no request at all, and a changed one a GET and an
// UPDATE (or a CREATE).
type Writer struct {
	// Client reads and writes reports on the API server (not a cache).
	Client client.Client
	// Limiter, if set, spaces the requests.
	Limiter *rate.Limiter

	// stored is the fingerprint of each report in the cluster, by
	// namespace ("" the ClusterPolicyReport); nil until Seed.
	stored map[string]string
}

// Seed lists the reports Sluice wrote before (one request per kind), so
// that Put knows what is stored without asking, and Prune what to remove.
func (w *Writer) Seed(ctx context.Context) error {
	stored := map[string]string{}
	mine := client.MatchingLabels{ManagedByLabel: ManagedBy}
	var reports policyreportv1alpha2.PolicyReportList
	if err := w.wait(ctx); err != nil {
		return err
	}
	if err := w.Client.List(ctx, &reports, mine); err != nil {
		return fmt.Errorf("listing PolicyReports: %w", err)
	}
	for i := range reports.Items {
		if r := &reports.Items[i]; r.Name == ReportName {
			stored[r.Namespace] = fingerprint(r)
		}
	}
	var cluster policyreportv1alpha2.ClusterPolicyReportList
	if err := w.wait(ctx); err != nil {
		return err
	}
	if err := w.Client.List(ctx, &cluster, mine); err != nil {
		return fmt.Errorf("listing ClusterPolicyReports: %w", err)
	}
	for i := range cluster.Items {
		if r := &cluster.Items[i]; r.Name == ReportName {
			stored[""] = fingerprint(r)
		}
	}
	w.stored = stored
	return nil
}

// Put makes report (from Report) the stored report of its namespace,
// replacing the previous one whole; an Empty report removes it. It says
// whether it wrote.
func (w *Writer) Put(ctx context.Context, report client.Object) (bool, error) {
	ns := report.GetNamespace()
	prev, exists := w.stored[ns]
	if Empty(report) {
		if !exists {
			return false, nil
		}
		if err := w.wait(ctx); err != nil {
			return false, err
		}
		if err := w.Client.Delete(ctx, report); err != nil && !apierrors.IsNotFound(err) {
			return false, fmt.Errorf("deleting the report of %q: %w", ns, err)
		}
		delete(w.stored, ns)
		return true, nil
	}
	fp := fingerprint(report)
	if exists && prev == fp {
		return false, nil
	}
	if err := w.replace(ctx, report); err != nil {
		return false, fmt.Errorf("writing the report of %q: %w", ns, err)
	}
	w.stored[ns] = fp
	return true, nil
}

// Forget removes the reports of the namespaces not in seen (deleted
// namespaces' reports go with them; this drops them from memory).
func (w *Writer) Forget(seen map[string]bool) {
	for ns := range w.stored {
		if !seen[ns] {
			delete(w.stored, ns)
		}
	}
}

func (w *Writer) replace(ctx context.Context, report client.Object) error {
	current := report.DeepCopyObject().(client.Object)
	if err := w.wait(ctx); err != nil {
		return err
	}
	err := w.Client.Get(ctx, client.ObjectKeyFromObject(report), current)
	if err := w.wait(ctx); err != nil {
		return err
	}
	if apierrors.IsNotFound(err) {
		return w.Client.Create(ctx, report)
	}
	if err != nil {
		return err
	}
	report.SetResourceVersion(current.GetResourceVersion())
	return w.Client.Update(ctx, report)
}

func (w *Writer) wait(ctx context.Context) error {
	if w.Limiter == nil {
		return nil
	}
	return w.Limiter.Wait(ctx)
}

// fingerprint identifies a report's content, its timestamps aside.
func fingerprint(report client.Object) string {
	sum, results := contentOf(report)
	results = append([]policyreportv1alpha2.ReportResult(nil), results...)
	for i := range results {
		results[i].Timestamp = metav1.Timestamp{}
	}
	data, _ := json.Marshal(struct {
		S policyreportv1alpha2.Summary
		R []policyreportv1alpha2.ReportResult
		O string
	}{sum, results, report.GetAnnotations()[OmittedAnnotation]})
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}
