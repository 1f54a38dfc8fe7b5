package chart_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/promql/promqltest"
	"github.com/prometheus/prometheus/storage"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/sluice-data/sluice/controller/metrics"
	"github.com/sluice-data/sluice/internal/buildinfo"
	"github.com/sluice-data/sluice/tests/support/monitoring"
	webhookmetrics "github.com/sluice-data/sluice/webhook/metrics"
)

// alertCase is synthetic series, shaped as Sluice's components export them
// and the monitors label them (job = sluice-<component>; the controller's
// namespace label is the object's: honorLabels), loaded at one sample a
// minute from time 0, and whether the alert fires when evaluated at at.
type alertCase struct {
	name   string
	series string        // promqltest's load syntax, one series a line
	at     time.Duration // when the alert is evaluated
	fires  bool
	// labels, when it fires, are label values every firing alert has.
	labels map[string]string
}

// Series of two webhook replicas and of the controller.
const (
	webhookUp    = `up{job="sluice-webhook", pod="sluice-webhook-a"} 1x120`
	controllerUp = `up{job="sluice-controller", pod="sluice-controller-a"} 1x120`
)

// histogram writes the admission-latency buckets of one webhook, growing
// by perMinute observations a minute, all of them in the first bucket of
// bounds at or above latency.
func histogram(webhook string, latency float64, perMinute int) string {
	var b strings.Builder
	for _, le := range []string{"0.00005", "0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.5", "1", "+Inf"} {
		grows := le == "+Inf"
		if v, err := parseFloat(le); err == nil && v >= latency {
			grows = true
		}
		step := 0
		if grows {
			step = perMinute
		}
		fmt.Fprintf(&b, "sluice_webhook_admission_duration_seconds_bucket{job=\"sluice-webhook\", pod=\"sluice-webhook-a\", webhook=%q, outcome=\"mutated\", le=%q} 0+%dx120\n", webhook, le, step)
	}
	return b.String()
}

func parseFloat(s string) (float64, error) {
	var v float64
	_, err := fmt.Sscan(s, &v)
	return v, err
}

// phases writes a Dataset's sluice_dataset_phase series: 1 for the phase
// it is in, minute by minute (phase per minute as "Phase:minutes,...").
func phases(ns, dataset, timeline string) string {
	var b strings.Builder
	for _, p := range []string{"Pending", "NotBound", "Bound", "Failed", "Updating", "DataMigrating"} {
		var vals []string
		for _, part := range strings.Split(timeline, ",") {
			name, minutes, _ := strings.Cut(part, ":")
			v := 0
			if name == p {
				v = 1
			}
			vals = append(vals, fmt.Sprintf("%dx%s", v, minutes))
		}
		fmt.Fprintf(&b, "sluice_dataset_phase{job=\"sluice-controller\", pod=\"sluice-controller-a\", namespace=%q, dataset=%q, phase=%q} %s\n", ns, dataset, p, strings.Join(vals, " "))
	}
	return b.String()
}

