package crd_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestSamplesApplyUnchanged: every Fluid kind in config/samples is valid
// under Fluid's own published schema and is stored by Sluice as written, so
// a sample a user copies applies to either.
func TestSamplesApplyUnchanged(t *testing.T) {
	files, err := filepath.Glob("../../config/samples/*/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	top, _ := filepath.Glob("../../config/samples/*.yaml")
	fluid := fluidValidators(t)
	kinds := map[string]bool{}
	for _, f := range append(files, top...) {
		for i, doc := range readDocs(t, f) {
			if !strings.HasPrefix(doc.GetAPIVersion(), "data.fluid.io/") {
				continue // Namespaces, Secrets and Pods of the demo
			}
			kinds[doc.GetKind()] = true
			t.Run(fmt.Sprintf("%s#%d/%s", filepath.Base(f), i, doc.GetName()), func(t *testing.T) {
				if fluid != nil {
					fluid.check(t, doc)
				}
				applyAndCompare(t, doc)
			})
		}
	}
	for _, kind := range []string{"DataLoad", "DataMigrate", "DataBackup", "DataProcess"} {
		if !kinds[kind] {
			t.Errorf("no sample of %s under config/samples", kind)
		}
	}
}
