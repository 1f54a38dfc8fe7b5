package validating

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

func TestLevelFacts(t *testing.T) {
	q := resource.MustParse("2Gi")
	got := levelFacts(datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{
		{MediumType: datav1alpha1.Memory, Path: "/dev/shm", Quota: &q, High: "0.9", Low: "0.5"},
		{MediumType: datav1alpha1.SSD, Path: "/a, /b", QuotaList: "1Gi,2Gi"},
		{MediumType: datav1alpha1.HDD, Path: "/h", QuotaList: "1Gi,lots"},
		{MediumType: datav1alpha1.HDD, Path: "/x"},
	}})
	want := []LevelFacts{
		{Index: 0, Medium: "MEM", Paths: []string{"/dev/shm"}, QuotaBytes: 2 << 30, QuotaListBytes: []int64{}, High: "0.9", Low: "0.5"},
		{Index: 1, Medium: "SSD", Paths: []string{"/a", "/b"}, QuotaListBytes: []int64{1 << 30, 2 << 30}},
		{Index: 2, Medium: "HDD", Paths: []string{"/h"}, QuotaListBytes: []int64{1 << 30}, QuotaField: "quotaList[1]",
			QuotaError: `"lots" is not a quantity: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`},
		{Index: 3, Medium: "HDD", Paths: []string{"/x"}, QuotaListBytes: []int64{}, QuotaField: "quota", QuotaError: "quota or quotaList must be set"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("levels (-want +got):\n%s", diff)
	}
}

func TestMountFactsAndUsage(t *testing.T) {
	mf := mountFacts([]datav1alpha1.Mount{{MountPoint: "s3://b/p"}, {MountPoint: "10.0.0.1:/export"}})
	if mf[0].Scheme != "s3" || mf[1].Scheme != "" {
		t.Fatalf("schemes = %+v", mf)
	}
	q := resource.MustParse("1Gi")
	rt := &datav1alpha1.JuiceFSRuntime{Spec: datav1alpha1.JuiceFSRuntimeSpec{Replicas: 3, TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{
		{MediumType: datav1alpha1.Memory, Path: "/dev/shm", Quota: &q},
		{MediumType: datav1alpha1.SSD, Path: "/a,/b", QuotaList: "1Gi,1Gi"},
	}}}}
	u := map[string]int64{}
	usage(u, rt)
	if u["MEM"] != 3<<30 || u["SSD"] != 6<<30 {
		t.Fatalf("usage = %v", u)
	}
}