var alertCases = map[string][]alertCase{
	"SluiceWebhookDown": {
		{name: "every replica down", series: `up{job="sluice-webhook", pod="a"} 0x120` + "\n" + `up{job="sluice-webhook", pod="b"} 0x120`, at: time.Hour, fires: true},
		{name: "no replica scraped", series: controllerUp, at: time.Hour, fires: true},
		{name: "one replica of two up", series: `up{job="sluice-webhook", pod="a"} 0x120` + "\n" + webhookUp, at: time.Hour},
		{name: "down for less than 5m", series: `up{job="sluice-webhook", pod="a"} 1x57 0x3`, at: time.Hour},
		{name: "another release's webhook is down", series: webhookUp + "\n" + `up{job="other-webhook", pod="x"} 0x120`, at: time.Hour},
	},
	"SluiceControllerDown": {
		{name: "every replica down", series: `up{job="sluice-controller", pod="a"} 0x120`, at: time.Hour, fires: true},
		{name: "no replica scraped", series: webhookUp, at: time.Hour, fires: true},
		{name: "the leader up", series: controllerUp, at: time.Hour},
	},
	"SluiceWebhookSlow": {
		{name: "mutating p99 near a second", series: histogram("mutating", 0.7, 100) + histogram("validating", 0.001, 100), at: time.Hour, fires: true, labels: map[string]string{"webhook": "mutating"}},
		{name: "over the highest bucket", series: histogram("mutating", 5, 100), at: time.Hour, fires: true},
		{name: "fast", series: histogram("mutating", 0.002, 100), at: time.Hour},
		{name: "no admissions", series: histogram("mutating", 0.7, 0), at: time.Hour},
	},
	"SluicePolicyBundleNotOK": {
		{name: "a failed reload", series: `sluice_policy_bundle_ok{job="sluice-webhook", pod="sluice-webhook-a"} 1x10 0x110`, at: time.Hour, fires: true, labels: map[string]string{"pod": "sluice-webhook-a"}},
		{name: "a failure fixed within minutes", series: `sluice_policy_bundle_ok{job="sluice-webhook", pod="sluice-webhook-a"} 1x55 0x2 1x60`, at: time.Hour},
		{name: "ok", series: `sluice_policy_bundle_ok{job="sluice-webhook", pod="sluice-webhook-a"} 1x120`, at: time.Hour},
	},
	"SluiceWebhookCertificateExpiresSoon": {
		// time() is seconds since 0, the first sample.
		{name: "three days left", series: `sluice_webhook_serving_certificate_expiry_timestamp_seconds{job="sluice-webhook", pod="sluice-webhook-a"} 259200x120`, at: time.Hour, fires: true},
		{name: "thirty days left", series: `sluice_webhook_serving_certificate_expiry_timestamp_seconds{job="sluice-webhook", pod="sluice-webhook-a"} 2592000x120`, at: time.Hour},
		{name: "renewed", series: `sluice_webhook_serving_certificate_expiry_timestamp_seconds{job="sluice-webhook", pod="sluice-webhook-a"} 259200x40 2592000x80`, at: time.Hour},
		{name: "none loaded yet", series: `sluice_webhook_serving_certificate_expiry_timestamp_seconds{job="sluice-webhook", pod="sluice-webhook-a"} 0x120`, at: time.Hour},
	},
	"SluiceWebhookCertificateNotReady": {
		{name: "not ready", series: `sluice_webhook_certificate_ready{job="sluice-webhook", pod="sluice-webhook-a", certificate="sluice-system/sluice-webhook"} 0x120`, at: time.Hour, fires: true, labels: map[string]string{"certificate": "sluice-system/sluice-webhook"}},
		{name: "ready", series: `sluice_webhook_certificate_ready{job="sluice-webhook", pod="sluice-webhook-a", certificate="sluice-system/sluice-webhook"} 1x120`, at: time.Hour},
	},
	"SluiceControllerWorkQueueBackingUp": {
		{name: "deep for long", series: `workqueue_depth{job="sluice-controller", pod="sluice-controller-a", name="dataset"} 500x120`, at: time.Hour, fires: true, labels: map[string]string{"name": "dataset"}},
		{name: "drained", series: `workqueue_depth{job="sluice-controller", pod="sluice-controller-a", name="dataset"} 500x50 0x70`, at: time.Hour},
		{name: "shallow", series: `workqueue_depth{job="sluice-controller", pod="sluice-controller-a", name="dataset"} 50x120`, at: time.Hour},
	},
	"SluiceDatasetNotBound": {
		{name: "not bound for an hour", series: phases("team-a", "mnist", "NotBound:120") + phases("team-a", "imagenet", "Bound:120"), at: time.Hour, fires: true, labels: map[string]string{"namespace": "team-a", "dataset": "mnist"}},
		{name: "new, phase not set", series: phases("team-a", "mnist", "None:120"), at: time.Hour, fires: true},
		{name: "failed", series: phases("team-a", "mnist", "Failed:120"), at: time.Hour, fires: true},
		{name: "bound after twenty minutes", series: phases("team-a", "mnist", "Pending:20,Bound:100"), at: time.Hour},
		{name: "migrating its data", series: phases("team-a", "mnist", "Bound:10,DataMigrating:110"), at: time.Hour},
		{name: "updating", series: phases("team-a", "mnist", "Updating:120"), at: time.Hour},
		{name: "not bound for ten minutes", series: phases("team-a", "mnist", "Bound:50,NotBound:70"), at: time.Hour},
	},
	"SluiceRuntimeNotReady": {
		{name: "not ready", series: `sluice_runtime_ready{job="sluice-controller", pod="sluice-controller-a", namespace="team-a", runtime="mnist", runtime_type="juicefsruntime"} 0x120`, at: time.Hour, fires: true, labels: map[string]string{"namespace": "team-a", "runtime": "mnist", "runtime_type": "juicefsruntime"}},
		{name: "ready again", series: `sluice_runtime_ready{job="sluice-controller", pod="sluice-controller-a", namespace="team-a", runtime="mnist", runtime_type="juicefsruntime"} 0x50 1x70`, at: time.Hour},
		{name: "ready", series: `sluice_runtime_ready{job="sluice-controller", pod="sluice-controller-a", namespace="team-a", runtime="mnist", runtime_type="juicefsruntime"} 1x120`, at: time.Hour},
	},
	"SluiceDataOperationFailed": {
		{name: "a DataLoad failed ten minutes ago", series: `sluice_data_operations_failed_total{job="sluice-controller", pod="sluice-controller-a", kind="DataLoad"} 0x50 1x70` + "\n" + `sluice_data_operations_failed_total{job="sluice-controller", pod="sluice-controller-a", kind="DataBackup"} 0x120`, at: time.Hour, fires: true, labels: map[string]string{"kind": "DataLoad"}},
		{name: "it failed an hour ago", series: `sluice_data_operations_failed_total{job="sluice-controller", pod="sluice-controller-a", kind="DataLoad"} 0x50 1x70`, at: 2 * time.Hour},
		{name: "none failed", series: `sluice_data_operations_failed_total{job="sluice-controller", pod="sluice-controller-a", kind="DataLoad"} 0x120`, at: time.Hour},
		{name: "a new leader starts from zero", series: `sluice_data_operations_failed_total{job="sluice-controller", pod="sluice-controller-a", kind="DataLoad"} 3x40` + "\n" + `sluice_data_operations_failed_total{job="sluice-controller", pod="sluice-controller-b", kind="DataLoad"} _x40 0x80`, at: time.Hour},
	},
}

