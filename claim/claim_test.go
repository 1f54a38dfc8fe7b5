package claim

import (
	"context"
	"errors"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

var (
	now      = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	dsKey    = types.NamespacedName{Namespace: "ns", Name: "ds"}
	loadConf = []string{"DataLoad", "DataMigrate"}
)

func dataset(ref map[string]string, claims ...datav1alpha1.OperationClaim) *datav1alpha1.Dataset {
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "ds"}}
	ds.Status.OperationRef = ref
	ds.Status.OperationClaims = claims
	return ds
}

func load(name string, phase datav1alpha1.Phase) *datav1alpha1.DataLoad {
	dl := &datav1alpha1.DataLoad{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
	dl.Status.Phase = phase
	return dl
}

func claimer(objs ...client.Object) (*Claimer, client.Client) {
	c := fake.NewClientBuilder().WithScheme(sluicescheme.New()).WithObjects(objs...).
		WithStatusSubresource(&datav1alpha1.Dataset{}).Build()
	return &Claimer{Client: c, Grace: 30 * time.Second, Attempts: 3, Now: func() time.Time { return now }}, c
}

func stored(t *testing.T, c client.Client) *datav1alpha1.Dataset {
	t.Helper()
	ds := &datav1alpha1.Dataset{}
	if err := c.Get(context.Background(), dsKey, ds); err != nil {
		t.Fatal(err)
	}
	return ds
}

func claimedAt(d time.Duration) metav1.Time { return metav1.NewTime(now.Add(-d)) }

func TestClaim(t *testing.T) {
	tests := []struct {
		name     string
		objs     []client.Object
		req      Request
		wantHeld []string          // holders named by a HeldError; nil means the claim succeeds
		wantRef  map[string]string // status.operationRef afterwards
	}{
		{"free dataset", []client.Object{dataset(nil)},
			Request{Dataset: dsKey, Kind: "DataLoad", Name: "a", Conflicts: loadConf}, nil, map[string]string{"DataLoad": "a"}},
		{"held by a running load", []client.Object{dataset(map[string]string{"DataLoad": "a"}), load("a", datav1alpha1.PhaseExecuting)},
			Request{Dataset: dsKey, Kind: "DataLoad", Name: "b", Conflicts: loadConf}, []string{"DataLoad a"}, map[string]string{"DataLoad": "a"}},
		{"held by a migration", []client.Object{dataset(map[string]string{"DataMigrate": "m"}), &datav1alpha1.DataMigrate{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m"}}},
			Request{Dataset: dsKey, Kind: "DataLoad", Name: "b", Conflicts: loadConf}, []string{"DataMigrate m"}, map[string]string{"DataMigrate": "m"}},
		{"a finished holder is released", []client.Object{dataset(map[string]string{"DataLoad": "a"}), load("a", datav1alpha1.PhaseComplete)},
			Request{Dataset: dsKey, Kind: "DataLoad", Name: "b", Conflicts: loadConf}, nil, map[string]string{"DataLoad": "b"}},
		{"a missing holder within the grace period holds", []client.Object{dataset(map[string]string{"DataLoad": "a"}, datav1alpha1.OperationClaim{Kind: "DataLoad", Name: "a", ClaimedAt: claimedAt(5 * time.Second)})},
			Request{Dataset: dsKey, Kind: "DataLoad", Name: "b", Conflicts: loadConf}, []string{"DataLoad a"}, map[string]string{"DataLoad": "a"}},
		{"a missing holder past the grace period is released", []client.Object{dataset(map[string]string{"DataLoad": "a"}, datav1alpha1.OperationClaim{Kind: "DataLoad", Name: "a", ClaimedAt: claimedAt(time.Minute)})},
			Request{Dataset: dsKey, Kind: "DataLoad", Name: "b", Conflicts: loadConf}, nil, map[string]string{"DataLoad": "b"}},
		{"non-conflicting kinds share", []client.Object{dataset(map[string]string{"DataProcess": "p1"}), &datav1alpha1.DataProcess{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p1"}}},
			Request{Dataset: dsKey, Kind: "DataProcess", Name: "p2", Conflicts: []string{"DataMigrate"}}, nil, map[string]string{"DataProcess": "p1,p2"}},
		{"re-claiming is a no-op", []client.Object{dataset(map[string]string{"DataLoad": "a"}), load("a", datav1alpha1.PhasePending)},
			Request{Dataset: dsKey, Kind: "DataLoad", Name: "a", Conflicts: loadConf}, nil, map[string]string{"DataLoad": "a"}},
		{"dry run checks but does not write", []client.Object{dataset(nil)},
			Request{Dataset: dsKey, Kind: "DataLoad", Name: "a", Conflicts: loadConf, DryRun: true}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl, c := claimer(tt.objs...)
			err := cl.Claim(context.Background(), tt.req)
			var held *HeldError
			switch {
			case tt.wantHeld == nil && err != nil:
				t.Fatalf("claim failed: %v", err)
			case tt.wantHeld != nil && !errors.As(err, &held):
				t.Fatalf("want a HeldError naming %v, got %v", tt.wantHeld, err)
			case tt.wantHeld != nil:
				if len(held.Holders) != len(tt.wantHeld) || held.Holders[0].String() != tt.wantHeld[0] {
					t.Fatalf("holders = %v, want %v", held.Holders, tt.wantHeld)
				}
			}
			ds := stored(t, c)
			if len(ds.Status.OperationRef) != len(tt.wantRef) {
				t.Fatalf("operationRef = %v, want %v", ds.Status.OperationRef, tt.wantRef)
			}
			for k, v := range tt.wantRef {
				if ds.Status.OperationRef[k] != v {
					t.Fatalf("operationRef = %v, want %v", ds.Status.OperationRef, tt.wantRef)
				}
			}
			if tt.wantHeld == nil && !tt.req.DryRun && tt.name != "re-claiming is a no-op" {
				var recorded bool
				for _, c := range ds.Status.OperationClaims {
					recorded = recorded || (c.Kind == tt.req.Kind && c.Name == tt.req.Name && c.ClaimedAt.Time.Equal(now))
				}
				if !recorded {
					t.Fatalf("no claim time recorded for the new holder: %v", ds.Status.OperationClaims)
				}
			}
		})
	}
}

func TestClaimMissingDataset(t *testing.T) {
	cl, _ := claimer()
	var nf *NotFoundError
	if err := cl.Claim(context.Background(), Request{Dataset: dsKey, Kind: "DataLoad", Name: "a", Conflicts: loadConf}); !errors.As(err, &nf) {
		t.Fatalf("want NotFoundError, got %v", err)
	}
}

func TestReleaseAndTarget(t *testing.T) {
	ds := dataset(map[string]string{"DataProcess": "p1,p2"}, datav1alpha1.OperationClaim{Kind: "DataProcess", Name: "p1"}, datav1alpha1.OperationClaim{Kind: "DataProcess", Name: "p2"})
	if !Release(ds, "DataProcess", "p1") || ds.Status.OperationRef["DataProcess"] != "p2" || len(ds.Status.OperationClaims) != 1 {
		t.Fatalf("after release: %v %v", ds.Status.OperationRef, ds.Status.OperationClaims)
	}
	if !Release(ds, "DataProcess", "p2") || len(ds.Status.OperationRef) != 0 {
		t.Fatalf("after releasing the last: %v", ds.Status.OperationRef)
	}
	if Release(ds, "DataProcess", "p2") {
		t.Fatal("releasing twice reported a change")
	}
	dm := &datav1alpha1.DataMigrate{ObjectMeta: metav1.ObjectMeta{Namespace: "ns"}}
	dm.Spec.From.ExternalStorage = &datav1alpha1.ExternalStorage{URI: "s3://b"}
	dm.Spec.To.DataSet = &datav1alpha1.DatasetToMigrate{Name: "ds", Namespace: "other"}
	if ns, n, ok := Target(dm); !ok || ns != "other" || n != "ds" {
		t.Fatalf("migrate target = %s/%s %v", ns, n, ok)
	}
	bk := &datav1alpha1.DataBackup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns"}, Spec: datav1alpha1.DataBackupSpec{Dataset: "ds"}}
	if ns, n, ok := Target(bk); !ok || ns != "ns" || n != "ds" {
		t.Fatalf("backup target = %s/%s %v", ns, n, ok)
	}
}
