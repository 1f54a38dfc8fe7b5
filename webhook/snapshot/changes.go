package snapshot

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// InformerGetter returns the informer of an object's kind; the webhook's
// cache is one.
type InformerGetter interface {
	GetInformer(ctx context.Context, obj client.Object, opts ...cache.InformerGetOption) (cache.Informer, error)
}

// Changes stamps every object its informers deliver with a sequence number
// that grows with each add, update and delete, so that a dataset volume
// built from some objects can tell, without reading them again, whether any
// of them has changed since: it has not if each still has the stamp it had
// when it was read. A deleted object loses its stamp (0, as for one never
// seen), and a re-created one gets a new stamp, so no two states of an
// object share a stamp.
type Changes struct {
	seq      atomic.Uint64
	tracking atomic.Bool
	// kinds are the tracked Go types; written by Track before tracking
	// starts, read-only after.
	kinds  map[reflect.Type]bool
	mu     sync.RWMutex
	stamps map[objectKey]uint64
	// counts are the stamped objects of each kind.
	counts map[reflect.Type]int
}

// objectKey identifies an object by Go type, namespace and name.
type objectKey struct {
	kind            reflect.Type
	namespace, name string
}

func keyOf(obj client.Object) objectKey { return keyFor(obj, client.ObjectKeyFromObject(obj)) }

// keyFor is the key of the object of obj's kind that key names (obj need
// not have been read yet).
func keyFor(obj client.Object, key client.ObjectKey) objectKey {
	return objectKey{kind: reflect.TypeOf(obj), namespace: key.Namespace, name: key.Name}
}

// Track stamps the objects of each kind from now on. Objects already in the
// informers are stamped as their informers replay them to the new handler;
// until Track returns, Tracking is false and nothing is remembered.
func (c *Changes) Track(ctx context.Context, informers InformerGetter, kinds ...client.Object) error {
	if c.tracking.Load() {
		return fmt.Errorf("changes are tracked already")
	}
	c.kinds = map[reflect.Type]bool{}
	for _, obj := range kinds {
		inf, err := informers.GetInformer(ctx, obj)
		if err != nil {
			return fmt.Errorf("watching %T for changes: %w", obj, err)
		}
		if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc:    func(o any) { c.stamp(o, false) },
			UpdateFunc: func(_, o any) { c.stamp(o, false) },
			DeleteFunc: func(o any) { c.stamp(o, true) },
		}); err != nil {
			return fmt.Errorf("watching %T for changes: %w", obj, err)
		}
		c.kinds[reflect.TypeOf(obj)] = true
	}
	c.tracking.Store(true)
	return nil
}

// Tracking reports whether Track has registered its handlers.
func (c *Changes) Tracking() bool { return c != nil && c.tracking.Load() }

func (c *Changes) stamp(o any, deleted bool) {
	if d, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
		o, deleted = d.Obj, true
	}
	obj, ok := o.(client.Object)
	if !ok {
		return
	}
	k := keyOf(obj)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stamps == nil {
		c.stamps, c.counts = map[objectKey]uint64{}, map[reflect.Type]int{}
	}
	_, known := c.stamps[k]
	switch {
	case deleted && known:
		delete(c.stamps, k)
		c.counts[k.kind]--
	case deleted:
	default:
		if !known {
			c.counts[k.kind]++
		}
		c.stamps[k] = c.seq.Add(1)
	}
}

// Count is how many objects of obj's kind the informers hold, as stamped;
// 0 when c is nil or does not track the kind.
func (c *Changes) Count(obj client.Object) int {
	if c == nil {
		return 0
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.counts[reflect.TypeOf(obj)]
}

// Tracks reports whether objects of obj's kind are stamped.
func (c *Changes) Tracks(obj client.Object) bool { return c.Tracking() && c.kinds[reflect.TypeOf(obj)] }

// stampOf returns the current stamp of the object k names (0 if it does
// not exist or was never seen).
func (c *Changes) stampOf(k objectKey) uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.stamps[k]
}

// dependency is one object a remembered value was built from, with the
// stamp it had just before it was read.
type dependency struct {
	key   objectKey
	stamp uint64
}

// unchanged reports whether every dependency still has its stamp.
func (c *Changes) unchanged(deps []dependency) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, d := range deps {
		if c.stamps[d.key] != d.stamp {
			return false
		}
	}
	return true
}
