package cacheruntime

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/charts"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/cachecleanup"
)

// The cache cleanup of a runtime's deletion (engines/workloads/cachecleanup,
// charts/cachecleanup). Once no Pod uses the Dataset, and before the rest
// of the deletion, a cleanup release frees the cache through the engine
// (Alluxio) and removes the runtime's host cache directories on each node
// its engine pods ran on. Each reconcile takes one step from what it
// observes; the release's stage says where the cleanup is, and its
// last-deployed time since when:
//
//	no release  the engine's release is installed: plan the cleanup from
//	            its pods and install it at StageFree (nothing to clean:
//	            the deletion goes on at once)
//	free        wait for the free Job, uninstall the engine's release,
//	            move to StageDrain
//	drain       wait for the engine's pods to stop, move to StageClean,
//	            which starts the node Jobs
//	clean       wait for the node Jobs, then conclude: report, uninstall
//	            the cleanup release
//
// Every wait is bounded by the runtime's cleanCachePolicy, and a Job that
// fails or outlasts its bound is given up: the deletion goes on with
// Ready=False CleanupFailed (a Warning Event) naming each node and its
// error. The concluded CacheCleaned condition is the record that the
// cleanup is over; the next reconcile finishes the deletion.

// Cleanup waits between reconciles.
const (
	waitCleanupStep = 2 * time.Second
	waitCleanupJobs = 5 * time.Second
	// waitConcluded lets the concluded status be written before the
	// deletion finishes.
	waitConcluded = 100 * time.Millisecond
)

// cleanup is one reconcile's step of a cleanup.
type cleanup struct {
	r       *Reconciler
	s       *scope
	hc      *helm.Client
	desired helm.Desired
	release string
	policy  cachecleanup.Policy
}

// cleanCache takes the cleanup's next step; done says the deletion may go
// on (the cleanup concluded, or there was nothing to clean).
func (r *Reconciler) cleanCache(ctx context.Context, s *scope, hc *helm.Client) (ctrl.Result, bool, error) {
	if c := meta.FindStatusCondition(s.rt.GetRuntimeStatus().Conditions, ConditionCacheCleaned); c != nil && c.Reason != ReasonCleaningCache {
		return ctrl.Result{}, true, nil
	}
	chart, err := r.cleanupChart.Load(charts.CacheCleanup)
	if err != nil {
		return ctrl.Result{}, false, err
	}
	c := &cleanup{r: r, s: s, hc: hc, desired: helm.Desired{Chart: chart},
		release: cachecleanup.ReleaseName(s.rt.GetName()), policy: cachecleanup.PolicyOf(s.rt.GetCleanCachePolicy())}
	rec, err := hc.Record(c.release)
	if err != nil {
		return ctrl.Result{}, false, err
	}
	if rec == nil {
		return c.start(ctx)
	}
	if rec.Chart != chart.Metadata.Name {
		return c.conclude(ctx, nil, fmt.Sprintf("a Helm release %s of another chart exists in namespace %s: the cache was not cleaned", c.release, s.rt.GetNamespace()))
	}
	v, err := cachecleanup.Decode(rec.Values)
	if err != nil {
		return c.conclude(ctx, nil, err.Error())
	}
	if s.obs.now.After(rec.FirstDeployed.Add(c.overall(v))) {
		return c.conclude(ctx, &v, fmt.Sprintf("the cleanup did not finish within %s (%s)", c.overall(v), c.policy))
	}
	if !rec.Deployed {
		// The last step's upgrade failed (Helm status rec.Status): take it
		// again.
		return c.moveTo(ctx, v, v.Stage)
	}
	switch v.Stage {
	case cachecleanup.StageFree:
		return c.free(ctx, rec, v)
	case cachecleanup.StageDrain:
		return c.drain(ctx, rec, v)
	}
	return c.clean(ctx, rec, v)
}

// overall bounds the whole cleanup, whatever its steps do: each wait at
// its bound, and some time for the steps between.
func (c *cleanup) overall(v cachecleanup.Values) time.Duration {
	d := time.Duration(c.policy.GracePeriodSeconds)*time.Second + c.policy.GiveUpAfter() + time.Minute
	if v.HasFree() {
		d += c.policy.GiveUpAfter()
	}
	return d
}

