package webhook

import (
	"fmt"
	"os"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	policyreportv1alpha2 "github.com/sluice-data/sluice/api/policyreport/v1alpha2"
	"github.com/sluice-data/sluice/webhook/audit"
	"github.com/sluice-data/sluice/webhook/policy"
)

// auditBundlePoll is how often the in-cluster audit checks whether the
// policy bundle changed.
const auditBundlePoll = 5 * time.Second

// setupAudit adds the in-cluster audit when o.AuditInterval is set: in
// the replica holding the audit Lease, every interval and on every bundle
// change, each namespace's objects are evaluated (from the caches; Pods
// listed a page at a time from the API server) and its PolicyReport
// replaced, the API requests spaced by o.AuditQPS.
func setupAudit(mgr manager.Manager, cfg *rest.Config, engine *policy.Engine, o *Options, nativeSidecars bool) error {
	if o.AuditInterval == 0 {
		return nil
	}
	if err := policyreportv1alpha2.AddToScheme(mgr.GetScheme()); err != nil {
		return err
	}
	// Reports are read and written live: caching them would watch every
	// namespace's reports, other tools' too.
	live, err := client.New(cfg, client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()})
	if err != nil {
		return fmt.Errorf("the audit's client: %w", err)
	}
	limiter := rate.NewLimiter(rate.Limit(o.AuditQPS), 1)
	identity, err := os.Hostname()
	if err != nil {
		return err
	}
	return mgr.Add(&audit.Elected{
		Runner: &audit.Runner{
			Auditor:  audit.New(engine, mgr.GetCache(), o.FuseRecords, nativeSidecars),
			Source:   &audit.Source{Objects: mgr.GetCache(), Pods: mgr.GetAPIReader(), PageSize: o.AuditPageSize, Limiter: limiter, Skip: o.AuditSkipNamespaces},
			Writer:   &audit.Writer{Client: live, Limiter: limiter},
			Engine:   engine,
			Interval: o.AuditInterval, BundlePoll: auditBundlePoll,
			Log: ctrl.Log.WithName("audit"),
		},
		Config: cfg, Namespace: o.AuditLeaseNamespace, Identity: identity,
	})
}
