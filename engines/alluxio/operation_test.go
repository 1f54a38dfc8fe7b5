package alluxio_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/alluxio"
	"github.com/sluice-data/sluice/engines/enginetest"
)

// dataLoadFull sets every DataLoad field.
func dataLoadFull() *datav1alpha1.DataLoad {
	dl := enginetest.DataLoad()
	s := &dl.Spec
	s.LoadMetadata = true
	s.Target = []datav1alpha1.TargetPath{{Path: "/train", Replicas: 2}, {Path: "/validation"}}
	s.Options = map[string]string{"active-jobs": "100", "passive-cache": ""}
	s.PodMetadata = datav1alpha1.PodMetadata{Labels: map[string]string{"team": "vision"}, Annotations: map[string]string{"owner": "ml@example.com"}}
	s.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{
		{Weight: 50, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}}}}}}}
	s.Tolerations = []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	s.NodeSelector = map[string]string{"disk": "nvme"}
	s.SchedulerName = "volcano"
	s.Resources = corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("2Gi")}}
	s.Policy, s.Schedule = datav1alpha1.Cron, "0 2 * * *"
	return dl
}

func dataBackupLocal() *datav1alpha1.DataBackup {
	return &datav1alpha1.DataBackup{ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "team-a"},
		Spec: datav1alpha1.DataBackupSpec{Dataset: "imagenet", BackupPath: "local:///var/backups/alluxio"}}
}

// dataBackupFull sets every DataBackup field: a claim's sub-directory, run
// as a user.
func dataBackupFull() *datav1alpha1.DataBackup {
	db := dataBackupLocal()
	db.Spec.BackupPath = "pvc://backups/imagenet/2026"
	db.Spec.RunAs = &datav1alpha1.User{UID: ptr.To[int64](1000), GID: ptr.To[int64](1000), UserName: "alluxio", GroupName: "alluxio"}
	return db
}

func renderOp(t *testing.T, op datav1alpha1.OperationObject, affinity *corev1.Affinity) enginetest.Operation {
	t.Helper()
	ds, rt := sample()
	rel, err := alluxio.Engine{}.Operation(engines.OperationRequest{Op: op, Dataset: ds, Runtime: rt, Affinity: affinity})
	if err != nil {
		t.Fatal(err)
	}
	return enginetest.RenderOperation(t, rel, op.GetName()+"-op", "team-a")
}

// TestOperationGolden renders each operation with its defaults and with
// every field set, and compares with testdata/golden/<case> (go test
// -update rewrites them after a deliberate change).
func TestOperationGolden(t *testing.T) {
	for name, tc := range map[string]struct {
		op       datav1alpha1.OperationObject
		affinity *corev1.Affinity
	}{
		"dataload-default": {enginetest.DataLoad(), nil}, "dataload-full": {dataLoadFull(), enginetest.RunAfterAffinity},
		"databackup-default": {dataBackupLocal(), nil}, "databackup-full": {dataBackupFull(), enginetest.RunAfterAffinity},
	} {
		t.Run(name, func(t *testing.T) {
			op := renderOp(t, tc.op, tc.affinity)
			enginetest.GoldenCase(t, name, op.Out, op.Templates())
		})
	}
}