// start plans the cleanup from the engine release's pods and installs it
// at StageFree; with nothing to clean (no release, or only emptyDir
// caches) the deletion goes on at once.
func (c *cleanup) start(ctx context.Context) (ctrl.Result, bool, error) {
	r, rt := c.r, c.s.rt
	engineChart, err := r.chart.Load(r.Engine.Chart())
	if err != nil {
		return ctrl.Result{}, false, err
	}
	engineRel, err := c.hc.Record(rt.GetName())
	if err != nil {
		return ctrl.Result{}, false, err
	}
	if engineRel == nil || engineRel.Chart != engineChart.Metadata.Name {
		return ctrl.Result{}, true, nil
	}
	pods := &corev1.PodList{}
	if err := r.Client.List(ctx, pods, client.InNamespace(rt.GetNamespace()),
		client.MatchingLabels{"app.kubernetes.io/instance": rt.GetName(), engines.LabelManagedBy: "sluice"}); err != nil {
		return ctrl.Result{}, false, err
	}
	req := cachecleanup.Request{Runtime: rt, Engine: r.Engine.Type(), Nodes: cachecleanup.Plan(pods.Items, rt.GetNamespace(), rt.GetName())}
	if f, ok := r.Engine.(engines.CacheFreer); ok {
		masters, err := r.readyMasters(ctx, rt)
		if err != nil {
			return ctrl.Result{}, false, err
		}
		if masters {
			spec, err := f.FreeCache(rt)
			if err != nil {
				return ctrl.Result{}, false, err
			}
			req.Free = &spec
		}
	}
	if req.Empty() {
		return ctrl.Result{}, true, nil
	}
	values, err := cachecleanup.Build(c.release, req).Plain()
	if err != nil {
		return ctrl.Result{}, false, err
	}
	c.desired.Values = values
	state, _, err := c.hc.InstallOnce(ctx, c.release, c.desired)
	switch {
	case err != nil:
		return c.conclude(ctx, nil, fmt.Sprintf("the cleanup Jobs (%s) could not be created: %v", c.startMessage(req), err))
	case state == helm.Foreign:
		return c.conclude(ctx, nil, fmt.Sprintf("a Helm release %s of another chart exists in namespace %s: the cache was not cleaned", c.release, rt.GetNamespace()))
	}
	ctrl.LoggerFrom(ctx).Info("cache cleanup", "release", c.release, "nodes", len(req.Nodes), "free", req.Free != nil)
	c.report(ReasonCleaningCache, c.startMessage(req))
	return ctrl.Result{RequeueAfter: waitCleanupStep}, false, nil
}

func (c *cleanup) startMessage(req cachecleanup.Request) string {
	nodes := make([]string, len(req.Nodes))
	for i, n := range req.Nodes {
		nodes[i] = n.Name
	}
	switch {
	case req.Free != nil && len(nodes) > 0:
		return "freeing the cache through the engine, then removing its directories on " + nodeList(nodes)
	case req.Free != nil:
		return "freeing the cache through the engine"
	}
	return "removing the cache directories on " + nodeList(nodes) + " once the engine's pods stop"
}

// readyMasters reports whether the runtime's masters run (a free Job needs
// them).
func (r *Reconciler) readyMasters(ctx context.Context, rt client.Object) (bool, error) {
	if !r.Engine.Components(rt).Master {
		return false, nil
	}
	sts, err := r.statefulSet(ctx, rt, "-master")
	if err != nil || sts == nil {
		return false, err
	}
	return sts.Status.ReadyReplicas > 0, nil
}

// free waits (bounded) for the free Job, then uninstalls the engine's
// release and moves to StageDrain.
func (c *cleanup) free(ctx context.Context, rec *helm.Record, v cachecleanup.Values) (ctrl.Result, bool, error) {
	if v.HasFree() {
		o, err := c.r.jobOutcome(ctx, c.s.rt.GetNamespace(), cachecleanup.FreeJobName(c.release))
		if err != nil {
			return ctrl.Result{}, false, err
		}
		if !o.finished && c.s.obs.now.Before(rec.LastDeployed.Add(c.policy.GiveUpAfter())) {
			c.report(ReasonCleaningCache, "freeing the cache through the engine (Job "+cachecleanup.FreeJobName(c.release)+")")
			return ctrl.Result{RequeueAfter: waitCleanupStep}, false, nil
		}
	}
	engineChart, err := c.r.chart.Load(c.r.Engine.Chart())
	if err != nil {
		return ctrl.Result{}, false, err
	}
	c.r.releases.Forget(client.ObjectKeyFromObject(c.s.rt).String())
	if _, err := c.hc.UninstallChart(c.s.rt.GetName(), engineChart.Metadata.Name); err != nil {
		return ctrl.Result{}, false, err
	}
	return c.moveTo(ctx, v, cachecleanup.StageDrain)
}

