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

// Resolve implements engines.Resolver: it reads the runtime's
// ThinRuntimeProfile, once, and returns the ProfileEngine that renders,
// sizes and mounts the runtime with it.
func (e Engine) Resolve(ctx context.Context, r client.Reader, obj client.Object) (engines.Engine, error) {
	rt, err := thinRuntime(obj)
	if err != nil {
		return nil, err
	}
	profile, err := Profile(ctx, r, rt)
	if err != nil {
		return nil, err
	}
	return ProfileEngine{Profile: profile, SluiceImage: e.SluiceImage}, nil
}

// thinRuntime returns obj as a ThinRuntime.
func thinRuntime(obj client.Object) (*datav1alpha1.ThinRuntime, error) {
	rt, ok := obj.(*datav1alpha1.ThinRuntime)
	if !ok {
		return nil, engines.Invalid("the Thin engine serves ThinRuntimes, not %T", obj)
	}
	return rt, nil
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
