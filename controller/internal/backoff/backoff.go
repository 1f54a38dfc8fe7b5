package backoff

import (
	"time"

	"golang.org/x/time/rate"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Max is the longest wait after failed reconciles of one object.
const Max = 30 * time.Second

// RateLimiter is controller-runtime's default (per object 5 ms doubling
// with each failure, at most 10 requeues a second overall) with the
// per-object wait capped at Max instead of 1,000 s. A reconcile makes
// tens of API requests; while the API server fails a few percent of them
// (overload, a restart, a flaky load balancer), an object fails many
// reconciles in a row, and under the default cap it would wait up to
// 16 minutes after the API server recovered (tests/faults).
func RateLimiter() workqueue.TypedRateLimiter[reconcile.Request] {
	return workqueue.NewTypedMaxOfRateLimiter(
		workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](5*time.Millisecond, Max),
		&workqueue.TypedBucketRateLimiter[reconcile.Request]{Limiter: rate.NewLimiter(rate.Limit(10), 100)},
	)
}