// drain waits until no engine pod runs on a node to clean (a pod past its
// deletion deadline, whose node does not answer, no longer counts), at
// most gracePeriodSeconds, then moves to StageClean.
func (c *cleanup) drain(ctx context.Context, rec *helm.Record, v cachecleanup.Values) (ctrl.Result, bool, error) {
	rt := c.s.rt
	pods := &corev1.PodList{}
	if err := c.r.Client.List(ctx, pods, client.InNamespace(rt.GetNamespace()),
		client.MatchingLabels{"app.kubernetes.io/instance": rt.GetName(), engines.LabelManagedBy: "sluice"}); err != nil {
		return ctrl.Result{}, false, err
	}
	planned := map[string]bool{}
	for _, n := range v.Nodes {
		planned[n.Node] = true
	}
	var running []string
	for i := range pods.Items {
		p := &pods.Items[i]
		past := p.DeletionTimestamp != nil && c.s.obs.now.After(p.DeletionTimestamp.Time)
		if planned[p.Spec.NodeName] && !past && cachecleanup.EnginePod(p, rt.GetName()) && !contains(running, p.Spec.NodeName) {
			running = append(running, p.Spec.NodeName)
		}
	}
	if len(running) > 0 && c.s.obs.now.Before(rec.LastDeployed.Add(time.Duration(c.policy.GracePeriodSeconds)*time.Second)) {
		c.report(ReasonCleaningCache, "waiting for the engine's pods to stop on "+nodeList(running)+" before removing the cache there")
		return ctrl.Result{RequeueAfter: waitCleanupStep}, false, nil
	}
	return c.moveTo(ctx, v, cachecleanup.StageClean)
}

// clean waits for the node Jobs, each at most the policy's bound after
// they started, then concludes.
func (c *cleanup) clean(ctx context.Context, rec *helm.Record, v cachecleanup.Values) (ctrl.Result, bool, error) {
	giveUp := !c.s.obs.now.Before(rec.LastDeployed.Add(c.policy.GiveUpAfter()))
	var waiting []string
	for _, n := range v.Nodes {
		o, err := c.r.jobOutcome(ctx, c.s.rt.GetNamespace(), n.Job)
		if err != nil {
			return ctrl.Result{}, false, err
		}
		if !o.finished {
			waiting = append(waiting, n.Node)
		}
	}
	if len(waiting) > 0 && !giveUp {
		c.report(ReasonCleaningCache, "removing the cache directories on "+nodeList(waiting))
		return ctrl.Result{RequeueAfter: waitCleanupJobs}, false, nil
	}
	return c.conclude(ctx, &v, "")
}

// moveTo upgrades the cleanup release to stage.
func (c *cleanup) moveTo(ctx context.Context, v cachecleanup.Values, stage cachecleanup.Stage) (ctrl.Result, bool, error) {
	values, err := v.At(stage).Plain()
	if err != nil {
		return ctrl.Result{}, false, err
	}
	c.desired.Values = values
	if _, err := c.hc.Upgrade(ctx, c.release, c.desired); err != nil {
		return ctrl.Result{}, false, err
	}
	return ctrl.Result{RequeueAfter: time.Millisecond}, false, nil
}

// conclude reports the cleanup's outcome (the Jobs' of v, when it got
// that far; failure, when not "", is why it stopped early), uninstalls the
// cleanup release and has the next reconcile finish the deletion.
func (c *cleanup) conclude(ctx context.Context, v *cachecleanup.Values, failure string) (ctrl.Result, bool, error) {
	var failed, cleaned []string
	freeNote := ""
	if v != nil {
		ns := c.s.rt.GetNamespace()
		if v.HasFree() {
			o, err := c.r.jobOutcome(ctx, ns, cachecleanup.FreeJobName(c.release))
			if err != nil {
				return ctrl.Result{}, false, err
			}
			if why := o.failure(c.policy, failure); why != "" {
				freeNote = "freeing the cache through the engine failed (" + why + ")"
			}
		}
		for _, n := range v.Nodes {
			o, err := c.r.jobOutcome(ctx, ns, n.Job)
			if err != nil {
				return ctrl.Result{}, false, err
			}
			if why := o.failure(c.policy, failure); why != "" {
				failed = append(failed, fmt.Sprintf("node %s: %s", n.Node, why))
			} else {
				cleaned = append(cleaned, n.Node)
			}
		}
	}
	if _, err := c.hc.UninstallChart(c.release, c.desired.Chart.Metadata.Name); err != nil {
		return ctrl.Result{}, false, err
	}
	switch {
	case len(failed) > 0:
		msg := "the cache cleanup gave up, the deletion goes on: " + joinMessages(failed)
		if freeNote != "" {
			msg += "; " + freeNote
		}
		c.report(ReasonCleanupFailed, msg)
	case failure != "" && v == nil:
		c.report(ReasonCleanupFailed, "the cache cleanup gave up, the deletion goes on: "+failure)
	default:
		msg := "removed the cache directories on " + nodeList(cleaned)
		if len(cleaned) == 0 {
			msg = "freed the cache through the engine"
		}
		if freeNote != "" {
			msg += "; " + freeNote + ", but the directories are gone"
		}
		c.s.obs.cleanup = &verdict{Status: metav1.ConditionTrue, Reason: ReasonCacheCleaned, Message: msg}
		c.s.report = true
	}
	return ctrl.Result{RequeueAfter: waitConcluded}, false, nil
}

// report records the cleanup's state for the status (CacheCleaned False,
// and Ready).
func (c *cleanup) report(reason, message string) {
	c.s.obs.cleanup = &verdict{Status: metav1.ConditionFalse, Reason: reason, Message: message}
	c.s.report = true
}
