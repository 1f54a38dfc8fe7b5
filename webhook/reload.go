package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/webhook/metrics"
	"github.com/sluice-data/sluice/webhook/policy"
)

// bundleKey is the one work item of the reloader: every ConfigMap event
// maps to it, so that bursts of changes coalesce into one recompilation.
var bundleKey = types.NamespacedName{Name: "policy-bundle"}

// Reloader recompiles the policy bundle from the default policies and the
// policy ConfigMaps in its namespaces. A bundle that does not compile is
// rejected: the last good one stays active (at start, the defaults, the
// ConfigMaps that compile and the last good version of those that do
// not), and the failure is logged, counted, recorded as an Event and
// written to the culprit ConfigMaps' status annotation.
type Reloader struct {
	// Client reads ConfigMaps from the cache and writes status annotations.
	Client client.Client
	// Engine receives each bundle that compiles.
	Engine *policy.Engine
	// Base is the bundle the ConfigMaps overlay (the embedded policies).
	Base *policy.Bundle
	// Namespaces are searched for ConfigMaps labelled policy.sluice.io/bundle=true.
	Namespaces []string
	// Recorder emits Events on the ConfigMaps.
	Recorder recorder.EventRecorder

	mu     sync.Mutex // serialises reloads, so an older bundle never wins
	loaded atomic.Bool
}

// Loaded reports whether a bundle has compiled since start.
func (r *Reloader) Loaded() bool { return r.loaded.Load() }

// Reconcile implements reconcile.Reconciler; every request means "rebuild".
// A bundle that does not compile is not retried: it was reported on its
// ConfigMaps, the same ConfigMaps would fail alike, and their next change
// triggers the next reload. Retrying it with back-off compiled the whole
// bundle again about a dozen times in the first ten seconds, which the
// next policy change then waited behind.
func (r *Reloader) Reconcile(ctx context.Context, _ ctrl.Request) (ctrl.Result, error) {
	_, err := r.reload(ctx)
	return ctrl.Result{}, err
}

// Reload rebuilds and loads the bundle once. A bundle that does not
// compile leaves the last good one active; at start, when there is none,
// the ConfigMaps the error names are loaded in their last good version
// (policies.LastGoodAnnotation), or left out when they have none, and the rest is
// loaded (the defaults at least), so that one broken ConfigMap never keeps
// a starting replica unready, nor drops a rule the running replicas still
// enforce: the culprits are reported as for any rejected bundle.
// The error is the compile error, if any, joined with what failed besides.
func (r *Reloader) Reload(ctx context.Context) error {
	rejected, err := r.reload(ctx)
	return errors.Join(rejected, err)
}

// reload is Reload, with the compile error of a rejected bundle (reported,
// not worth retrying) apart from the errors a retry may get past (listing,
// annotating, not even the defaults compiling).
func (r *Reloader) reload(ctx context.Context) (rejected, _ error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	log := ctrl.LoggerFrom(ctx)
	cms, err := r.list(ctx)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	modules, err := r.load(ctx, cms)
	if err == nil {
		metrics.PolicyReloads.WithLabelValues(policies.StatusOK).Inc()
		metrics.PolicyBundleOK.Set(1)
		r.loaded.Store(true)
		log.Info("policy bundle loaded", "modules", modules, "configMaps", names(cms), "took", time.Since(start).Round(time.Millisecond))
		return nil, r.annotate(ctx, cms, policies.StatusOK, true)
	}
	metrics.PolicyReloads.WithLabelValues("error").Inc()
	metrics.PolicyBundleOK.Set(0)
	culprits := culpritsOf(err, cms)
	note := "policy bundle rejected, last good bundle stays active: %v"
	var failed error
	if !r.loaded.Load() {
		kept, restored, left, startErr := r.loadWithout(ctx, cms, culprits)
		if startErr != nil {
			log.Error(errors.Join(err, startErr), "no policy bundle compiles, not even the defaults")
			return err, startErr
		}
		r.loaded.Store(true)
		log.Error(err, "policy bundle rejected at start; serving the defaults, the ConfigMaps that compile and the last good version of those that do not",
			"configMaps", names(kept), "lastGoodVersion", names(restored), "leftOut", names(left))
		for i := range restored {
			r.Recorder.Eventf(&restored[i], nil, corev1.EventTypeWarning, "PolicyRejected", "LoadPolicy",
				"policy bundle rejected; started with the last good version of this ConfigMap: %v", err)
		}
		culprits, note = left, "policy bundle rejected; started without this ConfigMap (no last good version of it loads): %v"
		failed = errors.Join(r.annotate(ctx, kept, policies.StatusOK, false),
			r.annotate(ctx, restored, policies.StatusRejected(truncate("serving its last good version; "+err.Error(), 1000)), false))
	} else {
		log.Error(err, "policy bundle rejected; the last good bundle stays active", "configMaps", names(cms))
	}
	for i := range culprits {
		r.Recorder.Eventf(&culprits[i], nil, corev1.EventTypeWarning, "PolicyRejected", "LoadPolicy", note, err)
	}
	return err, errors.Join(failed, r.annotate(ctx, culprits, policies.StatusRejected(truncate(err.Error(), 1000)), false))
}

