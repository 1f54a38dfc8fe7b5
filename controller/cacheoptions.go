package controller

import (
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/sluice-data/sluice/controller/cachetrim"
)

// CacheOptions shape the controller's informer cache (audit N9): every
// object is cached without its managedFields, and Pods and
// PersistentVolumeClaims, which tenants create in any number and fill as
// they like, only with what the controller reads (cachetrim), so the
// cache grows by about a kilobyte a Pod whatever is in it.
func CacheOptions() cache.Options {
	return cache.Options{DefaultTransform: cachetrim.Transform}
}