// renderedAlerts are the alerting rules of the chart's PrometheusRule, with
// default thresholds, decoded with prometheus-operator's types.
func renderedAlerts(t *testing.T) map[string]monitoringv1.Rule {
	t.Helper()
	pr := &monitoringv1.PrometheusRule{}
	decodeStrict(t, find(t, render(t, parseValues(t, `monitoring: {prometheusRule: {enabled: true}}`)), "PrometheusRule", "sluice-alerts"), pr)
	out := map[string]monitoringv1.Rule{}
	for _, g := range pr.Spec.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				t.Errorf("group %s: a rule that is not an alert (%s)", g.Name, r.Expr.String())
				continue
			}
			if _, dup := out[r.Alert]; dup {
				t.Errorf("alert %s defined twice", r.Alert)
			}
			if r.Labels["severity"] == "" || r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
				t.Errorf("alert %s: no severity, summary or description", r.Alert)
			}
			out[r.Alert] = r
		}
	}
	return out
}

// TestAlertsFireOnTheirMetrics evaluates every alert of the chart's
// PrometheusRule with Prometheus's own PromQL engine over synthetic series
// shaped like Sluice's: it fires where an operator must act (after its
// `for`, with the labels naming what to look at) and not where nothing is
// wrong, and it reads only metrics Sluice's components export (or
// Prometheus's up). An alert with no firing and no quiet case fails.
func TestAlertsFireOnTheirMetrics(t *testing.T) {
	alerts := renderedAlerts(t)
	for name := range alertCases {
		if _, ok := alerts[name]; !ok {
			t.Errorf("cases for %s, which the chart does not define", name)
		}
	}
	exported := exportedMetricNames(t)
	engine := promqltest.NewTestEngine(t, false, 5*time.Minute, promqltest.DefaultMaxSamplesPerQuery)
	for name, rule := range alerts {
		t.Run(name, func(t *testing.T) {
			expr := rule.Expr.String()
			names, err := monitoring.MetricNames(expr)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range names {
				if !exported[n] && n != "up" {
					t.Errorf("reads %s, which no Sluice component exports", n)
				}
			}
			hold := time.Duration(0)
			if rule.For != nil {
				d, err := model.ParseDuration(string(*rule.For))
				if err != nil {
					t.Fatalf("for: %v", err)
				}
				hold = time.Duration(d)
			}
			cases := alertCases[name]
			fires := slices.ContainsFunc(cases, func(c alertCase) bool { return c.fires })
			quiet := slices.ContainsFunc(cases, func(c alertCase) bool { return !c.fires })
			if !fires || !quiet {
				t.Fatalf("%s needs a case where it fires and one where it does not", name)
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					st := promqltest.LoadedStorage(t, "load 1m\n"+indent(c.series))
					firing := firingAt(t, engine, st, expr, hold, c.at)
					if c.fires != (len(firing) > 0) {
						t.Fatalf("%s at %s: firing %v, want firing %t", expr, c.at, firing, c.fires)
					}
					for _, m := range firing {
						for k, v := range c.labels {
							if got := m.Get(k); got != v {
								t.Errorf("firing with %s=%q, want %q (%v)", k, got, v, m)
							}
						}
					}
				})
			}
		})
	}
}

