package v1alpha1

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestGetTargetDataset(t *testing.T) {
	own := metav1.ObjectMeta{Name: "op", Namespace: "team"}
	for _, tc := range []struct {
		name   string
		op     OperationObject
		ns, ds string // the Dataset named
		ok     bool   // whether one is named
	}{
		{"DataLoad in its own namespace", &DataLoad{ObjectMeta: own, Spec: DataLoadSpec{Dataset: TargetDataset{Name: "d"}}}, "team", "d", true},
		{"DataLoad naming a namespace", &DataLoad{ObjectMeta: own, Spec: DataLoadSpec{Dataset: TargetDataset{Name: "d", Namespace: "other"}}}, "other", "d", true},
		{"DataLoad naming none", &DataLoad{ObjectMeta: own}, "team", "", false},
		{"DataProcess", &DataProcess{ObjectMeta: own, Spec: DataProcessSpec{Dataset: TargetDatasetWithMountPath{Name: "d", MountPath: "/data"}}}, "team", "d", true},
		{"DataBackup", &DataBackup{ObjectMeta: own, Spec: DataBackupSpec{Dataset: "d"}}, "team", "d", true},
		{"DataMigrate to a Dataset", &DataMigrate{ObjectMeta: own, Spec: DataMigrateSpec{
			From: DataToMigrate{DataSet: &DatasetToMigrate{Name: "src"}}, To: DataToMigrate{DataSet: &DatasetToMigrate{Name: "dst", Namespace: "x"}}}}, "x", "dst", true},
		{"DataMigrate from a Dataset", &DataMigrate{ObjectMeta: own, Spec: DataMigrateSpec{From: DataToMigrate{DataSet: &DatasetToMigrate{Name: "src"}}}}, "team", "src", true},
		{"DataMigrate between external stores", &DataMigrate{ObjectMeta: own}, "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns, ds, ok := tc.op.GetTargetDataset()
			if ok != tc.ok || ds != tc.ds || (ok && ns != tc.ns) {
				t.Fatalf("GetTargetDataset() = %q, %q, %v; want %q, %q, %v", ns, ds, ok, tc.ns, tc.ds, tc.ok)
			}
		})
	}
}

func TestNewOperationAndFinished(t *testing.T) {
	for _, kind := range []OperationKind{DataLoadKind, DataMigrateKind, DataBackupKind, DataProcessKind} {
		op, ok := NewOperation(string(kind))
		if !ok || op == nil {
			t.Fatalf("NewOperation(%s) = %v, %v", kind, op, ok)
		}
		s := op.GetOperationStatus()
		for phase, finished := range map[Phase]bool{PhaseNone: false, PhasePending: false, PhaseExecuting: false, PhaseComplete: true, PhaseFailed: true} {
			s.Phase = phase
			if op.GetOperationStatus().Finished() != finished {
				t.Errorf("%s in phase %q: Finished() = %v", kind, phase, !finished)
			}
		}
	}
	if op, ok := NewOperation("Dataset"); ok || op != nil {
		t.Fatalf("NewOperation(Dataset) = %v, %v; want nil, false", op, ok)
	}
}

func TestKindPolicyScheduleAndTTL(t *testing.T) {
	ttl := int32(30)
	for _, tc := range []struct {
		op       OperationObject
		kind     OperationKind
		policy   Policy // Once when the spec leaves it empty
		schedule string
	}{
		{&DataLoad{Spec: DataLoadSpec{TTLSecondsAfterFinished: &ttl}}, DataLoadKind, Once, ""},
		{&DataLoad{Spec: DataLoadSpec{Policy: Cron, Schedule: "*/5 * * * *", TTLSecondsAfterFinished: &ttl}}, DataLoadKind, Cron, "*/5 * * * *"},
		{&DataMigrate{Spec: DataMigrateSpec{Policy: OnEvent, TTLSecondsAfterFinished: &ttl}}, DataMigrateKind, OnEvent, ""},
		{&DataProcess{Spec: DataProcessSpec{Policy: Cron, Schedule: "@hourly", TTLSecondsAfterFinished: &ttl}}, DataProcessKind, Cron, "@hourly"},
		{&DataBackup{Spec: DataBackupSpec{TTLSecondsAfterFinished: &ttl}}, DataBackupKind, Once, ""},
	} {
		t.Run(string(tc.kind)+"/"+string(tc.policy), func(t *testing.T) {
			if k := tc.op.GetOperationKind(); k != tc.kind {
				t.Errorf("kind = %s, want %s", k, tc.kind)
			}
			if p := tc.op.GetPolicy(); p != tc.policy {
				t.Errorf("policy = %q, want %q", p, tc.policy)
			}
			if s := tc.op.GetSchedule(); s != tc.schedule {
				t.Errorf("schedule = %q, want %q", s, tc.schedule)
			}
			if got := tc.op.GetTTLSecondsAfterFinished(); got == nil || *got != ttl {
				t.Errorf("ttlSecondsAfterFinished = %v, want %d", got, ttl)
			}
		})
	}
}

func TestNewOperationList(t *testing.T) {
	for _, kind := range []OperationKind{DataLoadKind, DataMigrateKind, DataBackupKind, DataProcessKind} {
		list, ok := NewOperationList(string(kind))
		if !ok || len(list.GetOperations()) != 0 {
			t.Fatalf("NewOperationList(%s) = %v, %v", kind, list, ok)
		}
	}
	l := &DataLoadList{Items: []DataLoad{{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, {ObjectMeta: metav1.ObjectMeta{Name: "b"}}}}
	ops := l.GetOperations()
	ops[1].GetOperationStatus().Phase = PhaseComplete
	if len(ops) != 2 || ops[0].GetName() != "a" || l.Items[1].Status.Phase != PhaseComplete {
		t.Fatalf("GetOperations does not point at the items: %v", ops)
	}
	if _, ok := NewOperationList("Dataset"); ok {
		t.Fatal("NewOperationList(Dataset) succeeded")
	}
}
