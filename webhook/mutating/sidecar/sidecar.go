package sidecar

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/webhook/decision"
	"github.com/sluice-data/sluice/webhook/snapshot"
)

// ContainerPrefix starts the name of every injected FUSE container.
const ContainerPrefix = datav1alpha1.FuseSidecarContainerPrefix

// Mutator applies decision.VolumeRewrites and decision.Sidecars.
type Mutator struct{}

// Name implements mutating.Mutator.
func (Mutator) Name() string { return "sidecar" }

// Mutate implements mutating.Mutator.
func (Mutator) Mutate(pod *corev1.Pod, d *decision.Mutating, vols []snapshot.DatasetVolume) error {
	hosts, err := uniqueHosts(pod, d, vols)
	if err != nil {
		return err
	}
	for _, rw := range d.VolumeRewrites {
		if u, ok := hosts[rw.Volume]; ok {
			p, ok := u.at(rw.HostPath)
			if !ok {
				return fmt.Errorf("%s=%s, volume %q: its host path %s is not within the FUSE host directory %s",
					datav1alpha1.AnnotationHostMountPathMode, datav1alpha1.HostMountPathModeRandomSuffix, rw.Volume, rw.HostPath, u.Dir)
			}
			rw.HostPath = p
		}
		if err := rewrite(pod, rw, readOnlyVolume(vols, rw.Volume)); err != nil {
			return err
		}
	}
	// Inject in reverse so that the first sidecar ends up first.
	for i := len(d.Sidecars) - 1; i >= 0; i-- {
		sc := d.Sidecars[i]
		tmpl := templateFor(vols, sc.Volume)
		if tmpl == nil {
			return fmt.Errorf("sidecar for volume %q (dataset %s): the runtime has no FUSE template", sc.Volume, sc.Dataset)
		}
		if u, ok := hosts[sc.Volume]; ok {
			tmpl = withHostDir(tmpl, u)
		}
		if err := inject(pod, sc, tmpl, i); err != nil {
			return err
		}
	}
	return nil
}

func templateFor(vols []snapshot.DatasetVolume, volume string) *snapshot.FuseTemplate {
	for _, v := range vols {
		if v.Volume == volume {
			return v.Fuse
		}
	}
	return nil
}

// readOnlyVolume reports whether the dataset volume of the Pod's volume is
// read-only (its PV admits only ReadOnlyMany).
func readOnlyVolume(vols []snapshot.DatasetVolume, volume string) bool {
	for _, v := range vols {
		if v.Volume == volume {
			return v.Dataset.Volume.ReadOnly
		}
	}
	return false
}

// rewrite turns the named PVC volume into a hostPath volume of the FUSE
// mount and gives every mount of it HostToContainer propagation, so that
// the app containers see the sidecar's FUSE mount, and the dataset's
// sub-path as its subPath (withSubPath; once, when the volume is still the
// claim, so that a second pass changes nothing). A claim the Pod mounted read-only
// (persistentVolumeClaim.readOnly), or a dataset volume that is
// (datasetReadOnly: its PV admits only ReadOnlyMany, which the CSI plugin
// mounts read-only), stays read-only in every mount: the hostPath volume
// has no such flag of its own.
func rewrite(pod *corev1.Pod, rw decision.VolumeRewrite, datasetReadOnly bool) error {
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		if v.Name != rw.Volume {
			continue
		}
		readOnly := datasetReadOnly || v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ReadOnly
		if v.PersistentVolumeClaim != nil {
			if err := withSubPath(pod, rw.Volume, rw.SubPath); err != nil {
				return err
			}
		}
		v.VolumeSource = corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: rw.HostPath}}
		mode := corev1.MountPropagationHostToContainer
		for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
			for c := range cs {
				for m := range cs[c].VolumeMounts {
					if mount := &cs[c].VolumeMounts[m]; mount.Name == rw.Volume {
						mount.MountPropagation = &mode
						mount.ReadOnly = mount.ReadOnly || readOnly
					}
				}
			}
		}
		return nil
	}
	return fmt.Errorf("volume rewrite: the Pod has no volume %q", rw.Volume)
}

