package volume

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// Owns reports whether obj (a PV or PVC, or a ConfigMap copied for a
// reference dataset) is the one Sluice created for ds:
// created by Sluice (datav1alpha1.AnnotationCreatedBy) and labelled with
// ds's namespace and name. The controller adopts and deletes only such
// volumes, never an object that merely has the name it would use.
func Owns(ds *datav1alpha1.Dataset, obj metav1.Object) bool {
	l := obj.GetLabels()
	return obj.GetAnnotations()[datav1alpha1.AnnotationCreatedBy] == createdBy &&
		l[datav1alpha1.LabelDatasetNamespace] == ds.Namespace && l[datav1alpha1.LabelDatasetName] == ds.Name
}

// createdBy is the AnnotationCreatedBy value of the volumes Sluice creates.
const createdBy = "sluice"

// CreatedBy is the AnnotationCreatedBy value Owns looks for, which the
// objects Sluice creates for a Dataset carry.
const CreatedBy = createdBy
