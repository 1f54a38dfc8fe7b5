package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

var (
	// AdmissionDuration is the time to answer one admission review.
	AdmissionDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "sluice_webhook_admission_duration_seconds",
		Help:    "Time to answer an admission review, by webhook and outcome.",
		Buckets: []float64{0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1},
	}, []string{"webhook", "outcome"})

	// PolicyEvalDuration is the time to evaluate one policy query.
	PolicyEvalDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "sluice_policy_eval_duration_seconds",
		Help:    "Time to evaluate a policy query.",
		Buckets: []float64{0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.01, 0.1},
	}, []string{"query"})

	// Decisions counts admission outcomes: allowed, mutated, denied,
	// errored, errored-open (a Pod admitted unmutated after an error).
	Decisions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sluice_webhook_decisions_total",
		Help: "Admission decisions, by webhook and outcome (allowed, mutated, denied, errored, errored-open).",
	}, []string{"webhook", "outcome"})

	// PolicyReloads counts policy bundle reloads by result (ok, error).
	PolicyReloads = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sluice_policy_reloads_total",
		Help: "Policy bundle reloads, by result (ok, error).",
	}, []string{"result"})

	// PolicyBundleOK is 1 while the last reload compiled, 0 after a failed one.
	PolicyBundleOK = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "sluice_policy_bundle_ok",
		Help: "1 if the last policy reload compiled, 0 if it failed and an older bundle is active.",
	})

	// SpecialisedQueries counts the queries built for input classes, by
	// query and result (ok; error: the class uses the general query).
	SpecialisedQueries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sluice_policy_specialised_queries_total",
		Help: "Policy queries specialised for an input class, by query and result (ok, error: the class keeps the general query).",
	}, []string{"query", "result"})

	// QuickPrograms counts the policy queries compiled to closures
	// (webhook/internal/quickeval), by query and result (ok; not
	// compiled: OPA evaluates every input of the query).
	QuickPrograms = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sluice_policy_quick_programs_total",
		Help: "Policy queries compiled to closures, by query and result (ok, not compiled: OPA evaluates every input of the query).",
	}, []string{"query", "result"})

	// QuickEvaluations counts the evaluations of queries compiled to
	// closures, by query and by who answered (answered: the closures;
	// opa: an input they could not answer as OPA would, evaluated by OPA).
	QuickEvaluations = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sluice_policy_quick_evaluations_total",
		Help: "Evaluations of policy queries compiled to closures, by query and by who answered (answered: the closures; opa: OPA's evaluator, for an input the closures could not answer as OPA would).",
	}, []string{"query", "by"})

	// ServingCertificateExpiry is when the certificate the server presents
	// expires, in seconds since the epoch (0 before one is loaded).
	ServingCertificateExpiry = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "sluice_webhook_serving_certificate_expiry_timestamp_seconds",
		Help: "When the serving certificate the webhook presents expires (Unix time); 0 before one is loaded.",
	})

	// CertificateReady is 1 while cert-manager's Certificate for the
	// webhook (label certificate: namespace/name) is Ready, 0 while it is
	// not or does not exist. Only cert-manager mode has the series.
	CertificateReady = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "sluice_webhook_certificate_ready",
		Help: "1 while the webhook's cert-manager Certificate is Ready, 0 while it is not or is missing (cert-manager mode only).",
	}, []string{"certificate"})
)

func init() {
	ctrlmetrics.Registry.MustRegister(AdmissionDuration, PolicyEvalDuration, Decisions, PolicyReloads, PolicyBundleOK, SpecialisedQueries, QuickPrograms, QuickEvaluations,
		ServingCertificateExpiry, CertificateReady)
}
