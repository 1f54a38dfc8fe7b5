package cachetrim

import (
	"strings"
	"testing"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestLongWordsAreDropped: of the annotations the controller reads, a
// value no name can equal (longer than maxWord) is not kept, one of
// maxWord bytes is; datasets-in-use, a list, is kept whatever its length.
func TestLongWordsAreDropped(t *testing.T) {
	for _, k := range Annotations {
		long, word := strings.Repeat("a", maxWord+1), strings.Repeat("a", maxWord)
		got := keepAnnotations(map[string]string{k: long})
		if k == datav1alpha1.AnnotationDatasetsInUse {
			if got[k] != long {
				t.Errorf("%s: a list of %d bytes is not kept", k, len(long))
			}
			continue
		}
		if _, ok := got[k]; ok {
			t.Errorf("%s: a value of %d bytes is kept", k, len(long))
		}
		if got := keepAnnotations(map[string]string{k: word}); got[k] != word {
			t.Errorf("%s: a value of %d bytes is dropped", k, len(word))
		}
	}
}
