package specialise

import (
	"context"
	"errors"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/sluice-data/sluice/webhook/internal/opalock"
	webhookmetrics "github.com/sluice-data/sluice/webhook/metrics"
)

// A build waiting for the OPA lock when its bundle is replaced is skipped
// (counted as such), the class keeps the general query with the same
// result, and a retired Specialiser starts no build for a new class.
func TestRetiredSpecialiserSkipsQueuedBuilds(t *testing.T) {
	ctx := context.Background()
	wait := false
	c := mustCompile(t, bundleWith(specModule), &wait, q)
	skipped := testutil.ToFloat64(webhookmetrics.SpecialisedQueries.WithLabelValues(c.spec.name, "skipped"))
	in := specInput("a", "on", "c", "")
	var v *variant
	_ = opalock.Do(func() error {
		v = c.spec.variant(classOf(c.spec.probes, in)) // its build waits for the lock
		c.spec.Retire()
		return nil
	})
	<-v.done
	if !errors.Is(v.err, errRetired) {
		t.Fatalf("the queued build ended with %v, want it skipped", v.err)
	}
	if got := testutil.ToFloat64(webhookmetrics.SpecialisedQueries.WithLabelValues(c.spec.name, "skipped")) - skipped; got != 1 {
		t.Errorf("%v builds counted as skipped, want 1", got)
	}
	if _, ok, _ := c.spec.ForInput(ctx, in); ok {
		t.Error("a skipped class got a specialised query")
	}
	if c.spec.variant(classOf(c.spec.probes, specInput("b", "off", "c", ""))) != nil {
		t.Error("a retired Specialiser started a build for a new class")
	}
	general, err := c.eval(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	fresh := mustCompile(t, bundleWith(specModule), nil, q)
	if want, _ := fresh.eval(ctx, in); general.Compare(want) != 0 {
		t.Errorf("retired: %v, general query: %v", general, want)
	}
}
