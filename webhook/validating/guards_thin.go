package validating

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/trust/guards"
)

// thinGuards are a ThinRuntime's overrides of its profile (read from the
// cache), which engines/thin.Merge lets win: an image (fuse or worker), a
// command or args, a volume the profile does not have as it is. A value
// equal to the profile's is no override. On UPDATE an override the old
// object made too is Unchanged.
func (g *Gatherer) thinGuards(ctx context.Context, rt, old *datav1alpha1.ThinRuntime) (*guards.ThinFacts, error) {
	if rt.Spec.ProfileName == "" {
		return nil, nil
	}
	profile := &datav1alpha1.ThinRuntimeProfile{}
	found, err := g.get(ctx, types.NamespacedName{Name: rt.Spec.ProfileName}, profile)
	if err != nil {
		return nil, fmt.Errorf("reading ThinRuntimeProfile %s: %w", rt.Spec.ProfileName, err)
	}
	if !found {
		profile = nil
	}
	f := guards.ThinOf(profile, rt)
	if old != nil {
		spec := &datav1alpha1.ThinRuntimeProfileSpec{}
		if profile != nil {
			spec = &profile.Spec
		}
		guards.MarkUnchanged(f.Overrides, guards.ThinOverrides(spec, old))
	}
	return f, nil
}
