package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group that Sluice serves, the same as Fluid's.
const GroupName = "data.fluid.io"

// GroupVersion is the group and version of every kind in this package.
var GroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}

var (
	// SchemeBuilder registers this package's kinds with a runtime.Scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds this package's kinds to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// Resource returns a GroupResource for the given resource name in this group.
func Resource(resource string) schema.GroupResource {
	return GroupVersion.WithResource(resource).GroupResource()
}

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion,
		&Dataset{}, &DatasetList{},
		&AlluxioRuntime{}, &AlluxioRuntimeList{},
		&JuiceFSRuntime{}, &JuiceFSRuntimeList{},
		&JindoRuntime{}, &JindoRuntimeList{},
		&ThinRuntime{}, &ThinRuntimeList{},
		&ThinRuntimeProfile{}, &ThinRuntimeProfileList{},
		&DataLoad{}, &DataLoadList{},
		&DataMigrate{}, &DataMigrateList{},
		&DataBackup{}, &DataBackupList{},
		&DataProcess{}, &DataProcessList{},
		// Served with Fluid's schema, refused (refused_kinds.go).
		&EFCRuntime{}, &EFCRuntimeList{},
		&VineyardRuntime{}, &VineyardRuntimeList{},
		&CacheRuntime{}, &CacheRuntimeList{},
		&CacheRuntimeClass{}, &CacheRuntimeClassList{},
	)
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return nil
}
