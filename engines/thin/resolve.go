package thin

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// ReasonProfileNotFound: the ThinRuntimeProfile a ThinRuntime names does
// not exist (yet); the runtime waits for it.
const ReasonProfileNotFound = "ProfileNotFound"

// ResolveValues implements engines.Resolver: it reads the runtime's
// ThinRuntimeProfile and returns the chart values of the merged spec.
func (Engine) ResolveValues(ctx context.Context, r client.Reader, ds *datav1alpha1.Dataset, obj client.Object) (map[string]any, error) {
	rt, profile, err := withProfile(ctx, r, obj)
	if err != nil {
		return nil, err
	}
	return ValuesFor(ds, profile, rt)
}

// withProfile returns obj as a ThinRuntime with its profile.
func withProfile(ctx context.Context, r client.Reader, obj client.Object) (*datav1alpha1.ThinRuntime, *datav1alpha1.ThinRuntimeProfile, error) {
	rt, ok := obj.(*datav1alpha1.ThinRuntime)
	if !ok {
		return nil, nil, engines.Invalid("the Thin engine serves ThinRuntimes, not %T", obj)
	}
	profile, err := Profile(ctx, r, rt)
	return rt, profile, err
}

// Profile reads the ThinRuntimeProfile that rt's spec.profileName names.
// No name is an InvalidSpec error and a missing profile a ProfileNotFound
// error (both *engines.Error); other errors are the API server's.
func Profile(ctx context.Context, r client.Reader, rt *datav1alpha1.ThinRuntime) (*datav1alpha1.ThinRuntimeProfile, error) {
	name := rt.Spec.ProfileName
	if name == "" {
		return nil, engines.Invalid("ThinRuntime %s/%s: spec.profileName is empty; a ThinRuntime needs a ThinRuntimeProfile that describes its FUSE program",
			rt.Namespace, rt.Name)
	}
	profile := &datav1alpha1.ThinRuntimeProfile{}
	if err := r.Get(ctx, client.ObjectKey{Name: name}, profile); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, &engines.Error{Reason: ReasonProfileNotFound, Err: fmt.Errorf(
				"ThinRuntime %s/%s: ThinRuntimeProfile %q (spec.profileName) does not exist", rt.Namespace, rt.Name, name)}
		}
		return nil, fmt.Errorf("reading ThinRuntimeProfile %q of ThinRuntime %s/%s: %w", name, rt.Namespace, rt.Name, err)
	}
	return profile, nil
}

// MountTypeFrom returns a function that reads a ThinRuntime's profile with
// r and returns its MountType, the shape of the runtime reconciler's
// MountType field.
func MountTypeFrom(r client.Reader) func(context.Context, client.Object) (string, error) {
	return func(ctx context.Context, obj client.Object) (string, error) {
		_, profile, err := withProfile(ctx, r, obj)
		if err != nil {
			return "", err
		}
		return MountType(profile), nil
	}
}
