package decision

import (
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// DecodeMutating converts a policy result into a Mutating decision. It
// rejects documents that do not fit the schema, naming the offending path,
// so that a policy that returns a wrong shape denies with a clear error
// rather than half-applying.
func DecodeMutating(v ast.Value) (*Mutating, error) {
	out := &Mutating{}
	d := newDecoder()
	err := d.object(v, func(k string, e ast.Value) (bool, error) {
		switch k {
		case "deny":
			return true, d.denials(e, &out.Deny)
		case "warnings":
			return true, d.strings(e, &out.Warnings)
		case "affinity":
			return true, d.object(e, func(k string, e ast.Value) (bool, error) {
				switch k {
				case "required":
					return true, d.requirements(e, &out.Affinity.Required)
				case "requiredTerms":
					return true, d.list(e, func(_ int, e ast.Value) error {
						var t corev1.NodeSelectorTerm
						err := d.term(e, &t)
						out.Affinity.RequiredTerms = append(out.Affinity.RequiredTerms, t)
						return err
					})
				case "preferred":
					return true, d.list(e, func(_ int, e ast.Value) error {
						var p corev1.PreferredSchedulingTerm
						err := d.preferred(e, &p)
						out.Affinity.Preferred = append(out.Affinity.Preferred, p)
						return err
					})
				}
				return false, nil
			})
		case "mountPropagation":
			return true, d.list(e, func(_ int, e ast.Value) error {
				var m MountPropagation
				err := d.object(e, func(k string, e ast.Value) (bool, error) {
					switch k {
					case "volume":
						return true, d.str(e, &m.Volume)
					case "mode":
						var s string
						err := d.str(e, &s)
						m.Mode = corev1.MountPropagationMode(s)
						return true, err
					}
					return false, nil
				})
				if err == nil {
					err = d.oncePerVolume(m.Volume, len(out.MountPropagation), func(i int) string { return out.MountPropagation[i].Volume })
				}
				out.MountPropagation = append(out.MountPropagation, m)
				return err
			})
		case "annotations":
			return true, d.stringMap(e, &out.Annotations)
		case "labels":
			return true, d.stringMap(e, &out.Labels)
		case "volumeRewrites":
			return true, d.list(e, func(_ int, e ast.Value) error {
				var r VolumeRewrite
				err := d.object(e, func(k string, e ast.Value) (bool, error) {
					switch k {
					case "volume":
						return true, d.str(e, &r.Volume)
					case "hostPath":
						return true, d.str(e, &r.HostPath)
					case "subPath":
						return true, d.str(e, &r.SubPath)
					}
					return false, nil
				})
				if err == nil {
					err = d.oncePerVolume(r.Volume, len(out.VolumeRewrites), func(i int) string { return out.VolumeRewrites[i].Volume })
				}
				out.VolumeRewrites = append(out.VolumeRewrites, r)
				return err
			})
		case "sidecars":
			return true, d.list(e, func(_ int, e ast.Value) error {
				var s Sidecar
				err := d.sidecar(e, &s)
				if err == nil {
					err = d.oncePerVolume(s.Volume, len(out.Sidecars), func(i int) string { return out.Sidecars[i].Volume })
				}
				out.Sidecars = append(out.Sidecars, s)
				return err
			})
		case "appPostStart":
			return true, d.list(e, func(_ int, e ast.Value) error {
				var a AppPostStart
				err := d.appPostStart(e, &a)
				if err == nil {
					err = d.oncePerContainer(a.Container, len(out.AppPostStart), func(i int) string { return out.AppPostStart[i].Container })
				}
				out.AppPostStart = append(out.AppPostStart, a)
				return err
			})
		}
		return false, nil
	})
	if err != nil {
		return nil, fmtSchemaError(err)
	}
	return out, nil
}

// oncePerVolume fails when one of the n entries decoded before names the
// same volume: two different entries for one volume (two sidecars, two
// host paths, two modes) cannot both be applied. A policy yields them when
// two rules give one value two ways, which the prepared queries do not
// report as a conflict (docs/design/policy-decision.md).
func (d *decoder) oncePerVolume(volume string, n int, volumeOf func(int) string) error {
	for i := range n {
		if volumeOf(i) == volume {
			return d.errorf("a second entry for volume %q (the first is [%d]); give one per volume", volume, i)
		}
	}
	return nil
}

func (d *decoder) sidecar(v ast.Value, s *Sidecar) error {
	return d.object(v, func(k string, e ast.Value) (bool, error) {
		switch k {
		case "volume":
			return true, d.str(e, &s.Volume)
		case "dataset":
			return true, d.str(e, &s.Dataset)
		case "mountPath":
			return true, d.str(e, &s.MountPath)
		case "mode":
			var m string
			err := d.str(e, &m)
			s.Mode = SidecarMode(m)
			return true, err
		case "unprivileged":
			return true, d.boolean(e, &s.Unprivileged)
		case "readinessGate":
			return true, d.boolean(e, &s.ReadinessGate)
		case "env":
			return true, d.env(e, &s.Env)
		case "resources":
			return true, d.resources(e, &s.Resources)
		case "uniqueHostPath":
			return true, d.boolean(e, &s.UniqueHostPath)
		case "dropVolumes":
			return true, d.strings(e, &s.DropVolumes)
		case "exitWithApps":
			return true, d.boolean(e, &s.ExitWithApps)
		}
		return false, nil
	})
}

func (d *decoder) appPostStart(v ast.Value, a *AppPostStart) error {
	err := d.object(v, func(k string, e ast.Value) (bool, error) {
		switch k {
		case "container":
			return true, d.str(e, &a.Container)
		case "mountPaths":
			return true, d.strings(e, &a.MountPaths)
		case "timeoutSeconds":
			return true, d.int32(e, &a.TimeoutSeconds)
		}
		return false, nil
	})
	switch {
	case err != nil:
		return err
	case a.Container == "":
		return d.errorf("want a container name")
	case len(a.MountPaths) == 0:
		return d.errorf("want at least one mount path for container %q", a.Container)
	case a.TimeoutSeconds < 1:
		return d.errorf("want timeoutSeconds of at least 1 for container %q, got %d", a.Container, a.TimeoutSeconds)
	}
	for _, p := range a.MountPaths {
		if !strings.HasPrefix(p, "/") {
			return d.errorf("mount path %q of container %q is not absolute", p, a.Container)
		}
	}
	return nil
}

// oncePerContainer fails when one of the n entries decoded before names
// the same container: a container has one postStart hook.
func (d *decoder) oncePerContainer(container string, n int, containerOf func(int) string) error {
	for i := range n {
		if containerOf(i) == container {
			return d.errorf("a second entry for container %q (the first is [%d]); give one per container", container, i)
		}
	}
	return nil
}

// env decodes a set of {name, value}; a name given twice is an error, as
// the container could hold only one of its values.
func (d *decoder) env(v ast.Value, out *[]corev1.EnvVar) error {
	return d.list(v, func(_ int, e ast.Value) error {
		var ev corev1.EnvVar
		err := d.object(e, func(k string, e ast.Value) (bool, error) {
			switch k {
			case "name":
				return true, d.str(e, &ev.Name)
			case "value":
				return true, d.str(e, &ev.Value)
			}
			return false, nil
		})
		if err != nil {
			return err
		}
		if ev.Name == "" {
			return d.errorf("want a variable name")
		}
		for _, prev := range *out {
			if prev.Name == ev.Name {
				return d.errorf("variable %q is set twice (%q and %q)", ev.Name, prev.Value, ev.Value)
			}
		}
		*out = append(*out, ev)
		return nil
	})
}

// resources decodes {limits, requests}, each resource name to a quantity
// (a string such as "2Gi", or a number).
func (d *decoder) resources(v ast.Value, out *corev1.ResourceRequirements) error {
	return d.object(v, func(k string, e ast.Value) (bool, error) {
		switch k {
		case "limits":
			return true, d.resourceList(e, &out.Limits)
		case "requests":
			return true, d.resourceList(e, &out.Requests)
		}
		return false, nil
	})
}

func (d *decoder) resourceList(v ast.Value, out *corev1.ResourceList) error {
	return d.object(v, func(k string, e ast.Value) (bool, error) {
		var text string
		switch q := e.(type) {
		case ast.String:
			text = string(q)
		case ast.Number:
			text = string(q)
		default:
			return true, d.errorf("want a quantity (a string such as \"2Gi\", or a number), got %s", ast.ValueName(e))
		}
		qty, err := resource.ParseQuantity(text)
		if err != nil {
			return true, d.errorf("%q is not a quantity: %v", text, err)
		}
		if *out == nil {
			*out = corev1.ResourceList{}
		}
		(*out)[corev1.ResourceName(k)] = qty
		return true, nil
	})
}
