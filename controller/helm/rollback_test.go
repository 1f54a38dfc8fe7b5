package helm

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/kube"
	kubefake "helm.sh/helm/v3/pkg/kube/fake"
	"helm.sh/helm/v3/pkg/release"
)

// applyingKube is refusingKube that also records the manifest of each
// update it lets through: what reaches the cluster.
type applyingKube struct {
	refusingKube
	applied []string
}

func (k *applyingKube) Update(original, target kube.ResourceList, force bool) (*kube.Result, error) {
	res, err := k.refusingKube.Update(original, target, force)
	if err == nil {
		k.applied = append(k.applied, k.target)
	}
	return res, err
}

// TestARollbackAppliesNoStoredManifest (reliability audit N4): the
// release's good revision is edited in its record (the manifest and the
// values, as a namespace user who may edit Secrets can), then an upgrade
// fails and Ensure rolls back. Nothing of the record is applied: the
// rollback renders the chart and values this process deployed afresh.
// Helm's rollback applied the stored manifest.
func TestARollbackAppliesNoStoredManifest(t *testing.T) {
	ctx := context.Background()
	k := &applyingKube{refusingKube: refusingKube{FailingKubeClient: kubefake.FailingKubeClient{PrintingKubeClient: kubefake.PrintingKubeClient{Out: io.Discard}}, refuse: `replicas: "2"`}}
	c := NewMemoryClient("team-a", nil)
	c.cfg.KubeClient = k
	good := Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": 1}}
	if _, _, err := c.Ensure(ctx, "demo", good); err != nil {
		t.Fatal(err)
	}
	stored, err := c.Latest("demo")
	if err != nil {
		t.Fatal(err)
	}
	stored.Manifest = strings.Replace(stored.Manifest, `replicas: "1"`, `replicas: "1"`+"\n  forged: \"privileged: true\"", 1)
	stored.Config = map[string]any{"replicas": "1\n  forged: values"}
	if err := c.cfg.Releases.Update(stored); err != nil {
		t.Fatal(err)
	}

	refused := Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": 2}}
	if _, act, err := c.Ensure(ctx, "demo", refused); act != ActionUpgrade || err == nil {
		t.Fatalf("the refused upgrade: %s %v", act, err)
	}
	k.applied = nil
	var retry *RetryAfter
	if state, act, err := c.Ensure(ctx, "demo", refused); state != Failed || act != ActionRollback || !errors.As(err, &retry) {
		t.Fatalf("after the failed upgrade: %s/%s %v, want Failed/Rollback and a RetryAfter", state, act, err)
	}
	if len(k.applied) != 1 {
		t.Fatalf("the rollback applied %d manifests, want 1", len(k.applied))
	}
	if strings.Contains(k.applied[0], "forged") || !strings.Contains(k.applied[0], `replicas: "1"`) {
		t.Errorf("the rollback applied:\n%s\nwant the good revision rendered afresh", k.applied[0])
	}
	latest, err := c.Latest("demo")
	if err != nil || latest.Info.Status != release.StatusDeployed || strings.Contains(latest.Manifest, "forged") || latest.Config["replicas"] != 1 {
		t.Fatalf("the rollback's revision: %+v %v, want the good chart and values deployed", latest, err)
	}
}

// TestNoRollbackWithoutAGoodRevisionOfItsOwn: a controller process that
// did not deploy (or find deployed) the release's good revision has
// nothing it trusts to restore. While the failed spec's back-off lasts the
// release stays as the failed attempt left it, and says so; an abandoned
// record (no failed attempt of the desired spec) is upgraded at once.
func TestNoRollbackWithoutAGoodRevisionOfItsOwn(t *testing.T) {
	ctx := context.Background()
	k := &applyingKube{refusingKube: refusingKube{FailingKubeClient: kubefake.FailingKubeClient{PrintingKubeClient: kubefake.PrintingKubeClient{Out: io.Discard}}, refuse: `replicas: "2"`}}
	c := NewMemoryClient("team-a", nil)
	c.cfg.KubeClient = k
	if _, _, err := c.Ensure(ctx, "demo", Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": 1}}); err != nil {
		t.Fatal(err)
	}
	refused := Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": 2}}
	if _, act, err := c.Ensure(ctx, "demo", refused); act != ActionUpgrade || err == nil {
		t.Fatalf("the refused upgrade: %s %v", act, err)
	}

	restarted := &Client{cfg: c.cfg, namespace: c.namespace, Timeout: c.Timeout, actions: &inFlight{}, good: &lastGood{}, caps: &capabilities{caps: chartutil.DefaultCapabilities}}
	k.applied = nil
	var retry *RetryAfter
	state, act, err := restarted.Ensure(ctx, "demo", refused)
	if state != Failed || act != ActionWait || !errors.As(err, &retry) || !retry.Unrestored || !strings.Contains(err.Error(), "not restored") {
		t.Fatalf("a failed release, no good revision of this process: %s/%s %v, want Failed/Wait and an unrestored RetryAfter", state, act, err)
	}
	if len(k.applied) != 0 {
		t.Fatalf("applied %q, want nothing", k.applied)
	}
	latest, err := restarted.Latest("demo")
	if err != nil || latest.Version != 2 || latest.Info.Status != release.StatusFailed {
		t.Fatalf("the release afterwards: %+v %v, want the failed revision 2 latest", latest, err)
	}
}