// TestLoadSteps: metadata first, then each target, in order, each step an
// Alluxio client of the runtime in its image.
func TestLoadSteps(t *testing.T) {
	op := renderOp(t, dataLoadFull(), nil)
	var got [][]string
	for _, c := range op.Containers() {
		c = enginetest.Effective(c)
		got = append(got, c.Command)
		if c.Image != "alluxio/alluxio:2.9.4" || c.Resources.Limits.Memory().String() != "2Gi" ||
			!slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == "/opt/alluxio/conf/alluxio-site.properties" }) {
			t.Errorf("step %s: image %s, resources %v, mounts %+v", c.Name, c.Image, c.Resources, c.VolumeMounts)
		}
	}
	a := "/opt/alluxio/bin/alluxio"
	want := [][]string{
		{a, "fs", "loadMetadata", "-R", "-F", "/train"},
		{a, "fs", "loadMetadata", "-R", "-F", "/validation"},
		{a, "fs", "distributedLoad", "--replication", "2", "--active-jobs=100", "--passive-cache", "/train"},
		{a, "fs", "distributedLoad", "--replication", "1", "--active-jobs=100", "--passive-cache", "/validation"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	if v := op.Pod().Spec.Volumes; len(v) != 1 || v[0].ConfigMap == nil || v[0].ConfigMap.Name != "imagenet-config" {
		t.Errorf("volumes %+v, want the runtime's configuration", v)
	}
	if d := renderOp(t, enginetest.DataLoad(), nil); len(d.Containers()) != 1 ||
		!cmp.Equal(d.Containers()[0].Command, []string{a, "fs", "distributedLoad", "--replication", "1", "/"}) {
		t.Errorf("the default load runs %+v, want one load of / with one replica", d.Containers())
	}
}

// TestBackupBesideTheMaster: the backup pod runs on the master's node and
// reads the host directory the master writes backups to.
func TestBackupBesideTheMaster(t *testing.T) {
	op := renderOp(t, dataBackupFull(), nil)
	spec := op.Pod().Spec
	ds, rt := sample()
	master := enginetest.Decode[appsv1.StatefulSet](t, render(t, ds, rt), "templates/master-statefulset.yaml")
	hostPath := func(vols []corev1.Volume, mounts []corev1.VolumeMount) string {
		for _, m := range mounts {
			if m.MountPath == alluxio.BackupDir {
				for _, v := range vols {
					if v.Name == m.Name && v.HostPath != nil {
						return v.HostPath.Path
					}
				}
			}
		}
		return ""
	}
	written := hostPath(master.Spec.Template.Spec.Volumes, master.Spec.Template.Spec.Containers[0].VolumeMounts)
	read := hostPath(spec.Volumes, spec.Containers[0].VolumeMounts)
	if written == "" || written != read || written != alluxio.BackupHostPath("team-a", "imagenet") {
		t.Errorf("the master writes backups to %q, the backup pod reads %q", written, read)
	}
	terms := spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	if len(terms) != 1 || terms[0].TopologyKey != "kubernetes.io/hostname" {
		t.Fatalf("pod affinity %+v", spec.Affinity.PodAffinity)
	}
	for k, v := range terms[0].LabelSelector.MatchLabels {
		if master.Spec.Template.Labels[k] != v {
			t.Errorf("the backup pod looks for %s=%s, which master pods (%v) lack", k, v, master.Spec.Template.Labels)
		}
	}
	if sc := spec.SecurityContext; sc == nil || *sc.RunAsUser != 1000 || *sc.RunAsGroup != 1000 {
		t.Errorf("security context %+v, want spec.runAs", sc)
	}
	c := enginetest.Effective(spec.Containers[0])
	if want := []string{"backup", alluxio.BackupDir, "/sluice/backup/metadata-backup-imagenet-team-a.gz", "/opt/alluxio/bin/alluxio", "fsadmin",
		"-Dalluxio.security.login.username=alluxio", "backup", alluxio.BackupDir, "--local"}; !cmp.Equal(c.Command[3:], want) {
		t.Errorf("backup arguments %q, want %q", c.Command[3:], want)
	}
	target := slices.IndexFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == "/sluice/backup" })
	if target < 0 || c.VolumeMounts[target].SubPath != "imagenet/2026" {
		t.Errorf("mounts %+v, want the claim's imagenet/2026 at /sluice/backup", c.VolumeMounts)
	}
}

