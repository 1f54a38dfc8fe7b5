package validating

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// thinGuards are a ThinRuntime's overrides of its profile (read from the
// cache), which engines/thin.Merge lets win: an image (fuse or worker), a
// command or args, a volume the profile does not have as it is. A value
// equal to the profile's is no override. On UPDATE an override the old
// object made too is Unchanged.
func (g *Gatherer) thinGuards(ctx context.Context, rt, old *datav1alpha1.ThinRuntime) (*ThinGuardFacts, error) {
	if rt.Spec.ProfileName == "" {
		return nil, nil
	}
	f := &ThinGuardFacts{Profile: rt.Spec.ProfileName, Allows: []string{}}
	profile := &datav1alpha1.ThinRuntimeProfile{}
	found, err := g.get(ctx, types.NamespacedName{Name: rt.Spec.ProfileName}, profile)
	if err != nil {
		return nil, fmt.Errorf("reading ThinRuntimeProfile %s: %w", rt.Spec.ProfileName, err)
	}
	if found {
		f.Exists = true
		f.Allows = splitList(profile.Annotations[datav1alpha1.AnnotationAllowOverrides])
	} else {
		profile = &datav1alpha1.ThinRuntimeProfile{}
	}
	f.Overrides = thinOverrides(&profile.Spec, rt)
	if old != nil {
		markUnchanged(f.Overrides, thinOverrides(&profile.Spec, old))
	}
	return f, nil
}

func thinOverrides(p *datav1alpha1.ThinRuntimeProfileSpec, rt *datav1alpha1.ThinRuntime) []GuardValue {
	out := []GuardValue{}
	add := func(path, kind string) { out = append(out, GuardValue{Path: path, Value: kind}) }
	r := &rt.Spec
	if r.Fuse.Image != "" && r.Fuse.Image != p.Fuse.Image {
		add("spec.fuse.image", "image")
	}
	if r.Worker.Image != "" && r.Worker.Image != p.Worker.Image {
		add("spec.worker.image", "image")
	}
	if len(r.Fuse.Command) > 0 && !slices.Equal(r.Fuse.Command, p.Fuse.Command) {
		add("spec.fuse.command", "command")
	}
	if len(r.Fuse.Args) > 0 && !slices.Equal(r.Fuse.Args, p.Fuse.Args) {
		add("spec.fuse.args", "command")
	}
	for i, v := range r.Volumes {
		same := slices.ContainsFunc(p.Volumes, func(pv corev1.Volume) bool { return reflect.DeepEqual(pv, v) })
		if !same {
			add(fmt.Sprintf("spec.volumes[%d]", i), "volumes")
		}
	}
	return out
}
