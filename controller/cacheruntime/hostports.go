package cacheruntime

import (
	"context"
	"errors"
	"maps"
	"reflect"

	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/hostports"
	"github.com/sluice-data/sluice/controller/internal/statuspatch"
	"github.com/sluice-data/sluice/engines"
)

// assignHostPorts settles the ports of the runtime's components on the
// host network (engines.HostPorter: hand-set ones as they are, the others
// from r.HostPorts) and records them in its status.hostPorts before the
// release is rendered from them: the record is written first, so that a
// port a release listens on is always one the API server holds for its
// runtime, which a restarted controller or a new leader reads back. The
// reconcile goes on with the runtime as written. Too few free ports in
// the range is a *hostports.ExhaustedError.
func (r *Reconciler) assignHostPorts(ctx context.Context, s *scope, eng engines.Engine) error {
	hp, ok := eng.(engines.HostPorter)
	if !ok || r.HostPorts == nil {
		return nil
	}
	want, err := hp.HostPorts(s.rt)
	if err != nil {
		return err
	}
	ports, err := r.HostPorts.Assign(ctx, r.holder(client.ObjectKeyFromObject(s.rt)), want)
	if err != nil {
		return err
	}
	prev, written, err := statuspatch.Write(ctx, r.Client, r.reader(), s.rt, func(rt datav1alpha1.RuntimeObject) bool {
		st := rt.GetRuntimeStatus()
		if maps.Equal(st.HostPorts, ports) {
			return false
		}
		st.HostPorts = ports
		return true
	})
	switch {
	case err != nil:
		return err
	case written != nil:
		r.writes.Wrote(client.ObjectKeyFromObject(written), prev.GetResourceVersion(), written.DeepCopyObject().(datav1alpha1.RuntimeObject))
		s.rt = written
	default:
		// Recorded already (prev is the runtime as read, or as read again
		// from the API server after a refused write).
		s.rt = prev
	}
	return nil
}

// releaseHostPorts frees the host ports of a runtime that is gone.
func (r *Reconciler) releaseHostPorts(key client.ObjectKey) {
	if r.HostPorts != nil {
		r.HostPorts.Release(r.holder(key))
	}
}

// holder names the runtime of the reconciler's kind with key in the
// allocator: by its kind, as the runtimes' records are read
// (hostports.Records), whatever the engine's type.
func (r *Reconciler) holder(key client.ObjectKey) hostports.Holder {
	// The kinds of api/v1alpha1 are their Go types' names.
	kind := reflect.TypeOf(r.Engine.NewObject()).Elem().Name()
	return hostports.Holder{Kind: kind, Namespace: key.Namespace, Name: key.Name}
}

// exhausted says err is a host port range without enough free ports.
func exhausted(err error) bool {
	var ex *hostports.ExhaustedError
	return errors.As(err, &ex)
}