func indent(series string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(series), "\n") {
		b.WriteString("  " + strings.TrimSpace(l) + "\n")
	}
	return b.String()
}

// firingAt evaluates expr once a minute, as a rule group would, and returns
// the label sets it has returned at every evaluation from at-hold to at: the
// alerts firing at at (pending for hold, then firing).
func firingAt(t *testing.T, engine promql.QueryEngine, storage storage.Queryable, expr string, hold, at time.Duration) []labelSet {
	t.Helper()
	var active map[string]labelSet
	for ts := at - hold; ts <= at; ts += time.Minute {
		q, err := engine.NewInstantQuery(context.Background(), storage, nil, expr, time.Unix(0, 0).Add(ts))
		if err != nil {
			t.Fatal(err)
		}
		res := q.Exec(context.Background())
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		vec, err := res.Vector()
		if err != nil {
			t.Fatal(err)
		}
		now := map[string]labelSet{}
		for _, s := range vec {
			now[s.Metric.String()] = labelSet{s.Metric.Map()}
		}
		if active == nil {
			active = now
			continue
		}
		for k := range active {
			if _, ok := now[k]; !ok {
				delete(active, k)
			}
		}
	}
	out := make([]labelSet, 0, len(active))
	for _, l := range active {
		out = append(out, l)
	}
	return out
}

type labelSet struct{ m map[string]string }

func (l labelSet) Get(k string) string { return l.m[k] }
func (l labelSet) String() string      { return fmt.Sprint(l.m) }

// exportedMetricNames are the names of the metrics Sluice's components
// describe (a histogram's _bucket, _sum and _count included): the
// webhook's, the controller's Dataset, runtime and data-operation metrics,
// the build info, and controller-runtime's work-queue depth.
func exportedMetricNames(t *testing.T) map[string]bool {
	t.Helper()
	cs := []prometheus.Collector{&metrics.Collector{}, buildinfo.Collector("test"),
		webhookmetrics.AdmissionDuration, webhookmetrics.PolicyEvalDuration, webhookmetrics.Decisions, webhookmetrics.PolicyReloads,
		webhookmetrics.PolicyBundleOK, webhookmetrics.SpecialisedQueries, webhookmetrics.ServingCertificateExpiry, webhookmetrics.CertificateReady}
	cs = append(cs, metrics.NewOperations().Collectors()...)
	fqName := regexp.MustCompile(`fqName: "([^"]+)"`)
	out := map[string]bool{ctrlmetrics.WorkQueueSubsystem + "_" + ctrlmetrics.DepthKey: true}
	for _, c := range cs {
		ch := make(chan *prometheus.Desc, 64)
		go func() { c.Describe(ch); close(ch) }()
		for d := range ch {
			m := fqName.FindStringSubmatch(d.String())
			if m == nil {
				t.Fatalf("no name in %s", d)
			}
			for _, suffix := range []string{"", "_bucket", "_sum", "_count"} {
				out[m[1]+suffix] = true
			}
		}
	}
	return out
}
