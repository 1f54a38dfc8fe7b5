package validating

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

func after(kind datav1alpha1.OperationKind, name string) *datav1alpha1.OperationRef {
	return &datav1alpha1.OperationRef{ObjectRef: datav1alpha1.ObjectRef{Kind: kind, Name: name}}
}

func load(name string, runAfter *datav1alpha1.OperationRef) *datav1alpha1.DataLoad {
	return &datav1alpha1.DataLoad{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: name},
		Spec: datav1alpha1.DataLoadSpec{Dataset: datav1alpha1.TargetDataset{Name: "d"}, RunAfter: runAfter}}
}

func proc(name string, runAfter *datav1alpha1.OperationRef) *datav1alpha1.DataProcess {
	return &datav1alpha1.DataProcess{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: name},
		Spec: datav1alpha1.DataProcessSpec{Dataset: datav1alpha1.TargetDatasetWithMountPath{Name: "d", MountPath: "/d"}, RunAfter: runAfter}}
}

// TestRunAfterCycle follows runAfter and dependOn through the cache back to
// the admitted operation.
func TestRunAfterCycle(t *testing.T) {
	dependOn := after(datav1alpha1.DataLoadKind, "other")
	dependOn.AffinityStrategy.DependOn = &datav1alpha1.ObjectRef{Kind: datav1alpha1.DataProcessKind, Name: "p"}
	elsewhere := after(datav1alpha1.DataLoadKind, "a")
	elsewhere.Namespace = "m"
	for _, tc := range []struct {
		name    string
		stored  []client.Object
		admit   datav1alpha1.OperationObject
		want    string // the cycle, joined by " → "; "" for none
		missing bool   // the runAfter operation does not exist
	}{
		{"itself (not stored yet)", nil, load("a", after(datav1alpha1.DataLoadKind, "a")), "DataLoad a → DataLoad a", true},
		{"two operations", []client.Object{proc("p", after(datav1alpha1.DataLoadKind, "a"))}, load("a", after(datav1alpha1.DataProcessKind, "p")),
			"DataLoad a → DataProcess p → DataLoad a", false},
		{"three, through dependOn", []client.Object{load("other", nil), proc("p", after(datav1alpha1.DataLoadKind, "b")), load("b", after(datav1alpha1.DataLoadKind, "a"))},
			load("a", dependOn), "DataLoad a → DataProcess p → DataLoad b → DataLoad a", false},
		{"a chain without a cycle", []client.Object{proc("p", after(datav1alpha1.DataLoadKind, "b")), load("b", nil)}, load("a", after(datav1alpha1.DataProcessKind, "p")), "", false},
		{"same name, other kind", []client.Object{proc("a", nil)}, load("a", after(datav1alpha1.DataProcessKind, "a")), "", false},
		{"a reference to another namespace is not followed", []client.Object{load("x", after(datav1alpha1.DataLoadKind, "a"))}, load("a", elsewhere), "", true},
		{"the operation after does not exist yet", nil, load("a", after(datav1alpha1.DataLoadKind, "later")), "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &Gatherer{Reader: fake.NewClientBuilder().WithScheme(sluicescheme.New()).WithObjects(tc.stored...).Build()}
			f, err := g.Facts(context.Background(), string(tc.admit.GetOperationKind()), tc.admit, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(f.RunAfter.Cycle, " → "); got != tc.want || f.RunAfter.Exists == tc.missing {
				t.Fatalf("cycle %q exists %v, want %q exists %v", got, f.RunAfter.Exists, tc.want, !tc.missing)
			}
		})
	}
}

// TestRunAfterCycleSearchIsBounded: a chain longer than maxFollowed is not
// followed to its end.
func TestRunAfterCycleSearchIsBounded(t *testing.T) {
	var stored []client.Object
	name := func(i int) string { return "op-" + strings.Repeat("x", i) }
	for i := 1; i <= maxFollowed+5; i++ {
		stored = append(stored, load(name(i), after(datav1alpha1.DataLoadKind, name(i+1))))
	}
	stored = append(stored, load(name(maxFollowed+6), after(datav1alpha1.DataLoadKind, "a")))
	g := &Gatherer{Reader: fake.NewClientBuilder().WithScheme(sluicescheme.New()).WithObjects(stored...).Build()}
	f, err := g.Facts(context.Background(), "DataLoad", load("a", after(datav1alpha1.DataLoadKind, name(1))), nil, false)
	if err != nil || len(f.RunAfter.Cycle) != 0 {
		t.Fatalf("a cycle %d operations long was followed to its end: %v %v", maxFollowed+7, f.RunAfter.Cycle, err)
	}
}

func TestScheduleError(t *testing.T) {
	for schedule, want := range map[string]string{
		"0 2 * * *":             "",
		"@hourly":               "",
		"*/5 * * * 1-5":         "",
		"0 2 * *":               "expected exactly 5 fields, found 4: [0 2 * *]",
		"CRON_TZ=UTC 0 2 * * *": "a time zone (TZ= or CRON_TZ=) cannot be set in the schedule",
		"61 * * * *":            "end of range (61) above maximum (59): 61",
		"":                      "empty spec string",
	} {
		if got := scheduleError(schedule); got != want {
			t.Errorf("scheduleError(%q) = %q, want %q", schedule, got, want)
		}
	}
}

// TestOperationFacts: the target's engine comes from the Dataset's bound
// runtime; the schedule is parsed for Cron operations only.
func TestOperationFacts(t *testing.T) {
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "d"},
		Status: datav1alpha1.DatasetStatus{Runtimes: []datav1alpha1.Runtime{{Name: "d", Type: "alluxio"}}}}
	g := &Gatherer{Reader: fake.NewClientBuilder().WithScheme(sluicescheme.New()).WithObjects(ds).Build()}
	once := load("a", nil)
	f, err := g.Facts(context.Background(), "DataLoad", once, nil, false)
	if err != nil || f.Target.RuntimeType != "alluxio" || f.Schedule != nil || f.RunAfter != nil {
		t.Fatalf("facts %+v %+v (%v)", f.Target, f.Schedule, err)
	}
	cron := load("b", nil)
	cron.Spec.Policy, cron.Spec.Schedule = datav1alpha1.Cron, "not a schedule"
	cron.Spec.Dataset.Name = "unbound"
	f, err = g.Facts(context.Background(), "DataLoad", cron, nil, false)
	if err != nil || f.Target.RuntimeType != "" || f.Schedule == nil || f.Schedule.Error == "" {
		t.Fatalf("facts %+v %+v (%v)", f.Target, f.Schedule, err)
	}
}
