package statuspatch

import (
	"context"
	"fmt"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Write applies change to a copy of stored (the object as read) and, if
// change says it changed anything, writes the copy (its status, unless
// Object) in one merge patch with stored's resourceVersion as its
// precondition: a write of
// another party in between is never overwritten, and no field is left out
// of the patch because a stale read happened to hold its new value. When
// the patch is refused (a conflict: the read was stale, most often behind
// the caller's own last write), the object is read from live (the API
// server, not the cache) and change applied to a copy of that, once
// (Rereads): a change that no longer applies is not written, nor
// announced twice.
//
// prev is the object change was last applied to (stored, or as read from
// live), whose status the write replaced; written is the object as
// written, the zero T (nil) when nothing was. An error of the patch or the
// read is returned as it is (callers ignore NotFound where a gone object
// is not one); a patch refused after the last read is wrapped.
func Write[T client.Object](ctx context.Context, c client.Client, live client.Reader, stored T, change func(T) bool, opts ...Option) (prev, written T, err error) {
	o := options{rereads: 1}
	for _, opt := range opts {
		opt(&o)
	}
	prev = stored
	for attempt := 0; ; attempt++ {
		obj := prev.DeepCopyObject().(T)
		if !change(obj) {
			return prev, written, nil
		}
		patch := client.MergeFromWithOptions(prev, client.MergeFromWithOptimisticLock{})
		if o.object {
			err = c.Patch(ctx, obj, patch)
		} else {
			err = c.Status().Patch(ctx, obj, patch)
		}
		switch {
		case err == nil:
			return prev, obj, nil
		case !apierrors.IsConflict(err):
			return prev, written, err
		case attempt >= o.rereads:
			return prev, written, fmt.Errorf("writing %s: %w", o.what(prev), err)
		}
		// A new object to read into: decoding into a used one would keep
		// the map entries and fields the stored object no longer has.
		fresh := reflect.New(reflect.TypeOf(prev).Elem()).Interface().(T)
		if err := live.Get(ctx, client.ObjectKeyFromObject(prev), fresh); err != nil {
			return prev, written, err
		}
		prev = fresh
	}
}

// Option changes how Write writes.
type Option func(*options)

type options struct {
	rereads int
	object  bool
}

// Rereads is how many times a refused patch has the object read again and
// the change applied again (1 without this option).
func Rereads(n int) Option {
	return func(o *options) { o.rereads = n }
}

// Object writes the object itself (its metadata, such as a finalizer)
// rather than its status subresource.
func Object() Option {
	return func(o *options) { o.object = true }
}

// what names the write in an error: "the status of Dataset ns/name".
func (o options) what(obj client.Object) string {
	name := reflect.TypeOf(obj).Elem().Name() + " " + client.ObjectKeyFromObject(obj).String()
	if o.object {
		return name
	}
	return "the status of " + name
}
