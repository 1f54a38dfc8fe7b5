package metrics

import (
	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/sluice-data/sluice/policies/enforcement"
)

// RuleDecisions counts what became of each rule that fired, by rule, mode
// (deny, warn, dryrun, apply) and outcome (denied, warned, dryrun,
// excepted, applied). Its cardinality is bounded by the bundle's rules.
var RuleDecisions = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "sluice_policy_rule_decisions_total",
	Help: "Policy rules that fired, by rule, mode (deny, warn, dryrun, apply) and outcome (denied, warned, dryrun, excepted, applied).",
}, []string{"rule", "mode", "outcome"})

func init() { ctrlmetrics.Registry.MustRegister(RuleDecisions) }

// Report counts each verdict and logs, one structured line each, every
// verdict but a mutation applied (which the Pod's annotation records):
// the rule, its mode and outcome, the exception that covered the object,
// its message, and keysAndValues naming the object.
func Report(log logr.Logger, webhook string, verdicts []enforcement.Verdict, keysAndValues ...any) {
	for _, v := range verdicts {
		RuleDecisions.WithLabelValues(v.Rule, string(v.Mode), string(v.Outcome)).Inc()
		if v.Outcome == enforcement.Applied {
			continue
		}
		kv := append([]any{"webhook", webhook, "rule", v.Rule, "mode", v.Mode, "outcome", v.Outcome}, keysAndValues...)
		if v.Exception != "" {
			kv = append(kv, "exception", v.Exception)
		}
		log.Info("policy rule "+string(v.Outcome), append(kv, "message", v.Message)...)
	}
}
