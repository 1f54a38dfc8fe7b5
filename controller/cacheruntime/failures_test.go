package cacheruntime

import (
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

func TestClassifyFailures(t *testing.T) {
	ready, none := &counts{desired: 2, ready: 2}, &counts{desired: 2, ready: 0}
	partial := &counts{desired: 2, ready: 1}
	for _, tc := range []struct {
		name     string
		setUp    bool // the Dataset was bound to the runtime
		deleting bool
		err      error
		obs      observations
		want     failure
	}{
		{name: "a new runtime waiting for its Dataset", obs: observations{datasetFound: &datasetFound{}}, want: noFailure},
		{name: "a new runtime waiting for its workers", obs: observations{engine: &engineVerdict{}, components: &componentCounts{workers: none}}, want: noFailure},
		{name: "setup: an API error", err: errors.New("boom"), want: setupFailure},
		{name: "setup: the engine refuses the spec", obs: observations{engine: &engineVerdict{reason: "InvalidSpec", message: "m"}}, want: setupFailure},
		{name: "setup: Helm failed", obs: observations{engine: &engineVerdict{reason: ReasonReleaseFailed}}, want: setupFailure},
		{name: "setup: a volume conflict", obs: observations{volumeConflict: "PVC n/d exists"}, want: setupFailure},
		{name: "bound and healthy", setUp: true, obs: observations{components: &componentCounts{masters: ready, workers: ready}}, want: noFailure},
		{name: "bound, some workers ready (Fluid: healthy)", setUp: true, obs: observations{components: &componentCounts{workers: partial}}, want: noFailure},
		{name: "bound, no worker ready", setUp: true, obs: observations{components: &componentCounts{masters: ready, workers: none}}, want: healthCheckFailure},
		{name: "bound, no master ready", setUp: true, obs: observations{components: &componentCounts{masters: none, workers: ready}}, want: healthCheckFailure},
		{name: "bound, scaled to zero workers", setUp: true, obs: observations{components: &componentCounts{workers: &counts{}}}, want: noFailure},
		{name: "bound, an API error is not a health check", setUp: true, err: errors.New("boom"), want: noFailure},
		{name: "deleting", deleting: true, err: errors.New("boom"), want: noFailure},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := &datav1alpha1.JuiceFSRuntime{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n"}}
			if tc.deleting {
				now := metav1.Now()
				rt.DeletionTimestamp = &now
			}
			s := &scope{rt: rt, obs: tc.obs, setUp: tc.setUp}
			if got := classify(s, tc.err); got != tc.want {
				t.Errorf("classify = %v, want %v", got, tc.want)
			}
		})
	}
}

// countingFailures records what a reconciler counted.
type countingFailures struct{ setup, health int }

func (c *countingFailures) SetupError(client.Object)       { c.setup++ }
func (c *countingFailures) HealthCheckError(client.Object) { c.health++ }

func TestCountFailure(t *testing.T) {
	f := &countingFailures{}
	r := &Reconciler{Failures: f}
	rt := &datav1alpha1.JuiceFSRuntime{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n"}}
	r.countFailure(&scope{rt: rt}, errors.New("boom"))
	r.countFailure(&scope{rt: rt, setUp: true, obs: observations{components: &componentCounts{workers: &counts{desired: 1}}}}, nil)
	r.countFailure(&scope{rt: rt, setUp: true}, nil)
	if f.setup != 1 || f.health != 1 {
		t.Errorf("counted %+v, want one of each", *f)
	}
	(&Reconciler{}).countFailure(&scope{rt: rt}, errors.New("boom")) // no counter: nothing to count with
}
