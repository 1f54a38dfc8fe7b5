package thin

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// Resolved is what a ThinRuntime runs once its profile is applied.
type Resolved struct {
	// FileSystemType is the profile's fileSystemType (see MountType).
	FileSystemType string
	// Fuse is the FUSE program.
	Fuse datav1alpha1.ThinFuseSpec
	// Worker is the optional worker.
	Worker datav1alpha1.ThinCompTemplateSpec
	// Volumes are the profile's volumes and the runtime's, by name.
	Volumes []corev1.Volume
	// ImagePullSecrets apply to a component that names none of its own.
	ImagePullSecrets []corev1.LocalObjectReference
	// NodePublishSecretPolicy is the profile's.
	NodePublishSecretPolicy datav1alpha1.NodePublishSecretPolicy
}

// Merge applies a ThinRuntime to its profile (nil means an empty profile);
// the runtime's fields win:
//   - image, imageTag, imagePullPolicy, cleanPolicy, networkMode: a non-empty
//     runtime value replaces the profile's;
//   - command, args, nodeSelector, imagePullSecrets: a non-empty runtime list
//     or map replaces the profile's whole;
//   - probes and lifecycle: a runtime value replaces the profile's;
//   - env (by name), ports (by name, else by port and protocol), volumeMounts
//     (by mountPath), volumes (by name), options, podMetadata and resources
//     (by key): merged, the runtime's entry replacing the profile's;
//   - worker.enabled: either enables the worker; worker.replicas: the
//     runtime's when set.
//
// Neither input is modified.
func Merge(profile *datav1alpha1.ThinRuntimeProfile, rt *datav1alpha1.ThinRuntime) Resolved {
	p := datav1alpha1.ThinRuntimeProfileSpec{}
	if profile != nil {
		p = *profile.Spec.DeepCopy()
	}
	r := *rt.Spec.DeepCopy()
	return Resolved{
		FileSystemType:          p.FileSystemType,
		Fuse:                    mergeFuse(p.Fuse, r.Fuse),
		Worker:                  mergeWorker(p.Worker, r.Worker),
		Volumes:                 mergeByKey(p.Volumes, r.Volumes, func(v corev1.Volume) string { return v.Name }),
		ImagePullSecrets:        orList(r.ImagePullSecrets, p.ImagePullSecrets),
		NodePublishSecretPolicy: p.NodePublishSecretPolicy,
	}
}

func mergeFuse(p, r datav1alpha1.ThinFuseSpec) datav1alpha1.ThinFuseSpec {
	return datav1alpha1.ThinFuseSpec{
		VersionSpec:      mergeVersion(p.VersionSpec, r.VersionSpec),
		ImagePullSecrets: orList(r.ImagePullSecrets, p.ImagePullSecrets),
		Ports:            mergeByKey(p.Ports, r.Ports, portKey),
		Env:              mergeByKey(p.Env, r.Env, func(e corev1.EnvVar) string { return e.Name }),
		Command:          orList(r.Command, p.Command),
		Args:             orList(r.Args, p.Args),
		Options:          mergeMap(p.Options, r.Options),
		Resources:        mergeResources(p.Resources, r.Resources),
		NodeSelector:     orMap(r.NodeSelector, p.NodeSelector),
		CleanPolicy:      orString(r.CleanPolicy, p.CleanPolicy),
		NetworkMode:      orString(r.NetworkMode, p.NetworkMode),
		LivenessProbe:    orPointer(r.LivenessProbe, p.LivenessProbe),
		ReadinessProbe:   orPointer(r.ReadinessProbe, p.ReadinessProbe),
		VolumeMounts:     mergeByKey(p.VolumeMounts, r.VolumeMounts, func(m corev1.VolumeMount) string { return m.MountPath }),
		Lifecycle:        orPointer(r.Lifecycle, p.Lifecycle),
		PodMetadata: datav1alpha1.PodMetadata{
			Labels:      mergeMap(p.PodMetadata.Labels, r.PodMetadata.Labels),
			Annotations: mergeMap(p.PodMetadata.Annotations, r.PodMetadata.Annotations),
		},
	}
}

