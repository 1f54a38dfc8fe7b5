package helm

import (
	"fmt"
	"time"

	"helm.sh/helm/v3/pkg/release"
)

// DefaultRetryBase is how long Ensure waits before it tries again chart
// and values whose last upgrade (or install) failed; each further failure
// doubles the wait, up to maxRetryWait.
const DefaultRetryBase = time.Minute

// maxRetryWait caps the wait between two attempts at the same chart and
// values.
const maxRetryWait = 15 * time.Minute

// RetryAfter is Ensure's error when the desired chart and values failed
// to deploy: the release was rolled back (or left uninstalled) and is not
// tried again before When. It carries what Helm recorded of the failure,
// for the runtime's condition.
type RetryAfter struct {
	// Attempts is how many recorded revisions with the desired chart and
	// values failed (the release keeps at most MaxHistory revisions).
	Attempts int
	// Failed is when the last of them failed.
	Failed time.Time
	// When is the earliest time of the next attempt.
	When time.Time
	// Cause is Helm's description of the last failure.
	Cause string
	// Deployed says whether the release has a good revision to keep (else
	// it never deployed, and is installed again).
	Deployed bool
	// Unrestored says that the good revision was not restored: this
	// controller process does not know its chart and values, and the
	// stored ones are not trusted (lastgood.go), so the release stays as
	// the failed attempt left it.
	Unrestored bool
}

func (e *RetryAfter) Error() string {
	kept := "it has no good revision yet"
	switch {
	case e.Deployed && e.Unrestored:
		kept = "its last good revision is not restored (this controller process did not deploy it, and the stored record is not trusted), so it stays as the failed attempt left it"
	case e.Deployed:
		kept = "it keeps its last good revision"
	}
	return fmt.Sprintf("the release failed with the current spec (%d attempt(s), the last at %s: %s); %s, and the spec is tried again after %s",
		e.Attempts, e.Failed.UTC().Format(time.RFC3339), e.Cause, kept, e.When.UTC().Format(time.RFC3339))
}

// failedAttempts finds the revisions of history (latest first) that failed
// with the desired chart and values, and returns when they may be tried
// again; nil when none did.
func failedAttempts(history []*release.Release, d Desired, base time.Duration) *RetryAfter {
	var r *RetryAfter
	deployed := false
	for _, rel := range history {
		if rel.Info != nil && (rel.Info.Status == release.StatusDeployed || rel.Info.Status == release.StatusSuperseded) {
			deployed = true
		}
		// A record abandoned by a dead process (stale.go) is no attempt:
		// the spec did not fail, the process did.
		if rel.Info == nil || rel.Info.Status != release.StatusFailed || rel.Labels[abandonedLabel] == "true" ||
			!sameChart(rel.Chart, d.Chart) || !sameValues(rel.Config, d.Values) {
			continue
		}
		if r == nil {
			r = &RetryAfter{Failed: rel.Info.LastDeployed.Time, Cause: rel.Info.Description}
		}
		r.Attempts++
	}
	if r == nil {
		return nil
	}
	r.When, r.Deployed = r.Failed.Add(retryWait(base, r.Attempts)), deployed
	return r
}

// retryWait is the wait after the given number of failed attempts: base,
// doubled for each earlier failure, at most maxRetryWait.
func retryWait(base time.Duration, attempts int) time.Duration {
	if base <= 0 {
		base = DefaultRetryBase
	}
	wait := base
	for i := 1; i < attempts && wait < maxRetryWait; i++ {
		wait *= 2
	}
	return min(wait, maxRetryWait)
}
