package guards

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/trust"
)

// Facts are the values of an object that the default guards judge
// (policies/validating/guards.rego): what a namespace user could use to
// reach the node through the pods an engine runs. Each value names its
// field; Unchanged marks one the old object had at the same field on
// UPDATE, which the guards leave alone (an object stored before a guard
// was tightened stays updatable).
type Facts struct {
	// Images a runtime sets, repository only (tag and digest cut off).
	Images []Value `json:"images"`
	// TierPaths are the runtime's tieredstore paths, one per path of a
	// comma-separated list (JuiceFS: ',' or ':'), and the cache
	// directories its options name (guards_options.go); HostPath says
	// whether the level is a hostPath (the default volume type) rather
	// than an emptyDir.
	TierPaths []Value `json:"tierPaths"`
	// HostPathVolumes are the host paths of the runtime's spec.volumes.
	HostPathVolumes []Value `json:"hostPathVolumes"`
	// LocalMounts are the host paths of a Dataset's local:// mounts and
	// restore location, and of a DataBackup's or DataMigrate's local://
	// locations.
	LocalMounts []Value `json:"localMounts"`
	// Tolerations are the taint keys a spec's tolerations tolerate ("" for
	// one tolerating every taint): of a Dataset (its engine's pods), a
	// JindoRuntime, a DataLoad, a DataMigrate and a DataProcess's pod.
	Tolerations []Value `json:"tolerations"`
	// Privileges are the host privileges of a DataProcess's pod spec:
	// hostNetwork, hostPID, hostIPC, privileged, "capability <NAME>".
	Privileges []Value `json:"privileges"`
	// Privileged are the values a runtime sets in fields that reach a
	// container with host privileges (trust.Privileged; rule
	// privileged-container in guards_privileged.rego).
	Privileged []PrivilegedValue `json:"privileged"`
	// Thin is a ThinRuntime's overrides of its profile; nil for other
	// objects and for a ThinRuntime without spec.profileName.
	Thin *ThinFacts `json:"thin,omitempty"`
}

// Value is one judged value at its field path.
type Value struct {
	Path      string `json:"path"`
	Value     string `json:"value"`
	HostPath  bool   `json:"hostPath,omitempty"`
	Unchanged bool   `json:"unchanged"`
}

// ThinFacts are a ThinRuntime's overrides of its ThinRuntimeProfile.
type ThinFacts struct {
	// Profile is the profile's name; Exists whether it exists.
	Profile string `json:"profile"`
	Exists  bool   `json:"exists"`
	// Allows are the override kinds the profile's annotation
	// data.sluice.io/allow-overrides lists.
	Allows []string `json:"allows"`
	// Overrides are the fields that override the profile: Value is the
	// kind (image, command or volumes).
	Overrides []Value `json:"overrides"`
}

// OfUpdate lists the judged values of obj (nil when it has none), and
// marks those old has too.
func OfUpdate(obj, old client.Object) Facts {
	f := Of(obj)
	if old == nil || reflect.ValueOf(old).IsNil() {
		return f
	}
	was := Of(old)
	MarkUnchanged(f.Images, was.Images)
	MarkUnchanged(f.TierPaths, was.TierPaths)
	MarkUnchanged(f.HostPathVolumes, was.HostPathVolumes)
	MarkUnchanged(f.LocalMounts, was.LocalMounts)
	MarkUnchanged(f.Tolerations, was.Tolerations)
	MarkUnchanged(f.Privileges, was.Privileges)
	for i, v := range f.Privileged {
		// o.Value and v.Value are whole trust.Values: path, field and value.
		f.Privileged[i].Unchanged = slices.ContainsFunc(was.Privileged, func(o PrivilegedValue) bool { return o.Value == v.Value })
	}
	return f
}

// PrivilegedValue is a trust.Value as the guards judge it: Unchanged
// when the old object had it at the same field.
type PrivilegedValue struct {
	trust.Value
	Unchanged bool `json:"unchanged"`
}

func MarkUnchanged(cur, old []Value) {
	for i := range cur {
		for _, o := range old {
			if o.Path == cur[i].Path && o.Value == cur[i].Value {
				cur[i].Unchanged = true
			}
		}
	}
}

func Of(obj client.Object) Facts {
	f := Facts{Images: []Value{}, TierPaths: []Value{}, HostPathVolumes: []Value{}, LocalMounts: []Value{},
		Tolerations: []Value{}, Privileges: []Value{}, Privileged: []PrivilegedValue{}}
	if ds, ok := obj.(*datav1alpha1.Dataset); ok {
		for i, m := range ds.Spec.Mounts {
			f.LocalMounts = append(f.LocalMounts, localLocation(fmt.Sprintf("spec.mounts[%d].mountPoint", i), m.MountPoint)...)
		}
		if l := ds.Spec.DataRestoreLocation; l != nil {
			f.LocalMounts = append(f.LocalMounts, localLocation("spec.dataRestoreLocation.path", l.Path)...)
		}
		f.Tolerations = append(f.Tolerations, tolerationValues("spec.tolerations", ds.Spec.Tolerations)...)
		return f
	}
	r, ok := obj.(datav1alpha1.RuntimeObject)
	if !ok {
		operationGuards(obj, &f)
		return f
	}
	for _, ts := range r.GetTolerations() {
		f.Tolerations = append(f.Tolerations, tolerationValues(ts.Path, ts.Tolerations)...)
	}
	for i, l := range r.GetTieredStore().Levels {
		hostPath := l.VolumeType == "" || l.VolumeType == datav1alpha1.VolumeTypeHostPath
		for _, p := range tierPaths(obj, l.Path) {
			f.TierPaths = append(f.TierPaths, Value{Path: fmt.Sprintf("spec.tieredstore.levels[%d].path", i), Value: p, HostPath: hostPath})
		}
	}
	f.TierPaths = append(f.TierPaths, optionTierPaths(obj)...)
	for _, im := range r.GetImages() {
		if im.Image != "" {
			f.Images = append(f.Images, Value{Path: im.Path, Value: Repository(im.Image)})
		}
	}
	f.HostPathVolumes = append(f.HostPathVolumes, hostPaths("spec.volumes", r.GetVolumes())...)
	for _, v := range trust.Privileged(obj) {
		f.Privileged = append(f.Privileged, PrivilegedValue{Value: v})
	}
	return f
}

// Repository cuts the tag or digest off an image reference: the guards
// judge where an image comes from, not which version it is.
func Repository(image string) string {
	image = strings.TrimSpace(image)
	if at := strings.Index(image, "@"); at >= 0 {
		image = image[:at]
	}
	if colon := strings.LastIndex(image, ":"); colon > strings.LastIndex(image, "/") {
		image = image[:colon]
	}
	return image
}
