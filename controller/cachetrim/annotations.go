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

// maxWord is the longest value kept of an annotation the controller
// compares with a name or a word (a release's name or namespace,
// "sluice", "true"): no name is longer (DNS subdomains), so a longer value
// equals none of them and dropping it changes no reading, while a tenant
// could otherwise make each of them up to 256 KiB a Pod or PVC. The list
// in datasets-in-use is kept whole (docs/security.md says what it costs).
const maxWord = 253

// keepAnnotations returns the entries of a whose keys are in Annotations,
// nil when none is, without the values longer than maxWord of every key
// but datasets-in-use.
func keepAnnotations(a map[string]string) map[string]string {
	var out map[string]string
	for _, k := range Annotations {
		if v, ok := a[k]; ok && (len(v) <= maxWord || k == datav1alpha1.AnnotationDatasetsInUse) {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}
