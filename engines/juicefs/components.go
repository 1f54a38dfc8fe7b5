package juicefs

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

// DefaultEnterpriseTag is the image tag of the enterprise client, used for
// a Dataset with a token when spec.juicefsVersion names no tag (Fluid's
// default enterprise image).
const DefaultEnterpriseTag = "ee-5.2.10-eb0a8b3"

// imageOf is the image of workers (and, unless spec.fuse overrides it,
// FUSE) for the edition.
func (e Engine) imageOf(ed edition, v datav1alpha1.VersionSpec) dataop.Image {
	return e.defaultImage(ed).With(v)
}

// confVolume holds /root/.juicefs, where juicefs auth writes the
// enterprise volume's configuration for mount.juicefs to read.
const confVolume = "juicefs-conf"

// builder computes the values of the worker and FUSE components.
type builder struct {
	ds      *datav1alpha1.Dataset
	rt      *datav1alpha1.JuiceFSRuntime
	vol     volume
	tier    tier
	secrets []corev1.EnvVar // the Dataset's encrypt options, by Secret reference
}

// part is what the runtime says about one component.
type part struct {
	field        string // spec.worker or spec.fuse
	image        dataop.Image
	env          []corev1.EnvVar
	options      map[string]string
	mounts       []corev1.VolumeMount
	podMetadata  datav1alpha1.PodMetadata
	resources    corev1.ResourceRequirements
	nodeSelector map[string]string
	hostNetwork  bool
	fuse         bool
}

// defaultFlags are the flags Sluice gives a component before the Dataset's
// and the component's options: the tier's cache, the sub-directory,
// read-only FUSE for a read-only Dataset, and the metrics address
// (community edition), or the enterprise edition's foreground, no-update
// and cache group (FUSE clients read the group's cache without sharing
// theirs, as Fluid sets them).
func (b builder) defaultFlags(p part) []flag {
	out := b.tier.flags()
	if b.vol.subdir != "" {
		out = append(out, flag{Name: "subdir", Value: b.vol.subdir})
	}
	readOnly := p.fuse && b.readOnly()
	if b.vol.edition == enterprise {
		out = append(out, flag{Name: "foreground", Bool: true}, flag{Name: "no-update", Bool: true},
			flag{Name: "cache-group", Value: b.rt.Namespace + "-" + b.rt.Name})
		if p.fuse {
			out = append(out, flag{Name: "no-sharing", Bool: true})
		}
		if readOnly {
			out = append(out, flag{Name: "ro", Bool: true}, flag{Name: "attrcacheto", Value: "7200"}, flag{Name: "entrycacheto", Value: "7200"})
		}
		return out
	}
	if readOnly {
		out = append(out, flag{Name: "read-only", Bool: true}, flag{Name: "attr-cache", Value: "7200"}, flag{Name: "entry-cache", Value: "7200"})
	}
	if !b.rt.Spec.DisablePrometheus {
		out = append(out, flag{Name: "metrics", Value: fmt.Sprintf("0.0.0.0:%d", MetricsPort)})
	}
	return out
}

// readOnly says whether FUSE mounts the volume read-only: the Dataset's
// accessModes are ReadOnlyMany (Fluid's test) or its mount is readOnly.
// Metadata is then cached for two hours, as Fluid sets it.
func (b builder) readOnly() bool {
	return slices.Contains(b.ds.Spec.AccessModes, corev1.ReadOnlyMany) || b.ds.Spec.Mounts[0].ReadOnly
}

// component is one component's chart values: its image, argv, init
// containers (format or auth, then quota), environment, pod metadata,
// volumes and mounts.
func (b builder) component(p part) (map[string]any, error) {
	opts, err := componentOptions(p.field+".options", p.options, b.vol.edition)
	if err != nil {
		return nil, err
	}
	flags := layer(b.defaultFlags(p), b.vol.mount, opts)
	meta, err := podMetadata(p.field, b.rt.Spec.PodMetadata, p.podMetadata)
	if err != nil {
		return nil, err
	}
	vols, claims, err := userVolumes(p.field, b.rt, p.mounts, !p.fuse)
	if err != nil {
		return nil, err
	}
	cacheVols, cacheMounts, err := b.tier.cacheVolumes(p.field+".options", flags, p.mounts)
	if err != nil {
		return nil, err
	}
	vols, mounts := append(cacheVols, vols...), append(cacheMounts, p.mounts...)
	if b.vol.edition == enterprise && !p.fuse {
		vols = append(vols, corev1.Volume{Name: confVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
		mounts = append(mounts, corev1.VolumeMount{Name: confVolume, MountPath: "/root/.juicefs"})
	}
	env := append(slices.Clone(b.secrets), p.env...)
	if env == nil {
		env = []corev1.EnvVar{}
	}
	command, setup := mountCommand(b.vol, workerCacheDir, flags), b.setup(p, env)
	if p.fuse {
		command, setup = fuseCommand(b.vol, FusePath(b.ds.Namespace, b.ds.Name), flags), []corev1.Container{}
	}
	metricsPort := MetricsPort
	if b.rt.Spec.DisablePrometheus || b.vol.edition == enterprise {
		metricsPort = 0
	}
	return map[string]any{
		"image":   map[string]any{"repository": p.image.Repository, "tag": p.image.Tag, "pullPolicy": p.image.PullPolicy},
		"command": command, "initContainers": setup, "env": env,
		"resources": p.resources, "nodeSelector": p.nodeSelector, "hostNetwork": p.hostNetwork, "podMetadata": meta,
		"volumes": nonNil(vols), "volumeMounts": nonNil(mounts), "volumeClaimTemplates": nonNil(claims), "metricsPort": metricsPort,
	}, nil
}

// setup are the workers' init containers that prepare the volume before
// they mount it: juicefs format (community) or juicefs auth (enterprise),
// then juicefs quota set when the Dataset sets a quota. Both are
// idempotent, so every worker runs them, as Fluid's start-up scripts do;
// FUSE runs the same commands in its container (fuseScript).
func (b builder) setup(p part, env []corev1.EnvVar) []corev1.Container {
	c := p.image.Container()
	c.Env = env
	if b.vol.edition == enterprise {
		c.VolumeMounts = []corev1.VolumeMount{{Name: confVolume, MountPath: "/root/.juicefs"}}
	}
	name := "format"
	if b.vol.edition == enterprise {
		name = "auth"
	}
	var out []corev1.Container
	for i, cmd := range setupCommands(b.vol) {
		s := c
		s.Name, s.Command = name, cmd
		if i > 0 {
			s.Name = "quota"
		}
		out = append(out, s)
	}
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
