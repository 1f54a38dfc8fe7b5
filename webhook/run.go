package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/claim"
	"github.com/sluice-data/sluice/internal/buildinfo"
	"github.com/sluice-data/sluice/internal/lazy"
	"github.com/sluice-data/sluice/internal/metricsauth"
	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/webhook/certs"
	"github.com/sluice-data/sluice/webhook/mutating"
	"github.com/sluice-data/sluice/webhook/policy"
	"github.com/sluice-data/sluice/webhook/snapshot"
	"github.com/sluice-data/sluice/webhook/validating"
	"github.com/sluice-data/sluice/webhook/workloads"
)

// New builds the webhook's manager: caches, the policy reloader, the
// mutating handler, and health checks. Start it with mgr.Start, which
// returns o.ShutdownDelay after its context ends (and the requests in
// flight have been answered): the webhook drains meanwhile, unready.
func New(cfg *rest.Config, o *Options) (manager.Manager, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	native, err := nativeSidecars(o.NativeSidecars, cfg)
	if err != nil {
		return nil, err
	}
	serving, err := certs.New(o.certs())
	if err != nil {
		return nil, err
	}
	scheme := sluicescheme.New()
	if err := serving.AddToScheme(scheme); err != nil {
		return nil, err
	}
	tlsOpts := []func(*tls.Config){serving.TLSOption, metricsauth.HardenTLS}
	var auth *clientAuth
	if o.ClientCAFile != "" {
		if auth, err = newClientAuth(o.ClientCAFile, o.ClientNames); err != nil {
			return nil, err
		}
		tlsOpts = append(tlsOpts, auth.TLSOption)
	}
	cacheOpts := CacheOptions(o.PolicyNamespaces, o.FuseRecords)
	maps.Copy(cacheOpts.ByObject, serving.CacheByObject())
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsauth.ServerOptions(o.MetricsAddr, o.MetricsSecure),
		HealthProbeBindAddress: o.ProbeAddr,
		WebhookServer: ctrlwebhook.NewServer(ctrlwebhook.Options{
			Host: o.Host, Port: o.Port, CertDir: o.CertDir, TLSOpts: tlsOpts,
		}),
		Cache: cacheOpts,
	})
	if err != nil {
		return nil, fmt.Errorf("creating the manager: %w", err)
	}
	if err := buildinfo.Register(ctrlmetrics.Registry, "webhook"); err != nil {
		return nil, fmt.Errorf("registering the build-info metric: %w", err)
	}
	if err := serving.SetupWithManager(mgr); err != nil {
		return nil, err
	}
	base, err := policy.ProfileBundle(o.PolicyProfile)
	if err != nil {
		return nil, err
	}
	engine := newEngine(o)
	reloader := &Reloader{
		Client: mgr.GetClient(), Engine: engine, Base: base, Namespaces: o.PolicyNamespaces,
		Recorder: mgr.GetEventRecorder("sluice-webhook"),
	}
	changes := &snapshot.Changes{}
	wrapped, err := newWrappedClaims(mgr)
	if err != nil {
		return nil, err
	}
	if err := setupReloader(mgr, reloader, changes, wrapped); err != nil {
		return nil, err
	}
	if err := setupAudit(mgr, cfg, engine, o, native); err != nil {
		return nil, err
	}
	mh := NewMutatingHandler(engine, mgr.GetCache(), changes, native, o.DecisionCacheSize, o.DecisionCacheBytes)
	mh.Pipeline.Gatherer.Wrapped = wrapped
	mh.Pipeline.Gatherer.Live = mgr.GetAPIReader()
	mh.Pipeline.Gatherer.Records = o.FuseRecords
	mh.InjectionDisabled = o.InjectionDisabled
	wh := &admission.Webhook{Handler: mh, RecoverPanic: ptr.To(true)}
	drain := &drain{delay: o.ShutdownDelay}
	mgr.GetWebhookServer().Register(mutating.Path, drain.serving(limitBody(wh, o.MaxRequestBytes)))
	if o.WorkloadCheck != "off" {
		wl := &admission.Webhook{Handler: &workloads.Handler{Pipeline: mh.Pipeline, Mode: workloads.Mode(o.WorkloadCheck)}, RecoverPanic: ptr.To(true)}
		mgr.GetWebhookServer().Register(workloads.Path, drain.serving(limitBody(wl, o.MaxRequestBytes)))
	}
	live, err := client.New(cfg, client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()})
	if err != nil {
		return nil, err
	}
	vhandler := NewValidatingHandler(engine, mgr.GetCache(), live, o.ClaimGracePeriod)
	vhandler.Recorder = mgr.GetEventRecorder("sluice-webhook")
	vh := &admission.Webhook{Handler: vhandler, RecoverPanic: ptr.To(true)}
	mgr.GetWebhookServer().Register(validating.Path, drain.serving(limitBody(vh, o.MaxRequestBytes)))

	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, err
	}
	started := mgr.GetWebhookServer().StartedChecker()
	if auth != nil {
		started = listening(o.Host, o.Port)
	}
	if err := mgr.AddReadyzCheck("webhook-server", started); err != nil {
		return nil, err
	}
	if err := mgr.AddReadyzCheck("certificate", serving.Ready); err != nil {
		return nil, err
	}
	if err := mgr.AddReadyzCheck("policies", func(*http.Request) error {
		if !reloader.Loaded() || !engine.Ready() {
			return errors.New("policies are not compiled yet")
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := mgr.AddReadyzCheck("shutdown", drain.check); err != nil {
		return nil, err
	}
	return &drainingManager{Manager: mgr, drain: drain}, nil
}

// newEngine returns the policy engine of the webhook's queries, which
// specialises them by input class unless o.SpecialisePolicies is false. A
// class's first input starts the build of its query and is evaluated with
// the general query, as are the inputs of the class until it is built.
// The queries are evaluated compiled to closures unless o.QuickEval is
// false.
func newEngine(o *Options) *policy.Engine {
	engine := policy.NewEngine(policies.MutatingQuery, policies.ValidatingQuery)
	if o.SpecialisePolicies {
		engine.Specialising(false)
	}
	if !o.QuickEval {
		engine.Quick(policy.QuickOff)
	}
	return engine
}

// NewMutatingHandler returns the mutating admission handler, reading
// cluster objects from r (the manager's cache in the webhook), whose
// changes, once tracked, let unchanged dataset volumes be reused.
// decisionCacheSize decisions are remembered, of inputs adding up to about
// decisionCacheBytes (0 disables the cache).
func NewMutatingHandler(engine *policy.Engine, r client.Reader, changes *snapshot.Changes, nativeSidecars bool, decisionCacheSize int, decisionCacheBytes int64) *mutating.Handler {
	return &mutating.Handler{Pipeline: &mutating.Pipeline{
		Engine:         engine,
		Gatherer:       &snapshot.Gatherer{Reader: r, Changes: changes},
		Mutators:       mutating.DefaultMutators(),
		NativeSidecars: nativeSidecars,
		Memo:           mutating.NewMemo(decisionCacheSize, decisionCacheBytes),
	}}
}

// NewValidatingHandler returns the validating admission handler: facts are
// read from r (the cache), claims written through live, which must read from
// the API server.
func NewValidatingHandler(engine *policy.Engine, r client.Reader, live client.Client, grace time.Duration) *validating.Handler {
	return &validating.Handler{
		Pipeline: &validating.Pipeline{
			Engine:   engine,
			Gatherer: &validating.Gatherer{Reader: r},
			Claimer:  &claim.Claimer{Client: live, Grace: grace, Attempts: 8},
		},
		Scheme: live.Scheme(),
	}
}

// CacheOptions limits what the webhook caches: dataset PVCs and PVs only
// (those labelled fluid.io/dataset-id), engine DaemonSets only (labelled
// fluid.io/dataset), policy ConfigMaps only in the policy namespaces, FUSE
// records (PodTemplates labelled sluice.io/fuse-record) only in
// fuseRecords, and no deep copies on read (the webhook never mutates what
// it reads from the cache). No object keeps its managedFields, and a PVC
// or a DaemonSet only what the webhook reads of it (trimClaim,
// trimDaemonSet): any tenant may label them so (audit N9).
func CacheOptions(policyNamespaces []string, fuseRecords string) cache.Options {
	datasetSel, engineSel := labelled(datav1alpha1.LabelDatasetID), labelled(datav1alpha1.LabelDataset)
	nsConfig := map[string]cache.Config{}
	for _, ns := range policyNamespaces {
		nsConfig[ns] = cache.Config{}
	}
	return cache.Options{
		DefaultUnsafeDisableDeepCopy: ptr.To(true),
		DefaultTransform:             stripManagedFields,
		ByObject: map[client.Object]cache.ByObject{
			&corev1.PersistentVolumeClaim{}: {Label: datasetSel, Transform: trimClaim},
			&corev1.PersistentVolume{}:      {Label: datasetSel},
			&appsv1.DaemonSet{}:             {Label: engineSel, Transform: trimDaemonSet},
			&corev1.PodTemplate{}: {
				Namespaces: map[string]cache.Config{fuseRecords: {}},
				Label:      labels.SelectorFromSet(labels.Set{datav1alpha1.LabelFuseRecord: "true"}),
			},
			&corev1.ConfigMap{}: {
				Namespaces:            nsConfig,
				Label:                 labels.SelectorFromSet(labels.Set{policy.BundleLabel: "true"}),
				UnsafeDisableDeepCopy: ptr.To(false), // the reloader patches them
			},
		},
	}
}

// labelled selects the objects that carry label key, whatever its value.
func labelled(key string) labels.Selector {
	r, _ := labels.NewRequirement(key, selection.Exists, nil) // a constant, valid key
	return labels.NewSelector().Add(*r)
}

// Informed returns the kinds the webhook pipelines read; their informers
// are started before the webhook reports ready.
func Informed() []client.Object { return informed() }

func informed() []client.Object {
	out := []client.Object{
		&corev1.PersistentVolumeClaim{}, &corev1.PersistentVolume{}, &corev1.Namespace{}, &appsv1.DaemonSet{}, &corev1.PodTemplate{},
		&datav1alpha1.Dataset{}, &datav1alpha1.ThinRuntimeProfile{},
	}
	for _, k := range datav1alpha1.RuntimeKinds() {
		rt, _ := datav1alpha1.NewRuntime(k.Kind)
		out = append(out, rt)
	}
	for _, k := range datav1alpha1.OperationKinds() {
		op, _ := datav1alpha1.NewOperation(string(k))
		out = append(out, op)
	}
	return out
}

func setupReloader(mgr manager.Manager, r *Reloader, changes *snapshot.Changes, wrapped *wrappedClaims) error {
	toBundle := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: bundleKey}}
	})
	err := builder.ControllerManagedBy(mgr).
		Named("policy-bundle").
		Watches(&corev1.ConfigMap{}, toBundle, builder.WithPredicates(bundleInputChanged)).
		Complete(r)
	if err != nil {
		return fmt.Errorf("setting up the policy reloader: %w", err)
	}
	// Start the informers the pipeline reads, stamp the objects dataset
	// volumes come from (Changes), and load the first bundle once
	// the caches have synced, even if no policy ConfigMap exists.
	return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		start := time.Now()
		// Started without waiting for each to sync, the informers list
		// in parallel (a race build on two cores: 1.7 s for all, against
		// 11.7 s one after another).
		for _, obj := range informed() {
			if _, err := mgr.GetCache().GetInformer(ctx, obj, cache.BlockUntilSynced(false)); err != nil {
				return fmt.Errorf("starting the informer for %T: %w", obj, err)
			}
		}
		// Meanwhile the tables computed once (lazy) are computed, so
		// that the first admission of a kind does not pay for them.
		built := make(chan struct{})
		go func() {
			defer close(built)
			lazy.Build()
		}()
		if err := changes.Track(ctx, mgr.GetCache(), snapshot.SourceKinds()...); err != nil {
			return err
		}
		if !mgr.GetCache().WaitForCacheSync(ctx) {
			return errors.New("caches did not sync")
		}
		if err := wrapped.sync(ctx); err != nil {
			return err
		}
		<-built
		// A replica is unready until here and until its bundle loads:
		// the two durations tell a slow start's cause apart.
		ctrl.Log.WithName("webhook").Info("caches synced; loading the policy bundle", "took", time.Since(start).Round(time.Millisecond))
		// Until a bundle loads the webhook stays unready. The first load
		// leaves out ConfigMaps that do not compile (Reload), so only
		// defaults that do not compile, or a ConfigMap list that fails,
		// keep it waiting. A ConfigMap change also triggers a reload
		// through the controller.
		backoff := time.Second
		for !r.Loaded() {
			if err := r.Reload(ctx); err == nil {
				break
			}
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 30*time.Second)
		}
		<-ctx.Done()
		return nil
	}))
}
