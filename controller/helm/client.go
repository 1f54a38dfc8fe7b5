package helm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/kube"
	kubefake "helm.sh/helm/v3/pkg/kube/fake"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/releaseutil"
	"helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// MaxHistory bounds the revisions (release Secrets) a release keeps: a
// failing upgrade rolled back and tried again does not pile them up.
const MaxHistory = 10

// Client runs Helm actions for the releases of one namespace.
type Client struct {
	cfg       *action.Configuration
	namespace string
	// Timeout bounds each install, upgrade and rollback.
	Timeout time.Duration
	// AllowedKinds are the (namespaced) kinds a release may create, in its
	// namespace only (guard.go); nil means EngineKinds.
	AllowedKinds []schema.GroupKind
	// RetryBase is the first wait before Ensure tries again a chart and
	// values that failed (retry.go); 0 means DefaultRetryBase.
	RetryBase time.Duration
	// Writer identifies this controller process (NewWriter); installs and
	// upgrades stamp it on their release records (WriterLabel), and a
	// record another writer left pending is abandoned at once (stale.go).
	// Empty: records are not stamped, and a pending one is abandoned only
	// after Timeout.
	Writer string
	// actions are the releases an action of this Client holds
	// (inflight.go); shared by the copies knowing makes.
	actions *inFlight
	// good is what a rollback restores (lastgood.go); shared likewise.
	good *lastGood
	// caps are the cluster's capabilities, read at the first action
	// (capabilities.go); shared likewise.
	caps *capabilities
}

// NewClient returns a Client for a cluster, storing releases in Secrets of
// the namespace (Helm's default driver).
func NewClient(getter genericclioptions.RESTClientGetter, namespace string, log func(string, ...any)) (*Client, error) {
	cfg := &action.Configuration{}
	if err := cfg.Init(getter, namespace, "secret", log); err != nil {
		return nil, fmt.Errorf("initialising Helm for namespace %s: %w", namespace, err)
	}
	if kc, ok := cfg.KubeClient.(*kube.Client); ok {
		cfg.KubeClient = &probedKube{Client: kc, ttl: reachableFor}
	}
	return &Client{cfg: cfg, namespace: namespace, Timeout: 5 * time.Minute, actions: &inFlight{}, good: &lastGood{}, caps: &capabilities{}}, nil
}

// NewMemoryClient returns a Client that keeps releases in memory and only
// renders manifests, for tests and offline rendering. kube may be nil (a
// client that accepts everything) or a kubefake.FailingKubeClient.
func NewMemoryClient(namespace string, kube *kubefake.FailingKubeClient) *Client {
	var kc = &kubefake.FailingKubeClient{PrintingKubeClient: kubefake.PrintingKubeClient{Out: io.Discard}}
	if kube != nil {
		kc = kube
	}
	return &Client{
		cfg: &action.Configuration{
			Releases: storage.Init(driver.NewMemory()), KubeClient: kc,
			Capabilities: chartutil.DefaultCapabilities, Log: func(string, ...any) {},
		},
		namespace: namespace,
		Timeout:   time.Minute,
		actions:   &inFlight{},
		good:      &lastGood{},
		caps:      &capabilities{caps: chartutil.DefaultCapabilities},
	}
}

// Store records a release as if Helm had installed it, for tests (with
// NewMemoryClient) that need a release in a given state; controllers act
// on releases only through the actions that check whose they are
// (owner.go).
func (c *Client) Store(rel *release.Release) error { return c.cfg.Releases.Create(rel) }

// Latest returns the latest revision of a release, or nil if there is none.
// It reads Helm's release storage directly (one List of the release's
// records): action.Get would first probe the API server's reachability.
func (c *Client) Latest(name string) (*release.Release, error) {
	history, err := c.history(name)
	if err != nil || len(history) == 0 {
		return nil, err
	}
	return history[0], nil
}

// history returns a release's records, latest first (none if there are
// none).
func (c *Client) history(name string) ([]*release.Release, error) {
	history, err := c.cfg.Releases.History(name)
	if errors.Is(err, driver.ErrReleaseNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading release %s: %w", name, err)
	}
	releaseutil.Reverse(history, releaseutil.SortByRevision)
	return history, nil
}

// runToTheEnd is ctx without its cancellation, for Helm's install and
// upgrade. When their context ends first, Helm (v3.22, action.Install's
// performInstallCtx, action.Upgrade's handleContext) returns at once and
// marks the release failed while its own goroutine goes on creating the
// objects and recording the release: two writers of one release (a data
// race the race detector reported) and a release recorded failed whose
// objects exist. Run to the end, an action takes as long as its API
// requests (no Wait; Timeout bounds Helm's own waits), and the record says
// what was done; a controller shutting down waits for it.
func runToTheEnd(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }

