package helm

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/kube"
	kubefake "helm.sh/helm/v3/pkg/kube/fake"
	"helm.sh/helm/v3/pkg/release"
	helmtime "helm.sh/helm/v3/pkg/time"
)

// refusingKube refuses to update the cluster to a manifest containing
// refuse, as an API server refuses an invalid object: the target of an
// update is the manifest Helm built last.
type refusingKube struct {
	kubefake.FailingKubeClient
	refuse string
	target string
}

func (k *refusingKube) Build(r io.Reader, validate bool) (kube.ResourceList, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	k.target = string(data)
	return k.FailingKubeClient.Build(bytes.NewReader(data), validate)
}

func (k *refusingKube) Update(original, target kube.ResourceList, force bool) (*kube.Result, error) {
	if strings.Contains(k.target, k.refuse) {
		return &kube.Result{}, errors.New("admission webhook denied the update")
	}
	return k.FailingKubeClient.Update(original, target, force)
}

func TestRetryWaitDoublesUpToTheCap(t *testing.T) {
	for attempts, want := range map[int]time.Duration{
		1: time.Minute, 2: 2 * time.Minute, 3: 4 * time.Minute, 4: 8 * time.Minute, 5: maxRetryWait, 40: maxRetryWait,
	} {
		if got := retryWait(time.Minute, attempts); got != want {
			t.Errorf("retryWait(1m, %d) = %v, want %v", attempts, got, want)
		}
	}
	if got := retryWait(0, 1); got != DefaultRetryBase {
		t.Errorf("retryWait(0, 1) = %v, want the default %v", got, DefaultRetryBase)
	}
}

// TestFailedAttemptsCountsOnlyTheDesiredSpec: failures of other values
// or charts say nothing about the desired ones.
func TestFailedAttemptsCountsOnlyTheDesiredSpec(t *testing.T) {
	d := Desired{Chart: demoChart("0.2.0"), Values: map[string]any{"replicas": 3}}
	at := func(r *release.Release, ago time.Duration, desc string) *release.Release {
		r.Info.LastDeployed, r.Info.Description = helmtime.Time{Time: time.Now().Add(-ago)}, desc
		return r
	}
	history := []*release.Release{ // latest first
		at(rel(6, release.StatusDeployed, "0.1.0", map[string]any{"replicas": 2}), time.Minute, "Rollback to 4"),
		at(rel(5, release.StatusFailed, "0.2.0", map[string]any{"replicas": 3}), 2*time.Minute, "Upgrade failed: refused"),
		at(rel(4, release.StatusSuperseded, "0.1.0", map[string]any{"replicas": 2}), 3*time.Minute, "Rollback to 2"),
		at(rel(3, release.StatusFailed, "0.2.0", map[string]any{"replicas": 3}), 4*time.Minute, "Upgrade failed: older"),
		at(rel(2, release.StatusFailed, "0.2.0", map[string]any{"replicas": 4}), 5*time.Minute, "Upgrade failed: other values"),
		at(rel(1, release.StatusFailed, "0.1.0", map[string]any{"replicas": 3}), 6*time.Minute, "Upgrade failed: other chart"),
	}
	got := failedAttempts(history, d, time.Minute)
	if got == nil || got.Attempts != 2 || got.Cause != "Upgrade failed: refused" || !got.When.Equal(got.Failed.Add(2*time.Minute)) {
		t.Fatalf("failedAttempts = %+v, want 2 attempts, the latest's cause, retried 2m after it", got)
	}
	if !got.Deployed || !strings.Contains(got.Error(), "keeps its last good revision") {
		t.Errorf("with a deployed revision: %v, want it kept", got)
	}
	if got := failedAttempts(history[1:2], d, time.Minute); got == nil || got.Deployed || !strings.Contains(got.Error(), "no good revision yet") {
		t.Errorf("a first install that failed: %v, want no good revision", got)
	}
	if got := failedAttempts(history[:1], d, time.Minute); got != nil {
		t.Fatalf("failedAttempts without a failure of the desired spec = %+v, want nil", got)
	}
}

// TestARefusedSpecBacksOff (M1): an upgrade the cluster keeps refusing is
// rolled back once per attempt, and the attempts are spaced by a doubling
// wait instead of following each other every reconcile; the history stays
// within MaxHistory.
func TestARefusedSpecBacksOff(t *testing.T) {
	ctx := context.Background()
	c := NewMemoryClient("team-a", nil)
	c.cfg.KubeClient = &refusingKube{FailingKubeClient: kubefake.FailingKubeClient{PrintingKubeClient: kubefake.PrintingKubeClient{Out: io.Discard}}, refuse: `replicas: "2"`}
	c.RetryBase = 40 * time.Millisecond
	if _, _, err := c.Ensure(ctx, "demo", Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": 1}}); err != nil {
		t.Fatal(err)
	}
	refused := Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": 2}}

	// Until the fourth attempt: each is rolled back, and the waits
	// between them are at least 40, 80 and 160 ms (lower bounds only, so
	// that a slow machine cannot fail the test).
	var upgrades []time.Time
	rollbacks := 0
	for deadline := time.Now().Add(20 * time.Second); len(upgrades) < 4 && time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		before := time.Now()
		_, act, err := c.Ensure(ctx, "demo", refused)
		var retry *RetryAfter
		switch act {
		case ActionUpgrade:
			upgrades = append(upgrades, before)
		case ActionRollback:
			rollbacks++
		}
		if act != ActionUpgrade && !errors.As(err, &retry) {
			t.Fatalf("%s: %v, want a RetryAfter", act, err)
		}
	}
	if len(upgrades) < 4 || rollbacks < 3 {
		t.Fatalf("%d upgrades and %d rollbacks in 20 s, want 4 and at least 3", len(upgrades), rollbacks)
	}
	for i, wait := range []time.Duration{40 * time.Millisecond, 80 * time.Millisecond, 160 * time.Millisecond} {
		if gap := upgrades[i+1].Sub(upgrades[i]); gap < wait {
			t.Errorf("attempt %d came %v after attempt %d, want at least %v", i+2, gap, i+1, wait)
		}
	}
	if _, act, _ := c.Ensure(ctx, "demo", refused); act != ActionRollback {
		t.Fatalf("after the fourth attempt: %s, want Rollback", act)
	}
	history, err := c.history("demo")
	if err != nil || len(history) > MaxHistory {
		t.Fatalf("history: %d revisions %v, want at most %d", len(history), err, MaxHistory)
	}
	latest := history[0]
	if latest.Info.Status != release.StatusDeployed || latest.Config["replicas"] != 1 {
		t.Fatalf("latest revision: %s %v, want the last good one deployed", latest.Info.Status, latest.Config)
	}
}
