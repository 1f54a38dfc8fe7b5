package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// RuntimeObject is what every runtime kind (AlluxioRuntime, JuiceFSRuntime,
// JindoRuntime, ThinRuntime) shares, so that code outside api/ needs no
// switch over the kinds. A new runtime kind implements it here.
// +kubebuilder:object:generate=false
type RuntimeObject interface {
	metav1.Object
	runtime.Object
	// GetRuntimeStatus returns the runtime's status, to read or change.
	GetRuntimeStatus() *RuntimeStatus
	// GetTieredStore returns the workers' cache layout (spec.tieredstore).
	GetTieredStore() TieredStore
	// GetReplicas returns the desired number of workers (spec.replicas).
	GetReplicas() int32
	// GetWorkerMemoryLimit returns spec.worker.resources.limits.memory and
	// whether it is set.
	GetWorkerMemoryLimit() (resource.Quantity, bool)
	// GetFuseNodeSelector returns spec.fuse.nodeSelector.
	GetFuseNodeSelector() map[string]string
	// GetFuseCleanPolicy returns spec.fuse.cleanPolicy as written (empty
	// when unset: the engine or a profile may supply the default).
	GetFuseCleanPolicy() FuseCleanPolicy
	// GetCleanCachePolicy returns the cleanCachePolicy that bounds the
	// cache cleanup of the runtime's deletion (spec.management's, or
	// spec's for a JindoRuntime).
	GetCleanCachePolicy() CleanCachePolicy
	// GetImages returns the images the spec sets, each at its field
	// (runtime_fields.go); an unset image is "".
	GetImages() []ImageField
	// GetVolumes returns spec.volumes, added to the engine's pods.
	GetVolumes() []corev1.Volume
	// GetTolerations returns the tolerations the spec sets for the
	// engine's pods, each list at its field.
	GetTolerations() []TolerationsField
}

var (
	_ RuntimeObject = &AlluxioRuntime{}
	_ RuntimeObject = &JuiceFSRuntime{}
	_ RuntimeObject = &JindoRuntime{}
	_ RuntimeObject = &ThinRuntime{}
)

func memoryLimit(r corev1.ResourceList) (resource.Quantity, bool) {
	q, ok := r[corev1.ResourceMemory]
	return q, ok
}

// GetRuntimeStatus implements RuntimeObject.
func (r *AlluxioRuntime) GetRuntimeStatus() *RuntimeStatus { return &r.Status }

// GetTieredStore implements RuntimeObject.
func (r *AlluxioRuntime) GetTieredStore() TieredStore { return r.Spec.TieredStore }

// GetReplicas implements RuntimeObject.
func (r *AlluxioRuntime) GetReplicas() int32 { return r.Spec.Replicas }

// GetWorkerMemoryLimit implements RuntimeObject.
func (r *AlluxioRuntime) GetWorkerMemoryLimit() (resource.Quantity, bool) {
	return memoryLimit(r.Spec.Worker.Resources.Limits)
}

// GetFuseNodeSelector implements RuntimeObject.
func (r *AlluxioRuntime) GetFuseNodeSelector() map[string]string { return r.Spec.Fuse.NodeSelector }

// GetFuseCleanPolicy implements RuntimeObject.
func (r *AlluxioRuntime) GetFuseCleanPolicy() FuseCleanPolicy { return r.Spec.Fuse.CleanPolicy }

// GetRuntimeStatus implements RuntimeObject.
func (r *JuiceFSRuntime) GetRuntimeStatus() *RuntimeStatus { return &r.Status }

// GetTieredStore implements RuntimeObject.
func (r *JuiceFSRuntime) GetTieredStore() TieredStore { return r.Spec.TieredStore }

// GetReplicas implements RuntimeObject.
func (r *JuiceFSRuntime) GetReplicas() int32 { return r.Spec.Replicas }

// GetWorkerMemoryLimit implements RuntimeObject.
func (r *JuiceFSRuntime) GetWorkerMemoryLimit() (resource.Quantity, bool) {
	return memoryLimit(r.Spec.Worker.Resources.Limits)
}

// GetFuseNodeSelector implements RuntimeObject.
func (r *JuiceFSRuntime) GetFuseNodeSelector() map[string]string { return r.Spec.Fuse.NodeSelector }

// GetFuseCleanPolicy implements RuntimeObject.
func (r *JuiceFSRuntime) GetFuseCleanPolicy() FuseCleanPolicy { return r.Spec.Fuse.CleanPolicy }

// GetRuntimeStatus implements RuntimeObject.
func (r *JindoRuntime) GetRuntimeStatus() *RuntimeStatus { return &r.Status }

// GetTieredStore implements RuntimeObject.
func (r *JindoRuntime) GetTieredStore() TieredStore { return r.Spec.TieredStore }

// GetReplicas implements RuntimeObject.
func (r *JindoRuntime) GetReplicas() int32 { return r.Spec.Replicas }

// GetWorkerMemoryLimit implements RuntimeObject.
func (r *JindoRuntime) GetWorkerMemoryLimit() (resource.Quantity, bool) {
	return memoryLimit(r.Spec.Worker.Resources.Limits)
}

// GetFuseNodeSelector implements RuntimeObject.
func (r *JindoRuntime) GetFuseNodeSelector() map[string]string { return r.Spec.Fuse.NodeSelector }

// GetFuseCleanPolicy implements RuntimeObject.
func (r *JindoRuntime) GetFuseCleanPolicy() FuseCleanPolicy { return r.Spec.Fuse.CleanPolicy }

// GetRuntimeStatus implements RuntimeObject.
func (r *ThinRuntime) GetRuntimeStatus() *RuntimeStatus { return &r.Status }

// GetTieredStore implements RuntimeObject.
func (r *ThinRuntime) GetTieredStore() TieredStore { return r.Spec.TieredStore }

// GetReplicas implements RuntimeObject.
func (r *ThinRuntime) GetReplicas() int32 { return r.Spec.Replicas }

// GetWorkerMemoryLimit implements RuntimeObject.
func (r *ThinRuntime) GetWorkerMemoryLimit() (resource.Quantity, bool) {
	return memoryLimit(r.Spec.Worker.Resources.Limits)
}

// GetFuseNodeSelector implements RuntimeObject.
func (r *ThinRuntime) GetFuseNodeSelector() map[string]string { return r.Spec.Fuse.NodeSelector }

// GetFuseCleanPolicy implements RuntimeObject; the profile's policy applies
// when the runtime sets none.
func (r *ThinRuntime) GetFuseCleanPolicy() FuseCleanPolicy { return r.Spec.Fuse.CleanPolicy }

// GetCleanCachePolicy implements RuntimeObject.
func (r *AlluxioRuntime) GetCleanCachePolicy() CleanCachePolicy {
	return r.Spec.Management.CleanCachePolicy
}

// GetCleanCachePolicy implements RuntimeObject.
func (r *JuiceFSRuntime) GetCleanCachePolicy() CleanCachePolicy {
	return r.Spec.Management.CleanCachePolicy
}

// GetCleanCachePolicy implements RuntimeObject.
func (r *JindoRuntime) GetCleanCachePolicy() CleanCachePolicy { return r.Spec.CleanCachePolicy }

// GetCleanCachePolicy implements RuntimeObject.
func (r *ThinRuntime) GetCleanCachePolicy() CleanCachePolicy {
	return r.Spec.Management.CleanCachePolicy
}