// Install installs a release; Helm refuses a name in use, whoever's
// release it is.
func (c *Client) Install(ctx context.Context, name string, d Desired) (*release.Release, error) {
	return holding(c, name, func() (*release.Release, error) { return c.install(ctx, name, d) })
}

func (c *Client) install(ctx context.Context, name string, d Desired) (*release.Release, error) {
	if err := c.ensureCapabilities(); err != nil {
		return nil, fmt.Errorf("installing release %s: %w", name, err)
	}
	in := action.NewInstall(c.actionConfig())
	in.ReleaseName, in.Namespace, in.Timeout = name, c.namespace, c.Timeout
	in.PostRenderer, in.DisableHooks = c.guard(), true // guard.go; hooks would bypass the guard
	// The API server validates every object it stores; Helm's client-side
	// check would download and parse the cluster's whole OpenAPI document
	// on every install, which dominated the cost of binding a Dataset.
	in.DisableOpenAPIValidation = true
	in.Labels = c.labels(d) // owner.go
	rel, err := in.RunWithContext(runToTheEnd(ctx), d.Chart, d.Values)
	if err != nil {
		return rel, fmt.Errorf("installing release %s: %w", name, err)
	}
	c.good.remember(name, d)
	return rel, nil
}

// Upgrade upgrades a release to the desired chart and values (the values
// replace the old ones: no reuse or reset). A release that is not the
// desired one's (another chart, another owner: owner.go) is refused with a
// *ForeignError. A latest record that its process abandoned while pending
// (stale.go) is marked failed first, so the upgrade takes over from it;
// one in progress is refused. Like every action on a release, it first
// drops from the stored records what the release could not have created
// (stored.go).
func (c *Client) Upgrade(ctx context.Context, name string, d Desired) (*release.Release, error) {
	return holding(c, name, func() (*release.Release, error) { return c.upgrade(ctx, name, d) })
}

func (c *Client) upgrade(ctx context.Context, name string, d Desired) (*release.Release, error) {
	history, err := c.history(name)
	if err != nil {
		return nil, err
	}
	if err := checkOwner(name, history, d.owner()); err != nil {
		return nil, err
	}
	if len(history) > 0 {
		if _, err := c.recoverStale(history[0]); err != nil {
			return nil, err
		}
	}
	return c.upgradeTo(ctx, name, d, history, "")
}

// upgradeTo runs Helm's upgrade of a release that is d's (history as just
// read; description, when not "", replaces Helm's).
func (c *Client) upgradeTo(ctx context.Context, name string, d Desired, history []*release.Release, description string) (*release.Release, error) {
	if err := c.trustStored(name, history); err != nil { // stored.go
		return nil, err
	}
	if err := c.ensureCapabilities(); err != nil {
		return nil, fmt.Errorf("upgrading release %s: %w", name, err)
	}
	up := action.NewUpgrade(c.actionConfig())
	up.Namespace, up.Timeout, up.MaxHistory = c.namespace, c.Timeout, MaxHistory
	up.DisableOpenAPIValidation = true // as in Install
	up.PostRenderer, up.DisableHooks = c.guard(), true
	up.Labels, up.Description = c.labels(d), description
	// The failed revision an upgrade starts from, read before Helm
	// changes it.
	fromFailed := 0
	if len(history) > 0 && history[0].Info != nil && history[0].Info.Status == release.StatusFailed {
		fromFailed = history[0].Version
	}
	rel, err := up.RunWithContext(runToTheEnd(ctx), name, d.Chart, d.Values)
	if err != nil {
		return rel, fmt.Errorf("upgrading release %s: %w", name, err)
	}
	c.good.remember(name, d)
	// Helm's upgrade supersedes the revision it upgraded from: a failed
	// one, when none was deployed. It stays failed, as after Helm's
	// rollback, so that it still counts as a failed attempt (retry.go).
	if fromFailed > 0 {
		if err := c.keepFailed(name, fromFailed); err != nil {
			return rel, err
		}
	}
	return rel, nil
}

// keepFailed marks a failed revision that an upgrade superseded failed
// again.
func (c *Client) keepFailed(name string, version int) error {
	rel, err := c.cfg.Releases.Get(name, version)
	if err != nil || rel.Info == nil || rel.Info.Status != release.StatusSuperseded {
		return nil // gone (MaxHistory) or not superseded: nothing to keep
	}
	rel.Info.Status = release.StatusFailed
	if err := c.cfg.Releases.Update(rel); err != nil {
		return fmt.Errorf("recording revision %d of release %s as failed again after an upgrade from it: %w", version, name, err)
	}
	return nil
}