// load compiles the defaults overlaid with cms and loads the bundle,
// returning its number of modules.
func (r *Reloader) load(ctx context.Context, cms []corev1.ConfigMap) (int, error) {
	bundle, err := policy.FromConfigMaps(r.Base, cms)
	if err != nil {
		return 0, err
	}
	return len(bundle.Modules), r.Engine.Load(ctx, bundle)
}

// loadWithout loads the defaults overlaid with cms, each culprit in its
// last good version or, without one (or when that fails too), left out;
// and so on for whatever further ConfigMaps the errors name, until a
// bundle compiles (at worst the defaults alone). It returns the ConfigMaps
// loaded as they are, those loaded in their last good version (as they
// are stored, for reporting) and those left out.
func (r *Reloader) loadWithout(ctx context.Context, cms, culprits []corev1.ConfigMap) (kept, restored, left []corev1.ConfigMap, _ error) {
	kept = cms
	var versions []corev1.ConfigMap // the last good versions of restored
	for {
		for _, c := range culprits {
			switch v, ok := policies.LastGood(c); {
			case slices.ContainsFunc(versions, sameConfigMap(c)): // its last good version fails too
				left = append(left, restored[slices.IndexFunc(restored, sameConfigMap(c))])
				versions, restored = without(versions, []corev1.ConfigMap{c}), without(restored, []corev1.ConfigMap{c})
			case ok:
				versions, restored = append(versions, v), append(restored, c)
			default:
				left = append(left, c)
			}
		}
		kept = without(kept, culprits)
		loaded := append(slices.Clone(kept), versions...)
		_, err := r.load(ctx, loaded)
		if err == nil {
			return kept, restored, left, nil
		}
		if len(loaded) == 0 {
			return nil, nil, left, err
		}
		culprits = culpritsOf(err, loaded)
	}
}

// sameConfigMap matches the ConfigMap of cm's namespace and name.
func sameConfigMap(cm corev1.ConfigMap) func(corev1.ConfigMap) bool {
	return func(d corev1.ConfigMap) bool { return d.Namespace == cm.Namespace && d.Name == cm.Name }
}

// without is cms but those in drop (by namespace and name).
func without(cms, drop []corev1.ConfigMap) []corev1.ConfigMap {
	var out []corev1.ConfigMap
	for _, cm := range cms {
		if !slices.ContainsFunc(drop, sameConfigMap(cm)) {
			out = append(out, cm)
		}
	}
	return out
}

