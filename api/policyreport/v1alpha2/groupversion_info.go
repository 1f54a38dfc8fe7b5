package v1alpha2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the group and version of the report kinds.
var GroupVersion = schema.GroupVersion{Group: "wgpolicyk8s.io", Version: "v1alpha2"}

var (
	// SchemeBuilder registers the report kinds with a runtime.Scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds the report kinds to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion,
		&PolicyReport{}, &PolicyReportList{},
		&ClusterPolicyReport{}, &ClusterPolicyReportList{},
	)
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return nil
}