// rollback restores a failed release (latest record first in history) to
// the chart and values this process last deployed for it, by an upgrade
// that renders them afresh through the guard: nothing stored is applied
// (lastgood.go). It reports false, and does nothing, when this process
// knows no good chart and values of the release's own, or they are not
// of the release's owner.
func (c *Client) rollback(ctx context.Context, name string, history []*release.Release) (bool, error) {
	good, ok := c.good.get(name)
	if !ok || len(history) == 0 || good.owner().foreign(history[0]) != "" {
		return false, nil
	}
	description := fmt.Sprintf("Rollback of revision %d to the last good chart and values this controller deployed, rendered afresh", history[0].Version)
	if _, err := c.upgradeTo(ctx, name, good, history, description); err != nil {
		return false, fmt.Errorf("rolling back release %s: %w", name, err)
	}
	return true, nil
}

// UninstallChart removes a release of the named chart that names no
// owner (UninstallOwned).
func (c *Client) UninstallChart(name, chart string) (foreign bool, err error) {
	return c.UninstallOwned(name, Owner{Charts: []string{chart}})
}

// UninstallOwned removes a release that is o's (owner.go); an absent one
// is no error. Someone else's (another chart, another owner) is left, and
// foreign reports that one remains.
func (c *Client) UninstallOwned(name string, o Owner) (foreign bool, err error) {
	return holding(c, name, func() (bool, error) {
		history, err := c.history(name)
		if err != nil || len(history) == 0 {
			return false, err
		}
		if o.foreign(history[0]) != "" {
			return true, nil
		}
		return false, c.uninstall(name, history)
	})
}

// uninstall removes a release that is the caller's (history as just read).
func (c *Client) uninstall(name string, history []*release.Release) error {
	if err := c.trustStored(name, history); err != nil {
		return err
	}
	un := action.NewUninstall(c.actionConfig())
	un.Timeout, un.DisableHooks = c.Timeout, true // hooks never passed the guard
	if _, err := un.Run(name); err != nil && !errors.Is(err, driver.ErrReleaseNotFound) {
		return fmt.Errorf("uninstalling release %s: %w", name, err)
	}
	c.good.forget(name)
	return nil
}

// deploys reports whether an action deploys the desired chart and values.
func deploys(act Action) bool {
	return act == ActionInstall || act == ActionUpgrade || act == ActionReinstall
}

// Ensure moves a release one step towards the desired chart and values: it
// classifies the latest revision and runs the next action. It returns the
// state it found and the action it took. A *RetryAfter error says that
// the desired chart and values failed and when they are tried again: the
// action was the rollback to the last good revision, or ActionWait.
func (c *Client) Ensure(ctx context.Context, name string, d Desired) (State, Action, error) {
	done, err := c.actions.hold(name)
	if err != nil {
		return Pending, ActionWait, err
	}
	defer done()
	return c.ensure(ctx, name, d)
}

func (c *Client) ensure(ctx context.Context, name string, d Desired) (State, Action, error) {
	history, err := c.history(name)
	if err != nil {
		return "", "", err
	}
	var rel *release.Release
	if len(history) > 0 {
		rel = history[0]
		if d.owner().foreign(rel) == "" {
			if _, err := c.recoverStale(rel); err != nil {
				return Pending, ActionWait, err
			}
		}
	}
	state := Classify(rel, d)
	act := Next(state, rel)
	if state == InSync {
		c.good.remember(name, d)
	}
	// The desired chart and values failed before: the release keeps (or
	// is rolled back to) its last good revision, and they are tried again
	// only after a back-off, so that a spec the API server refuses does not
	// upgrade and roll back the workers every reconcile.
	retry := failedAttempts(history, d, c.RetryBase)
	if retry != nil && deploys(act) && time.Now().Before(retry.When) {
		return state, ActionWait, retry
	}
	switch act {
	case ActionInstall:
		_, err = c.knowing(name, history).install(ctx, name, d)
	case ActionUpgrade:
		_, err = c.upgrade(ctx, name, d)
	case ActionRollback:
		var rolled bool
		switch rolled, err = c.rollback(ctx, name, history); {
		case err != nil:
		case !rolled && (retry == nil || !time.Now().Before(retry.When)):
			// Nothing of this process's own to restore, and the desired
			// chart and values have not failed (an abandoned record), or
			// their back-off is over: deploy them.
			act = ActionUpgrade
			_, err = c.upgrade(ctx, name, d)
		case !rolled:
			// The release stays as the failed attempt left it until the
			// back-off is over.
			retry.Unrestored = true
			act, err = ActionWait, retry
		case retry != nil:
			err = retry
		}
	case ActionReinstall:
		if err = c.uninstall(name, history); err == nil {
			_, err = c.install(ctx, name, d)
		}
	}
	return state, act, err
}