func (r *Reloader) list(ctx context.Context) ([]corev1.ConfigMap, error) {
	var out []corev1.ConfigMap
	for _, ns := range r.Namespaces {
		list := &corev1.ConfigMapList{}
		if err := r.Client.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{policy.BundleLabel: "true"}); err != nil {
			return nil, fmt.Errorf("listing policy ConfigMaps in %s: %w", ns, err)
		}
		out = append(out, list.Items...)
	}
	return out, nil
}

// annotate writes status on the given ConfigMaps and, with keep (a bundle
// that loaded whole), their data as their last good version.
func (r *Reloader) annotate(ctx context.Context, targets []corev1.ConfigMap, status string, keep bool) error {
	var errs []error
	for i := range targets {
		cm := &targets[i]
		lastGood, hasLastGood := cm.Annotations[policies.LastGoodAnnotation]
		wantLastGood := lastGood
		if keep {
			wantLastGood = policies.LastGoodValue(cm)
		}
		if cm.Annotations[policy.StatusAnnotation] == status && lastGood == wantLastGood {
			continue
		}
		patch := client.MergeFrom(cm.DeepCopy())
		if cm.Annotations == nil {
			cm.Annotations = map[string]string{}
		}
		cm.Annotations[policy.StatusAnnotation] = status
		switch {
		case wantLastGood != "":
			cm.Annotations[policies.LastGoodAnnotation] = wantLastGood
		case hasLastGood: // too large to keep now: an older version is no last good one
			delete(cm.Annotations, policies.LastGoodAnnotation)
		}
		if err := r.Client.Patch(ctx, cm, patch); client.IgnoreNotFound(err) != nil {
			errs = append(errs, fmt.Errorf("annotating ConfigMap %s/%s: %w", cm.Namespace, cm.Name, err))
		}
	}
	return errors.Join(errs...)
}

// culpritsOf returns the ConfigMaps named in err (compile errors name the
// module IDs and sources), or all of them when none is named. A name
// counts only whole: ConfigMap ns/a is not named by ns/ab's errors.
func culpritsOf(err error, cms []corev1.ConfigMap) []corev1.ConfigMap {
	msg := err.Error()
	var out []corev1.ConfigMap
	for _, cm := range cms {
		if mentions(msg, "ConfigMap "+cm.Namespace+"/"+cm.Name) || mentions(msg, "configmaps/"+cm.Namespace+"/"+cm.Name+"/") {
			out = append(out, cm)
			continue
		}
		for k := range cm.Data {
			if mentions(msg, policy.ModuleID(&cm, k)) {
				out = append(out, cm)
				break
			}
		}
	}
	if len(out) == 0 {
		return cms
	}
	return out
}

// mentions reports whether msg contains name whole: not followed by a
// character that could continue a ConfigMap name or key.
func mentions(msg, name string) bool {
	for at := 0; ; {
		i := strings.Index(msg[at:], name)
		if i < 0 {
			return false
		}
		end := at + i + len(name)
		if end == len(msg) || strings.HasSuffix(name, "/") || !nameChar(msg[end]) {
			return true
		}
		at += i + 1
	}
}

// nameChar reports whether c may appear in a ConfigMap's name or key.
func nameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_'
}

func names(cms []corev1.ConfigMap) []string {
	out := make([]string, len(cms))
	for i, cm := range cms {
		out[i] = cm.Namespace + "/" + cm.Name
	}
	return out
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// bundleInputChanged passes the ConfigMap events that can change the
// bundle: creations, deletions, and updates of data or labels. An update
// of annotations alone (the status this reloader writes after each load)
// would only compile the same bundle again, which doubled the compiles a
// policy change costs and queued the next change behind them.
var bundleInputChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		old, ok1 := e.ObjectOld.(*corev1.ConfigMap)
		cur, ok2 := e.ObjectNew.(*corev1.ConfigMap)
		if !ok1 || !ok2 {
			return true
		}
		return !maps.Equal(old.Data, cur.Data) || !maps.EqualFunc(old.BinaryData, cur.BinaryData, bytes.Equal) ||
			!maps.Equal(old.Labels, cur.Labels)
	},
}
