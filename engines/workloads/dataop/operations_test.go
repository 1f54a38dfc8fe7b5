package dataop_test

import (
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/alluxio"
	"github.com/sluice-data/sluice/engines/jindo"
	"github.com/sluice-data/sluice/engines/juicefs"
	"github.com/sluice-data/sluice/engines/thin"
	"github.com/sluice-data/sluice/engines/workloads/process"
)

// An engine's smallest Dataset and runtime, and what renders operations.
type engineCase struct {
	name    string
	ops     engines.Operations
	dataset func() *datav1alpha1.Dataset
	runtime client.Object
}

func withMount(uri string, opts map[string]string, secrets ...datav1alpha1.EncryptOption) func() *datav1alpha1.Dataset {
	return func() *datav1alpha1.Dataset {
		ds := dataset()
		ds.Spec.Mounts = []datav1alpha1.Mount{{MountPoint: uri, Name: "train", Options: opts, EncryptOptions: secrets}}
		return ds
	}
}

var metaURL = datav1alpha1.EncryptOption{Name: "metaurl", ValueFrom: datav1alpha1.EncryptOptionSource{SecretKeyRef: datav1alpha1.SecretKeySelector{Name: "jfs", Key: "metaurl"}}}

var engineCases = []engineCase{
	{"JuiceFS", juicefs.Engine{}, withMount("juicefs:///imagenet", nil, metaURL), &datav1alpha1.JuiceFSRuntime{ObjectMeta: metav1.ObjectMeta{Name: "imagenet", Namespace: "team-a"}}},
	{"Alluxio", alluxio.Engine{}, withMount("s3://bucket/train", nil), &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Name: "imagenet", Namespace: "team-a"}}},
	{"Jindo", jindo.Engine{}, withMount("oss://bucket/train", map[string]string{"fs.oss.endpoint": "oss-cn-hangzhou.aliyuncs.com"}), &datav1alpha1.JindoRuntime{ObjectMeta: metav1.ObjectMeta{Name: "imagenet", Namespace: "team-a"}}},
	{"Thin", thin.Engine{SluiceImage: "ghcr.io/sluice-data/sluice:v1.0.0"}, withMount("nfs://server/export", nil), &datav1alpha1.ThinRuntime{ObjectMeta: metav1.ObjectMeta{Name: "imagenet", Namespace: "team-a"}}},
	{"process", process.Operations{}, withMount("s3://bucket/train", nil), nil},
}

// Operations of each kind, with what each kind needs and nothing more.
var kinds = map[datav1alpha1.OperationKind]func() datav1alpha1.OperationObject{
	datav1alpha1.DataLoadKind: func() datav1alpha1.OperationObject { return dataLoad() },
	datav1alpha1.DataMigrateKind: func() datav1alpha1.OperationObject {
		return &datav1alpha1.DataMigrate{ObjectMeta: metav1.ObjectMeta{Name: "export", Namespace: "team-a"}, Spec: datav1alpha1.DataMigrateSpec{
			From: datav1alpha1.DataToMigrate{DataSet: &datav1alpha1.DatasetToMigrate{Name: "imagenet", Namespace: "team-a"}},
			To:   datav1alpha1.DataToMigrate{ExternalStorage: &datav1alpha1.ExternalStorage{URI: "s3://archive/imagenet"}}}}
	},
	datav1alpha1.DataBackupKind: func() datav1alpha1.OperationObject {
		return &datav1alpha1.DataBackup{ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "team-a"},
			Spec: datav1alpha1.DataBackupSpec{Dataset: "imagenet", BackupPath: "local:///var/backups"}}
	},
	datav1alpha1.DataProcessKind: func() datav1alpha1.OperationObject {
		return &datav1alpha1.DataProcess{ObjectMeta: metav1.ObjectMeta{Name: "index", Namespace: "team-a"}, Spec: datav1alpha1.DataProcessSpec{
			Dataset: datav1alpha1.TargetDatasetWithMountPath{Name: "imagenet", MountPath: "/data"},
			Processor: datav1alpha1.Processor{Script: &datav1alpha1.ScriptProcessor{
				VersionSpec: datav1alpha1.VersionSpec{Image: "busybox"}, Command: []string{"sh"}, Source: "ls /data"}}}}
	},
}

// TestSupportMatrix: what each engine runs, and that every other kind is
// refused with ReasonUnsupported naming the engine and the kind.
func TestSupportMatrix(t *testing.T) {
	const (
		runs        = true
		unsupported = false
	)
	matrix := map[string]map[datav1alpha1.OperationKind]bool{
		//              DataLoad, DataMigrate, DataBackup, DataProcess
		"JuiceFS": {"DataLoad": runs, "DataMigrate": runs, "DataBackup": unsupported, "DataProcess": unsupported},
		"Alluxio": {"DataLoad": runs, "DataMigrate": unsupported, "DataBackup": runs, "DataProcess": unsupported},
		"Jindo":   {"DataLoad": runs, "DataMigrate": unsupported, "DataBackup": unsupported, "DataProcess": unsupported},
		"Thin":    {"DataLoad": runs, "DataMigrate": unsupported, "DataBackup": unsupported, "DataProcess": unsupported},
		"process": {"DataLoad": unsupported, "DataMigrate": unsupported, "DataBackup": unsupported, "DataProcess": runs},
	}
	for _, e := range engineCases {
		for kind, newOp := range kinds {
			_, err := e.ops.Operation(engines.OperationRequest{Op: newOp(), Dataset: e.dataset(), Runtime: e.runtime})
			var engErr *engines.Error
			isUnsupported := errors.As(err, &engErr) && engErr.Reason == engines.ReasonUnsupported
			switch {
			case matrix[e.name][kind] && err != nil:
				t.Errorf("%s %s: %v, want it to run", e.name, kind, err)
			case !matrix[e.name][kind] && !isUnsupported:
				t.Errorf("%s %s: %v, want ReasonUnsupported", e.name, kind, err)
			case !matrix[e.name][kind] && (!strings.Contains(err.Error(), e.name) || !strings.Contains(err.Error(), string(kind))):
				t.Errorf("%s %s: %q does not name the engine and the kind", e.name, kind, err)
			}
		}
	}
}

// TestUnsupportedNeedsNoRuntime: an operation an engine cannot run is
// refused as such before anything else is read, so that the controller
// can fail it at once.
func TestUnsupportedNeedsNoRuntime(t *testing.T) {
	for _, e := range engineCases[:4] {
		_, err := e.ops.Operation(engines.OperationRequest{Op: kinds[datav1alpha1.DataProcessKind]()})
		var engErr *engines.Error
		if !errors.As(err, &engErr) || engErr.Reason != engines.ReasonUnsupported {
			t.Errorf("%s: %v, want ReasonUnsupported", e.name, err)
		}
	}
}

// TestAnotherEnginesRuntimeIsInvalid: an engine handed a runtime of
// another kind refuses it as an invalid spec naming the engine, rather
// than panicking or rendering without the runtime.
func TestAnotherEnginesRuntimeIsInvalid(t *testing.T) {
	thinRuntime := engineCases[3].runtime
	for _, e := range engineCases[:3] {
		_, err := e.ops.Operation(engines.OperationRequest{Op: dataLoad(), Dataset: e.dataset(), Runtime: thinRuntime})
		var engErr *engines.Error
		if !errors.As(err, &engErr) || engErr.Reason != engines.ReasonInvalidSpec || !strings.Contains(err.Error(), "the "+e.name+" engine serves") {
			t.Errorf("%s given a ThinRuntime: %v, want InvalidSpec naming the engine", e.name, err)
		}
	}
}
