package engines

import (
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CacheFreer is implemented by engines that free a runtime's cache
// through the engine itself while it still runs (Alluxio: alluxio fs
// free), before its release is uninstalled. Every engine's deleted runtime
// also gets its host cache directories removed on the nodes that held
// them (engines/cachecleanup); freeing is a step ahead of that.
type CacheFreer interface {
	// FreeCache is the pod of the Job that frees rt's cache: argv lists,
	// no shell; the cleanup adds its restart policy and deadline.
	FreeCache(rt client.Object) (corev1.PodSpec, error)
}
