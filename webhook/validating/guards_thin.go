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
	f := &guards.ThinFacts{Profile: rt.Spec.ProfileName, Allows: []string{}}
	profile := &datav1alpha1.ThinRuntimeProfile{}
	found, err := g.get(ctx, types.NamespacedName{Name: rt.Spec.ProfileName}, profile)
	if err != nil {
		return nil, fmt.Errorf("reading ThinRuntimeProfile %s: %w", rt.Spec.ProfileName, err)
	}
	if found {
		f.Exists = true
		f.Allows = guards.SplitList(profile.Annotations[datav1alpha1.AnnotationAllowOverrides])
	} else {
		profile = &datav1alpha1.ThinRuntimeProfile{}
	}
	f.Overrides = guards.ThinOverrides(&profile.Spec, rt)
	if old != nil {
		guards.MarkUnchanged(f.Overrides, guards.ThinOverrides(&profile.Spec, old))
	}
	return f, nil
}
