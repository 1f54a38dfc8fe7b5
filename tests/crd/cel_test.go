package crd_test

import (
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// level is a tieredstore level built field by field for the CEL tables.
func level(path, quota, quotaList, high, low string) datav1alpha1.Level {
	l := testobj.Level(datav1alpha1.SSD, path, quota)
	l.QuotaList, l.High, l.Low = quotaList, high, low
	return l
}

// TestCELRules creates objects that break one single-object rule each and
// checks that the real API server rejects them with the rule's message;
// the valid rows prove that the rules do not reject good objects.
func TestCELRules(t *testing.T) {
	const (
		quotaMsg     = "tieredstore level: quota or quotaList must be set"
		highMsg      = "tieredstore level: high must be a number in (0,1]"
		lowMsg       = "tieredstore level: low must be a number in (0,1]"
		orderMsg     = "tieredstore level: high must be greater than low"
		quotaListMsg = "tieredstore level: quotaList must have one entry per path"
		cronMsg      = "spec.schedule is required when spec.policy is Cron"
		mountMsg     = "mounts[].mountPoint must not be blank"
	)
	jfs := func(l datav1alpha1.Level) func(ns string) client.Object {
		return func(ns string) client.Object { return testobj.JuiceFSRuntime("demo", ns, 1, l) }
	}
	tests := []struct {
		name    string
		obj     func(ns string) client.Object
		wantErr string // "" means the object is valid
	}{
		// name, object, expected rejection message
		{"no quota and no quotaList", jfs(level("/mnt/a", "", "", "", "")), quotaMsg},
		{"quota only", jfs(level("/mnt/a", "10Gi", "", "", "")), ""},
		{"quotaList only", jfs(level("/mnt/a,/mnt/b", "", "5Gi,5Gi", "", "")), ""},
		{"quotaList shorter than path", jfs(level("/mnt/a,/mnt/b", "", "5Gi", "", "")), quotaListMsg},
		{"quotaList longer than path", jfs(level("/mnt/a", "", "5Gi,5Gi", "", "")), quotaListMsg},
		{"high above 1", jfs(level("/mnt/a", "1Gi", "", "1.5", "")), highMsg},
		{"high zero", jfs(level("/mnt/a", "1Gi", "", "0", "")), highMsg},
		{"high not a number", jfs(level("/mnt/a", "1Gi", "", "ninety", "")), highMsg},
		{"high negative", jfs(level("/mnt/a", "1Gi", "", "-0.5", "")), highMsg},
		{"low zero", jfs(level("/mnt/a", "1Gi", "", "", "0.0")), lowMsg},
		{"low above 1", jfs(level("/mnt/a", "1Gi", "", "", "2")), lowMsg},
		{"high below low", jfs(level("/mnt/a", "1Gi", "", "0.5", "0.7")), orderMsg},
		{"high equal to low", jfs(level("/mnt/a", "1Gi", "", "0.7", "0.7")), orderMsg},
		{"high 1 and low .5", jfs(level("/mnt/a", "1Gi", "", "1", ".5")), ""},
		{"high 0.95 and low 0.7", jfs(level("/mnt/a", "1Gi", "", "0.95", "0.7")), ""},
		{"rule holds on AlluxioRuntime", func(ns string) client.Object {
			return &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: ns},
				Spec: datav1alpha1.AlluxioRuntimeSpec{TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{level("/dev/shm", "", "", "", "")}}}}
		}, quotaMsg},
		{"rule holds on JindoRuntime", func(ns string) client.Object {
			return &datav1alpha1.JindoRuntime{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: ns},
				Spec: datav1alpha1.JindoRuntimeSpec{TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{level("/mnt/a", "1Gi", "", "0.2", "0.3")}}}}
		}, orderMsg},
		{"rule holds on ThinRuntime", func(ns string) client.Object {
			return &datav1alpha1.ThinRuntime{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: ns},
				Spec: datav1alpha1.ThinRuntimeSpec{TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{level("/a", "", "1Gi,1Gi", "", "")}}}}
		}, quotaListMsg},
		{"DataLoad Cron without schedule", func(ns string) client.Object {
			dl := testobj.DataLoad("demo", ns, "demo")
			dl.Spec.Policy = datav1alpha1.Cron
			return dl
		}, cronMsg},
		{"DataLoad Cron with schedule", func(ns string) client.Object {
			dl := testobj.DataLoad("demo", ns, "demo")
			dl.Spec.Policy, dl.Spec.Schedule = datav1alpha1.Cron, "*/5 * * * *"
			return dl
		}, ""},
		{"DataMigrate Cron without schedule", func(ns string) client.Object {
			return &datav1alpha1.DataMigrate{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: ns}, Spec: datav1alpha1.DataMigrateSpec{
				Policy: datav1alpha1.Cron,
				From:   datav1alpha1.DataToMigrate{ExternalStorage: &datav1alpha1.ExternalStorage{URI: "s3://b/p"}},
				To:     datav1alpha1.DataToMigrate{DataSet: &datav1alpha1.DatasetToMigrate{Name: "demo", Namespace: ns}}}}
		}, cronMsg},
		{"DataProcess Cron without schedule", func(ns string) client.Object {
			return &datav1alpha1.DataProcess{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: ns}, Spec: datav1alpha1.DataProcessSpec{
				Policy:    datav1alpha1.Cron,
				Dataset:   datav1alpha1.TargetDatasetWithMountPath{Name: "demo", MountPath: "/data"},
				Processor: datav1alpha1.Processor{Script: &datav1alpha1.ScriptProcessor{Source: "true"}}}}
		}, cronMsg},
		{"blank mountPoint", func(ns string) client.Object {
			return testobj.Dataset("demo", ns, testobj.WithMounts("s3://ok/a", "      "))
		}, mountMsg},
		{"mountPoint with surrounding blanks", func(ns string) client.Object {
			return testobj.Dataset("demo", ns, testobj.WithMounts("  s3://bucket  "))
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := tt.obj(env.Namespace(t))
			err := env.Client.Create(ctxT(t), obj)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("valid object rejected: %v", err)
			case tt.wantErr == "":
				return
			case err == nil:
				t.Fatalf("invalid object accepted; want %q", tt.wantErr)
			case !apierrors.IsInvalid(err):
				t.Fatalf("want an Invalid error, got %v", err)
			case !strings.Contains(err.Error(), tt.wantErr):
				t.Fatalf("error %q does not carry the rule's message %q", err, tt.wantErr)
			}
		})
	}
}
