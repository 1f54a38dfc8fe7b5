package cachetrim

import (
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
)

// Annotations are the annotation keys the controller reads on the Pods and
// PersistentVolumeClaims it caches; the cache drops every other annotation
// of those kinds, whose values (up to 256 KiB an object) tenants choose.
// TestTrimKeepsEveryKeyTheControllerReads fails when the controller reads
// a constant key that is missing here.
var Annotations = []string{
	datav1alpha1.AnnotationCreatedBy,     // volume.Owns
	datav1alpha1.AnnotationDatasetsInUse, // volume.UsedNames
	datav1alpha1.AnnotationAppsDone,      // sidecarexit
	helm.ReleaseNameAnnotation,           // objects of a release
	helm.ReleaseNamespaceAnnotation,
	// Read on runtimes (which are not trimmed) to copy into their PVs;
	// listed because the check cannot tell the object read.
	datav1alpha1.AnnotationSkipCheckMountReadyTarget,
}

// keepAnnotations returns the entries of a whose keys are in Annotations,
// nil when none is.
func keepAnnotations(a map[string]string) map[string]string {
	var out map[string]string
	for _, k := range Annotations {
		if v, ok := a[k]; ok {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}
