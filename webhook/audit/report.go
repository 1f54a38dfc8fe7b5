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
	// PropertyOutcome is the property of a result that says what the
	// rule's enforcement made of its finding: denied (fail), warned or
	// dryrun (warn), excepted (skip).
	PropertyOutcome = "outcome"
	// PropertyException names the exception that covers the object.
	PropertyException = "exception"
)

// Report returns the report of one namespace's findings (sorted, from
// Source.Namespace): a PolicyReport named ReportName, or for "" a
// ClusterPolicyReport. A passing object is counted in the summary; each
// finding of a rule is a result naming it, fail when the rule denies the
// object, warn when its mode (warn or dryrun) admits it, skip when an
// exception covers it (property outcome says which, property exception
// names the exception), and the objects that could not be evaluated are
// errors.
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
		case policyreportv1alpha2.ResultWarn:
			sum.Warn++
		case policyreportv1alpha2.ResultSkip:
			sum.Skip++
		default:
			sum.Error++
		}
		if len(results) == MaxResults {
			omitted++
			continue
		}
		results = append(results, policyreportv1alpha2.ReportResult{
			Source: ReportSource, Policy: f.Policy, Rule: f.Rule, Result: f.Result,
			Scored:  f.Result == policyreportv1alpha2.ResultFail || f.Result == policyreportv1alpha2.ResultError,
			Message: f.Message, Timestamp: ts, Resources: []corev1.ObjectReference{f.Object}, Properties: properties(f),
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

// properties are a result's details: the rule's outcome (a warn result is
// of a rule in warn or dryrun mode) and the exception that covers the
// object.
func properties(f Finding) map[string]string {
	if f.Outcome == "" {
		return nil
	}
	p := map[string]string{PropertyOutcome: string(f.Outcome)}
	if f.Exception != "" {
		p[PropertyException] = f.Exception
	}
	return p
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