func inject(pod *corev1.Pod, sc decision.Sidecar, tmpl *snapshot.FuseTemplate, idx int) error {
	name := ContainerPrefix + strconv.Itoa(idx)
	if hasContainer(pod, name) {
		return nil
	}
	tmpl = withoutVolumes(tmpl, sc.DropVolumes)
	c := *tmpl.Container.DeepCopy()
	c.Name = name
	setEnv(&c, sc.Env)
	if err := setResources(&c, sc.Resources); err != nil {
		return fmt.Errorf("sidecar for volume %q (dataset %s): %w", sc.Volume, sc.Dataset, err)
	}
	wrap := sc.ExitWithApps && sc.Mode == decision.ContainerSidecar
	if wrap && len(c.Command) == 0 {
		return fmt.Errorf("sidecar for volume %q (dataset %s): %w", sc.Volume, sc.Dataset, errNoCommand)
	}
	renames := addVolumes(pod, tmpl.Volumes, idx)
	for i := range c.VolumeMounts {
		if n, ok := renames[c.VolumeMounts[i].Name]; ok {
			c.VolumeMounts[i].Name = n
		}
	}
	if sc.Unprivileged {
		dropPrivileges(pod, &c)
	}
	if sc.ReadinessGate {
		gate(&c, sc)
	}
	if wrap {
		exitWithApps(pod, &c)
	}
	ns, dsName := splitDataset(sc.Dataset)
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[datav1alpha1.LabelSidecarDatasetNamespacePrefix+name] = ns
	pod.Labels[datav1alpha1.LabelSidecarDatasetNamePrefix+name] = dsName
	switch sc.Mode {
	case decision.NativeSidecar:
		always := corev1.ContainerRestartPolicyAlways
		c.RestartPolicy = &always
		pod.Spec.InitContainers = append([]corev1.Container{c}, pod.Spec.InitContainers...)
	case decision.ContainerSidecar:
		pod.Spec.Containers = append([]corev1.Container{c}, pod.Spec.Containers...)
	default:
		return fmt.Errorf("sidecar for volume %q: unknown mode %q", sc.Volume, sc.Mode)
	}
	return nil
}

func hasContainer(pod *corev1.Pod, name string) bool {
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range cs {
			if c.Name == name {
				return true
			}
		}
	}
	return false
}

// addVolumes adds the template's volumes to the Pod. A volume whose name is
// taken by a different volume is added as "<name>-<idx>" (or the first free
// "<name>-<idx>-<n>"); the returned map, nil when none did, says which
// names changed.
func addVolumes(pod *corev1.Pod, vols []corev1.Volume, idx int) map[string]string {
	var renames map[string]string
	for _, v := range vols {
		existing := findVolume(pod, v.Name)
		if existing != nil && equality.Semantic.DeepEqual(existing.VolumeSource, v.VolumeSource) {
			continue
		}
		nv := *v.DeepCopy()
		if existing != nil {
			nv.Name = freeName(pod, fmt.Sprintf("%s-%d", v.Name, idx))
			if renames == nil {
				renames = map[string]string{}
			}
			renames[v.Name] = nv.Name
		}
		pod.Spec.Volumes = append(pod.Spec.Volumes, nv)
	}
	return renames
}

func findVolume(pod *corev1.Pod, name string) *corev1.Volume {
	for i := range pod.Spec.Volumes {
		if pod.Spec.Volumes[i].Name == name {
			return &pod.Spec.Volumes[i]
		}
	}
	return nil
}

func freeName(pod *corev1.Pod, name string) string {
	if findVolume(pod, name) == nil {
		return name
	}
	for n := 1; ; n++ {
		candidate := fmt.Sprintf("%s-%d", name, n)
		if findVolume(pod, candidate) == nil {
			return candidate
		}
	}
}

func splitDataset(ref string) (string, string) {
	for i := 0; i < len(ref); i++ {
		if ref[i] == '/' {
			return ref[:i], ref[i+1:]
		}
	}
	return "", ref
}
