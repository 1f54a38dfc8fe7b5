package v1alpha1

import corev1 "k8s.io/api/core/v1"

// ImageField is an image a runtime's spec sets, at its field path.
// +kubebuilder:object:generate=false
type ImageField struct {
	Path  string
	Image string
}

// TolerationsField is a list of tolerations a spec sets, at its field
// path.
// +kubebuilder:object:generate=false
type TolerationsField struct {
	Path        string
	Tolerations []corev1.Toleration
}

// GetImages implements RuntimeObject.
func (r *AlluxioRuntime) GetImages() []ImageField {
	return []ImageField{
		{"spec.alluxioVersion.image", r.Spec.AlluxioVersion.Image},
		{"spec.initUsers.image", r.Spec.InitUsers.Image},
		{"spec.fuse.image", r.Spec.Fuse.Image},
	}
}

// GetImages implements RuntimeObject.
func (r *JuiceFSRuntime) GetImages() []ImageField {
	return []ImageField{
		{"spec.juicefsVersion.image", r.Spec.JuiceFSVersion.Image},
		{"spec.initUsers.image", r.Spec.InitUsers.Image},
		{"spec.fuse.image", r.Spec.Fuse.Image},
	}
}

// GetImages implements RuntimeObject.
func (r *JindoRuntime) GetImages() []ImageField {
	return []ImageField{
		{"spec.jindoVersion.image", r.Spec.JindoVersion.Image},
		{"spec.fuse.image", r.Spec.Fuse.Image},
	}
}

// GetImages implements RuntimeObject.
func (r *ThinRuntime) GetImages() []ImageField {
	return []ImageField{
		{"spec.fuse.image", r.Spec.Fuse.Image},
		{"spec.worker.image", r.Spec.Worker.Image},
	}
}

// GetVolumes implements RuntimeObject.
func (r *AlluxioRuntime) GetVolumes() []corev1.Volume { return r.Spec.Volumes }

// GetVolumes implements RuntimeObject.
func (r *JuiceFSRuntime) GetVolumes() []corev1.Volume { return r.Spec.Volumes }

// GetVolumes implements RuntimeObject.
func (r *JindoRuntime) GetVolumes() []corev1.Volume { return r.Spec.Volumes }

// GetVolumes implements RuntimeObject.
func (r *ThinRuntime) GetVolumes() []corev1.Volume { return r.Spec.Volumes }

// GetTolerations implements RuntimeObject: an AlluxioRuntime sets none.
func (r *AlluxioRuntime) GetTolerations() []TolerationsField { return nil }

// GetTolerations implements RuntimeObject: a JuiceFSRuntime sets none.
func (r *JuiceFSRuntime) GetTolerations() []TolerationsField { return nil }

// GetTolerations implements RuntimeObject: the master's, the workers' and
// FUSE's.
func (r *JindoRuntime) GetTolerations() []TolerationsField {
	return []TolerationsField{
		{"spec.master.tolerations", r.Spec.Master.Tolerations},
		{"spec.worker.tolerations", r.Spec.Worker.Tolerations},
		{"spec.fuse.tolerations", r.Spec.Fuse.Tolerations},
	}
}

// GetTolerations implements RuntimeObject: a ThinRuntime sets none.
func (r *ThinRuntime) GetTolerations() []TolerationsField { return nil }
