package audit

import (
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	policyreportv1alpha2 "github.com/sluice-data/sluice/api/policyreport/v1alpha2"
)

const (
	// ReportName names the report Sluice writes in each namespace (and
	// its ClusterPolicyReport).
	ReportName = "sluice-audit"
	// ReportSource is the source of every result Sluice writes.
	ReportSource = "sluice"
	// ManagedByLabel marks the reports Sluice writes, so that the
	// in-cluster audit finds and replaces its own.
	ManagedByLabel = "app.kubernetes.io/managed-by"
	// ManagedBy is ManagedByLabel's value on them.
	ManagedBy = "sluice-audit"
	// MaxResults bounds the results one report lists, so that a report
	// stays far below the API server's object size limit; the summary
	// still counts every result, and OmittedAnnotation how many were left
	// out.
	MaxResults = 1000
	// OmittedAnnotation is set on a report that lists only the first
	// MaxResults results: the number left out.
	OmittedAnnotation = "policy.sluice.io/audit-results-omitted"
)

// Report returns the report of one namespace's findings (sorted, from
// Source.Namespace): a PolicyReport named ReportName, or for "" a
// ClusterPolicyReport. A passing object is counted in the summary; only
// the objects a rule denies (fail) or that could not be evaluated (error)
// are listed, each denial a result naming its rule.
func Report(namespace string, findings []Finding, now time.Time) client.Object {
	meta := metav1.ObjectMeta{Name: ReportName, Namespace: namespace, Labels: map[string]string{ManagedByLabel: ManagedBy}}
	var sum policyreportv1alpha2.Summary
	var results []policyreportv1alpha2.ReportResult
	omitted := 0
	ts := metav1.Timestamp{Seconds: now.Unix()}
	for _, f := range findings {
		switch f.Result {
		case policyreportv1alpha2.ResultPass:
			sum.Pass++
			continue
		case policyreportv1alpha2.ResultFail:
			sum.Fail++
		default:
			sum.Error++
		}
		if len(results) == MaxResults {
			omitted++
			continue
		}
		results = append(results, policyreportv1alpha2.ReportResult{
			Source: ReportSource, Policy: f.Policy, Rule: f.Rule, Result: f.Result, Scored: true,
			Message: f.Message, Timestamp: ts, Resources: []corev1.ObjectReference{f.Object},
		})
	}
	if omitted > 0 {
		meta.Annotations = map[string]string{OmittedAnnotation: strconv.Itoa(omitted)}
	}
	if namespace == "" {
		return &policyreportv1alpha2.ClusterPolicyReport{
			TypeMeta:   metav1.TypeMeta{APIVersion: policyreportv1alpha2.GroupVersion.String(), Kind: "ClusterPolicyReport"},
			ObjectMeta: meta, Summary: sum, Results: results,
		}
	}
	return &policyreportv1alpha2.PolicyReport{
		TypeMeta:   metav1.TypeMeta{APIVersion: policyreportv1alpha2.GroupVersion.String(), Kind: "PolicyReport"},
		ObjectMeta: meta, Summary: sum, Results: results,
	}
}

// Empty says whether a report counts no object at all: its namespace has
// nothing to audit, and the in-cluster audit removes its report.
func Empty(report client.Object) bool {
	s, _ := contentOf(report)
	return s == policyreportv1alpha2.Summary{}
}

// contentOf is a report's summary and results.
func contentOf(report client.Object) (policyreportv1alpha2.Summary, []policyreportv1alpha2.ReportResult) {
	switch r := report.(type) {
	case *policyreportv1alpha2.PolicyReport:
		return r.Summary, r.Results
	case *policyreportv1alpha2.ClusterPolicyReport:
		return r.Summary, r.Results
	}
	return policyreportv1alpha2.Summary{}, nil
}
