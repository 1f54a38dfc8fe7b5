package jindo

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

func TestJindoSize(t *testing.T) {
	for b, want := range map[int64]string{
		10 * gib:        "10g",
		gib + gib/2:     "1536m",
		mib:             "1m",
		3*mib + mib/2:   "3m",
		1024 * 1024 * 5: "5m",
	} {
		if got := jindoSize(b); got != want {
			t.Errorf("jindoSize(%d) = %q, want %q", b, got, want)
		}
	}
}

func TestCacheLayout(t *testing.T) {
	q := resource.MustParse("3Gi")
	c, err := cacheLayout(datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{{
		MediumType: datav1alpha1.HDD, Path: " /data/a/ ,/data/b", Quota: &q,
	}}}, "ns", "ds")
	if err != nil {
		t.Fatal(err)
	}
	want := cache{
		Tiers: []tier{
			{Name: "cache-0", Path: "/data/a", Type: "hostPath", HostPath: "/data/a/.sluice/ns/ds"},
			{Name: "cache-1", Path: "/data/b", Type: "hostPath", HostPath: "/data/b/.sluice/ns/ds"},
		},
		Medium:     datav1alpha1.HDD,
		DataDirs:   []string{"/data/a/ns/ds/jindocache", "/data/b/ns/ds/jindocache"},
		Capacities: []string{"1536m", "1536m"},
		TotalBytes: 3 * gib,
	}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("quota split evenly over paths (-want +got):\n%s", diff)
	}

	c, err = cacheLayout(datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{{
		MediumType: datav1alpha1.SSD, VolumeType: datav1alpha1.VolumeTypeEmptyDir, Path: "/a,/b", QuotaList: "1Gi, 512Mi",
	}}}, "ns", "ds")
	if err != nil {
		t.Fatal(err)
	}
	if c.Tiers[0].SizeLimit != "1Gi" || c.Tiers[1].SizeLimit != "512Mi" || c.Tiers[0].Medium != "" || c.TotalBytes != gib+gib/2 {
		t.Errorf("quotaList on emptyDir SSD: %+v", c)
	}
}
