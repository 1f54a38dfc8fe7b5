package guards

import (
	"fmt"
	"reflect"
	"slices"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// ThinOverrides are the fields of rt that override its profile p, which
// engines/thin.Merge lets win: an image (fuse or worker), a command or
// args, a volume the profile does not have as it is; Value is the kind
// (image, command or volumes). A value equal to the profile's is no
// override.
func ThinOverrides(p *datav1alpha1.ThinRuntimeProfileSpec, rt *datav1alpha1.ThinRuntime) []Value {
	out := []Value{}
	add := func(path, kind string) { out = append(out, Value{Path: path, Value: kind}) }
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

// ThinOf are a ThinRuntime's overrides of its profile, named by
// spec.profileName: profile is that profile, nil when it does not exist
// (every set value then overrides). Nil for a ThinRuntime without a
// profile.
func ThinOf(profile *datav1alpha1.ThinRuntimeProfile, rt *datav1alpha1.ThinRuntime) *ThinFacts {
	if rt.Spec.ProfileName == "" {
		return nil
	}
	f := &ThinFacts{Profile: rt.Spec.ProfileName, Allows: []string{}}
	if profile != nil {
		f.Exists = true
		f.Allows = datav1alpha1.SplitList(profile.Annotations[datav1alpha1.AnnotationAllowOverrides])
	} else {
		profile = &datav1alpha1.ThinRuntimeProfile{}
	}
	f.Overrides = ThinOverrides(&profile.Spec, rt)
	return f
}
