package cachecleanup

import (
	"fmt"
	"time"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// Policy is a runtime's cleanCachePolicy with Fluid's defaults applied:
// one cleanup attempt (a pod) may take GracePeriodSeconds, and a failed
// one is retried MaxRetryAttempts times.
type Policy struct {
	GracePeriodSeconds int64
	MaxRetryAttempts   int32
}

// The CRD's defaults (Fluid's), for fields a stored object lacks.
const (
	DefaultGracePeriodSeconds = 60
	DefaultMaxRetryAttempts   = 3
)

// PolicyOf is p with the defaults for unset fields; values the field
// table refuses at admission (a grace period below 1s, negative retries)
// are raised to the least that works, so that a deletion never fails on
// them.
func PolicyOf(p datav1alpha1.CleanCachePolicy) Policy {
	out := Policy{GracePeriodSeconds: DefaultGracePeriodSeconds, MaxRetryAttempts: DefaultMaxRetryAttempts}
	if p.GracePeriodSeconds != nil {
		out.GracePeriodSeconds = max(1, int64(*p.GracePeriodSeconds))
	}
	if p.MaxRetryAttempts != nil {
		out.MaxRetryAttempts = max(0, *p.MaxRetryAttempts)
	}
	return out
}

// jobBackoff is the Job controller's wait before the n-th retry of a
// failed pod (10s, doubling, at most 6 minutes).
func jobBackoff(n int32) int64 {
	d := int64(10)
	for i := int32(1); i < n && d < 360; i++ {
		d *= 2
	}
	return min(d, 360)
}

// maxDeadline bounds the computed deadlines (about 136 years) so that
// they stay valid seconds and durations whatever the policy says.
const maxDeadline = int64(1) << 32

// JobDeadlineSeconds is how long a cleanup Job may take in all: every
// attempt its full grace period, and the back-off before each retry. It
// is the Job's activeDeadlineSeconds.
func (p Policy) JobDeadlineSeconds() int64 {
	total := p.GracePeriodSeconds
	for n := int32(1); n <= p.MaxRetryAttempts && total < maxDeadline; n++ {
		total += jobBackoff(n) + p.GracePeriodSeconds
	}
	return min(total, maxDeadline)
}

// GiveUpSlack is how long after a Job's deadline the controller waits for
// the Job controller to report it before giving the Job up itself (a
// cluster whose Job controller does not run must not wedge a deletion).
const GiveUpSlack = 10 * time.Second

// GiveUpAfter is how long after its start the controller gives up a
// cleanup Job that has not finished.
func (p Policy) GiveUpAfter() time.Duration {
	return time.Duration(p.JobDeadlineSeconds())*time.Second + GiveUpSlack
}

// String describes the bounds, for messages.
func (p Policy) String() string {
	return fmt.Sprintf("gracePeriodSeconds %d, maxRetryAttempts %d", p.GracePeriodSeconds, p.MaxRetryAttempts)
}
