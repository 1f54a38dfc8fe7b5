package validating

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/juicefs"
)

// TestFieldsOfMarksWhatTheOldObjectHad: a refused field an UPDATE of
// labels only leaves as it was is unchanged; one the UPDATE introduces,
// any of an UPDATE that changes the spec, or any on CREATE, is not.
func TestFieldsOfMarksWhatTheOldObjectHad(t *testing.T) {
	check := juicefs.DatasetFields.Check
	bare := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "logs", Namespace: "team-a"},
		Spec: datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{{MountPoint: "juicefs:///logs", Name: "logs"}}}}
	withURL := bare.DeepCopy()
	withURL.Spec.Mounts[0].EncryptOptions = []datav1alpha1.EncryptOption{{Name: "metaurl", ValueFrom: datav1alpha1.EncryptOptionSource{
		SecretKeyRef: datav1alpha1.SecretKeySelector{Name: "jfs", Key: "metaurl"}}}}
	labelled := bare.DeepCopy()
	labelled.Labels = map[string]string{"team": "a"}

	created := fieldsOf(bare, nil, check)
	if len(created) == 0 || created[0].Unchanged {
		t.Fatalf("CREATE of a Dataset without metaurl: %+v, want a refused field, not unchanged", created)
	}
	if got := fieldsOf(labelled, bare, check); len(got) != 1 || !got[0].Unchanged || got[0].Support != engines.Refused {
		t.Errorf("a label edit of a Dataset without metaurl: %+v, want the refused field unchanged", got)
	}
	respec := labelled.DeepCopy()
	respec.Spec.Mounts[0].MountPoint = "juicefs:///logs-2"
	if got := fieldsOf(respec, labelled, check); len(got) != 1 || got[0].Unchanged {
		t.Errorf("a spec change of a Dataset without metaurl: %+v, want the refused field, not unchanged", got)
	}
	if diff := cmp.Diff([]FieldFact{{Finding: created[0].Finding}}, fieldsOf(bare, withURL, check)); diff != "" {
		t.Errorf("an UPDATE removing metaurl (-want +got):\n%s", diff)
	}
	if got := fieldsOf(withURL, bare, check); got != nil {
		t.Errorf("an UPDATE adding metaurl: %+v, want no findings", got)
	}
	var none *datav1alpha1.Dataset
	if got := fieldsOf(labelled, none, check); len(got) != 1 || got[0].Unchanged {
		t.Errorf("a typed nil old object: %+v", got)
	}
}