func mergeWorker(p, r datav1alpha1.ThinCompTemplateSpec) datav1alpha1.ThinCompTemplateSpec {
	replicas := r.Replicas
	if replicas == 0 {
		replicas = p.Replicas
	}
	return datav1alpha1.ThinCompTemplateSpec{
		VersionSpec:      mergeVersion(p.VersionSpec, r.VersionSpec),
		ImagePullSecrets: orList(r.ImagePullSecrets, p.ImagePullSecrets),
		Replicas:         replicas,
		Ports:            mergeByKey(p.Ports, r.Ports, portKey),
		Resources:        mergeResources(p.Resources, r.Resources),
		Env:              mergeByKey(p.Env, r.Env, func(e corev1.EnvVar) string { return e.Name }),
		Enabled:          p.Enabled || r.Enabled,
		NodeSelector:     orMap(r.NodeSelector, p.NodeSelector),
		VolumeMounts:     mergeByKey(p.VolumeMounts, r.VolumeMounts, func(m corev1.VolumeMount) string { return m.MountPath }),
		LivenessProbe:    orPointer(r.LivenessProbe, p.LivenessProbe),
		ReadinessProbe:   orPointer(r.ReadinessProbe, p.ReadinessProbe),
		NetworkMode:      orString(r.NetworkMode, p.NetworkMode),
	}
}

func mergeVersion(p, r datav1alpha1.VersionSpec) datav1alpha1.VersionSpec {
	return datav1alpha1.VersionSpec{
		Image:           orString(r.Image, p.Image),
		ImageTag:        orString(r.ImageTag, p.ImageTag),
		ImagePullPolicy: orString(r.ImagePullPolicy, p.ImagePullPolicy),
	}
}

// portKey identifies a container port: its name, else its number and protocol.
func portKey(p corev1.ContainerPort) string {
	if p.Name != "" {
		return "name:" + p.Name
	}
	proto := p.Protocol
	if proto == "" {
		proto = corev1.ProtocolTCP
	}
	return fmt.Sprintf("port:%d/%s", p.ContainerPort, proto)
}

// mergeByKey keeps base's order, replaces an entry by the override's entry of
// the same key in place, and appends the override's other entries in order.
func mergeByKey[T any](base, override []T, key func(T) string) []T {
	if len(base) == 0 && len(override) == 0 {
		return nil
	}
	out := make([]T, 0, len(base)+len(override))
	at := map[string]int{}
	for _, b := range base {
		if i, dup := at[key(b)]; dup {
			out[i] = b
			continue
		}
		at[key(b)] = len(out)
		out = append(out, b)
	}
	for _, o := range override {
		if i, ok := at[key(o)]; ok {
			out[i] = o
			continue
		}
		at[key(o)] = len(out)
		out = append(out, o)
	}
	return out
}

func mergeResources(p, r corev1.ResourceRequirements) corev1.ResourceRequirements {
	out := corev1.ResourceRequirements{
		Limits:   mergeMap(p.Limits, r.Limits),
		Requests: mergeMap(p.Requests, r.Requests),
		Claims:   mergeByKey(p.Claims, r.Claims, func(c corev1.ResourceClaim) string { return c.Name }),
	}
	return out
}

func mergeMap[K comparable, V any](base, override map[K]V) map[K]V {
	if len(base) == 0 && len(override) == 0 {
		return nil
	}
	out := make(map[K]V, len(base)+len(override))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range override {
		out[k] = v
	}
	return out
}

func orString[S ~string](r, p S) S {
	if r != "" {
		return r
	}
	return p
}

func orList[T any](r, p []T) []T {
	if len(r) > 0 {
		return r
	}
	return p
}

func orMap[K comparable, V any](r, p map[K]V) map[K]V {
	if len(r) > 0 {
		return r
	}
	return p
}

func orPointer[T any](r, p *T) *T {
	if r != nil {
		return r
	}
	return p
}
