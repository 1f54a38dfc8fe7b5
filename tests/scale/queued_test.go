package scale_test

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/operation"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// chainsHeld passes chains whose links started after (or in the second
// of) their predecessor's completion, and fails a link that started
// before, one without its conditions and a missing predecessor.
func TestChainsHeldJudgesEveryLink(t *testing.T) {
	at := func(s int) metav1.Time { return metav1.NewTime(time.Date(2026, 12, 6, 5, 0, s, 0, time.UTC)) }
	chains := func(started func(dataset, j int) int) []datav1alpha1.DataLoad {
		var loads []datav1alpha1.DataLoad
		for d := range queuedDatasets {
			name := datasetName(d)
			for j := range 3 {
				dl := testobj.DataLoad(chainLink(name, j), "ns", name)
				if j > 0 {
					dl.Spec.RunAfter = &datav1alpha1.OperationRef{ObjectRef: datav1alpha1.ObjectRef{Kind: datav1alpha1.DataLoadKind, Name: chainLink(name, j-1)}}
				}
				dl.Status.Conditions = []metav1.Condition{
					{Type: operation.ConditionReleaseInstalled, Status: metav1.ConditionTrue, LastTransitionTime: at(started(d, j))},
					{Type: operation.ConditionComplete, Status: metav1.ConditionTrue, LastTransitionTime: at(10*j + 9)},
				}
				loads = append(loads, *dl)
			}
		}
		return loads
	}
	inOrder := func(_, j int) int { return 10 * j }
	if err := chainsHeld(chains(inOrder)); err != nil {
		t.Errorf("chains in order: %v", err)
	}
	sameSecond := chains(func(_, j int) int { return max(10*j-1, 0) })
	if err := chainsHeld(sameSecond); err != nil {
		t.Errorf("started in the second its predecessor completed: %v", err)
	}
	early := chains(func(d, j int) int {
		if d == 7 && j == 2 {
			return 15 // before ds-0007-load-01 completed at 19
		}
		return 10 * j
	})
	if err := chainsHeld(early); err == nil || !strings.Contains(err.Error(), "ds-0007-load-02 started") {
		t.Errorf("a link started early: %v", err)
	}
	noCondition := chains(inOrder)
	noCondition[5].Status.Conditions = noCondition[5].Status.Conditions[1:]
	if err := chainsHeld(noCondition); err == nil {
		t.Error("a link without ReleaseInstalled passed")
	}
	missing := chains(inOrder)
	missing = append(missing[:3], missing[4:]...)
	if err := chainsHeld(missing); err == nil {
		t.Error("a missing predecessor passed")
	}
}
