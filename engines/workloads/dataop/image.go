package dataop

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// Image is a container image and its pull policy.
type Image struct {
	Repository, Tag string
	PullPolicy      corev1.PullPolicy
}

// With overrides the image by an operation's image, imageTag and
// imagePullPolicy, each when set.
func (i Image) With(v datav1alpha1.VersionSpec) Image {
	if v.Image != "" {
		i.Repository = v.Image
	}
	if v.ImageTag != "" {
		i.Tag = v.ImageTag
	}
	if v.ImagePullPolicy != "" {
		i.PullPolicy = corev1.PullPolicy(v.ImagePullPolicy)
	}
	return i
}

// Ref is the image reference, repository:tag, or the repository alone
// when there is no tag (or the repository carries a digest).
func (i Image) Ref() string {
	if i.Tag == "" || strings.Contains(i.Repository, "@") {
		return i.Repository
	}
	return i.Repository + ":" + i.Tag
}

// Container is a container of the image (its reference and pull policy).
func (i Image) Container() corev1.Container {
	return corev1.Container{Image: i.Ref(), ImagePullPolicy: i.PullPolicy}
}
