package testobj

import (
	"encoding/json"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// CreateReview returns the AdmissionReview the API server would send a
// webhook for the CREATE of obj (of kind, in Sluice's group) by user, as
// a caller that is not the API server could forge it.
func CreateReview(kind, resource string, obj runtime.Object, namespace, name, user string) ([]byte, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	gvk := metav1.GroupVersionKind{Group: datav1alpha1.GroupName, Version: "v1alpha1", Kind: kind}
	gvr := metav1.GroupVersionResource{Group: datav1alpha1.GroupName, Version: "v1alpha1", Resource: resource}
	return json.Marshal(&admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID: types.UID("forged-" + name), Kind: gvk, Resource: gvr, RequestKind: &gvk, RequestResource: &gvr,
			Name: name, Namespace: namespace, Operation: admissionv1.Create,
			UserInfo: authenticationv1.UserInfo{Username: user},
			Object:   runtime.RawExtension{Raw: raw},
		},
	})
}