// TestBackupScript runs the backup pod's script with a stand-in for the
// Alluxio command: it copies the file the backup names, and fails when the
// backup fails or names none.
func TestBackupScript(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	c := enginetest.Effective(renderOp(t, dataBackupLocal(), nil).Pod().Spec.Containers[0])
	if !cmp.Equal(c.Command[:2], []string{"/bin/sh", "-c"}) {
		t.Fatalf("the backup runs %q", c.Command)
	}
	script := c.Command[2]
	dir, out := t.TempDir(), filepath.Join(t.TempDir(), "metadata-backup.gz")
	if err := os.WriteFile(filepath.Join(dir, "alluxio-backup-2026-12-01-1764547200000.gz"), []byte("journal"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(backup string) (string, error) {
		b, err := exec.Command("sh", "-c", script, "backup", dir, out, "sh", "-c", backup).CombinedOutput()
		return string(b), err
	}
	printed := "Backup Host        : imagenet-master-0\nBackup URI         : file:///alluxio_backups/alluxio-backup-2026-12-01-1764547200000.gz\nBackup Entry Count : 42"
	if log, err := run("printf '%s\\n' '" + printed + "'"); err != nil {
		t.Fatalf("%v:\n%s", err, log)
	}
	if data, err := os.ReadFile(out); err != nil || string(data) != "journal" {
		t.Errorf("copied %q, %v", data, err)
	}
	for name, backup := range map[string]string{"the backup fails": "echo refused >&2; exit 3", "no URI": "echo 'Backup Entry Count : 0'",
		"a URI of no file": "echo 'Backup URI : file:///alluxio_backups/missing.gz'"} {
		if log, err := run(backup); err == nil {
			t.Errorf("%s: the script succeeded:\n%s", name, log)
		}
	}
}

func TestOperationRefusesWhatItCannotHonour(t *testing.T) {
	load := func(mutate func(*datav1alpha1.DataLoadSpec)) datav1alpha1.OperationObject {
		dl := enginetest.DataLoad()
		mutate(&dl.Spec)
		return dl
	}
	backup := func(mutate func(*datav1alpha1.DataBackupSpec)) datav1alpha1.OperationObject {
		db := dataBackupFull()
		mutate(&db.Spec)
		return db
	}
	for _, tc := range []struct {
		name    string
		op      datav1alpha1.OperationObject
		runtime func(*datav1alpha1.AlluxioRuntime) // changes sample()'s runtime
		field   string                             // the error names it
	}{
		{"relative path", load(func(s *datav1alpha1.DataLoadSpec) { s.Target = []datav1alpha1.TargetPath{{Path: "train"}} }), nil, "spec.target[0].path"},
		{"a path the launcher takes for a JVM flag", load(func(s *datav1alpha1.DataLoadSpec) { s.Target = []datav1alpha1.TargetPath{{Path: "-Dx=y"}} }), nil, "spec.target[0].path"},
		{"negative replicas", load(func(s *datav1alpha1.DataLoadSpec) { s.Target = []datav1alpha1.TargetPath{{Path: "/a", Replicas: -1}} }), nil, "spec.target[0].replicas"},
		{"bad option name", load(func(s *datav1alpha1.DataLoadSpec) { s.Options = map[string]string{"": "x"} }), nil, "spec.options"},
		{"no backup path", backup(func(s *datav1alpha1.DataBackupSpec) { s.BackupPath = "" }), nil, "spec.backupPath"},
		{"object store backup", backup(func(s *datav1alpha1.DataBackupSpec) { s.BackupPath = "s3://bucket/backups" }), nil, "spec.backupPath"},
		{"user name with a space", backup(func(s *datav1alpha1.DataBackupSpec) { s.RunAs.UserName = "al luxio" }), nil, "spec.runAs.user"},
		{"a quorum of masters", dataBackupLocal(), func(rt *datav1alpha1.AlluxioRuntime) { rt.Spec.Master.Replicas = 3 }, "spec.master.replicas"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds, rt := sample()
			if tc.runtime != nil {
				tc.runtime(rt)
			}
			_, err := alluxio.Engine{}.Operation(engines.OperationRequest{Op: tc.op, Dataset: ds, Runtime: rt})
			enginetest.WantInvalid(t, err, tc.field)
		})
	}
	ds, _ := sample()
	_, err := alluxio.Engine{}.Operation(engines.OperationRequest{Op: enginetest.DataLoad(), Dataset: ds, Runtime: &datav1alpha1.JuiceFSRuntime{}})
	enginetest.WantInvalid(t, err, "AlluxioRuntime")
}
