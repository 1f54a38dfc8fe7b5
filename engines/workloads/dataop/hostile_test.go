package dataop_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/enginetest"
)

// hostile ends every string the test feeds in: a line break and a YAML
// document separator with an object after it, quotes, a shell command
// substitution in both forms, a shell variable, the kubelet's $(VAR) and
// its $$ escape, a Helm template action, YAML comment, flow, anchor, alias
// and tag characters, a non-ASCII letter, a backslash and a tab. It has no
// "=" and no ".." (option names and sub-paths refuse them).
const hostile = "\n---\napiVersion: v1\nkind: Secret\n\"'`$(id)` ${HOME} $(HOME) $$ {{ .Release.Name }} # x: - [y] {z} &a *a !t % é\\\t"

// strs records the strings fed into an operation: those the process must
// receive (command line, after the kubelet's expansion) and those the
// manifests must carry as they are (Kubernetes fields copied from the
// spec, which Kubernetes itself reads).
type strs struct{ effective, manifest []string }

// arg is a hostile string the process must receive.
func (s *strs) arg(marker string) string {
	v := marker + hostile
	s.effective = append(s.effective, v)
	return v
}

// field is a hostile string the manifests must carry.
func (s *strs) field(marker string) string {
	v := marker + hostile
	s.manifest = append(s.manifest, v)
	return v
}

// placement fills the placement fields DataLoad and DataMigrate share.
func (s *strs) placement(pm *datav1alpha1.PodMetadata, aff **corev1.Affinity, tol *[]corev1.Toleration, sel *map[string]string, sched *string) {
	*pm = datav1alpha1.PodMetadata{Labels: map[string]string{"team": "a"}, Annotations: map[string]string{"example.com/note": s.field("annotation")}}
	*aff = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: s.field("affinity-key"), Operator: corev1.NodeSelectorOpIn, Values: []string{s.field("affinity-value")}}}}}}}}
	*tol = []corev1.Toleration{{Key: s.field("toleration-key"), Operator: corev1.TolerationOpEqual, Value: s.field("toleration-value")}}
	*sel = map[string]string{s.field("selector-key"): s.field("selector-value")}
	*sched = s.field("scheduler")
}

func secretKey(s *strs, marker string) datav1alpha1.EncryptOptionSource {
	return datav1alpha1.EncryptOptionSource{SecretKeyRef: datav1alpha1.SecretKeySelector{Name: s.field(marker + "-secret"), Key: s.field(marker + "-key")}}
}

// hostileCases are operations with a hostile string in every string field
// of their kind that the engine takes as data.
func hostileCases() []struct {
	name   string
	engine engineCase
	op     datav1alpha1.OperationObject
	want   *strs
} {
	engine := map[string]engineCase{}
	for _, e := range engineCases {
		engine[e.name] = e
	}
	// load takes the options to set: hostile ones (an engine that passes
	// them on) or fixed ones (an engine with a fixed set).
	load := func(options func(s *strs) map[string]string) (datav1alpha1.OperationObject, *strs) {
		s := &strs{}
		dl := dataLoad(func(dl *datav1alpha1.DataLoad) {
			sp := &dl.Spec
			sp.Target = []datav1alpha1.TargetPath{{Path: s.arg("/target-0")}, {Path: s.arg("/target-1"), Replicas: 1}}
			sp.Options = options(s)
			s.placement(&sp.PodMetadata, &sp.Affinity, &sp.Tolerations, &sp.NodeSelector, &sp.SchedulerName)
			sp.Policy, sp.Schedule = datav1alpha1.Cron, s.field("schedule")
		})
		return dl, s
	}
	hostileOption := func(s *strs) map[string]string { return map[string]string{s.arg("option-key"): s.arg("option-value")} }
	migrate := func(external string) (datav1alpha1.OperationObject, *strs) {
		s := &strs{}
		dm := kinds[datav1alpha1.DataMigrateKind]().(*datav1alpha1.DataMigrate)
		sp := &dm.Spec
		sp.From.DataSet.Path = s.arg("/from")
		sp.To.ExternalStorage.URI = external
		if strings.HasPrefix(external, "s3://") {
			sp.To.ExternalStorage.URI += s.arg("bucket")
			sp.To.ExternalStorage.EncryptOptions = []datav1alpha1.EncryptOption{{Name: "access-key", ValueFrom: secretKey(s, "ak")}, {Name: "secret-key", ValueFrom: secretKey(s, "sk")}}
		} else {
			sp.To.ExternalStorage.URI += s.field("sub")
		}
		sp.Options = map[string]string{s.arg("option-key"): s.arg("option-value")}
		sp.VersionSpec = datav1alpha1.VersionSpec{Image: s.field("image"), ImageTag: s.field("tag"), ImagePullPolicy: s.field("pull")}
		s.placement(&sp.PodMetadata, &sp.Affinity, &sp.Tolerations, &sp.NodeSelector, &sp.SchedulerName)
		sp.Policy, sp.Schedule = datav1alpha1.Cron, s.field("schedule")
		return dm, s
	}
	backup := func(path func(s *strs) string) (datav1alpha1.OperationObject, *strs) {
		s := &strs{}
		db := kinds[datav1alpha1.DataBackupKind]().(*datav1alpha1.DataBackup)
		db.Spec.BackupPath = path(s)
		return db, s
	}
	script := func() (datav1alpha1.OperationObject, *strs) {
		s := &strs{}
		dp := kinds[datav1alpha1.DataProcessKind]().(*datav1alpha1.DataProcess)
		dp.Spec.Dataset.MountPath, dp.Spec.Dataset.SubPath = s.field("/mount"), s.field("sub")
		p := &dp.Spec.Processor
		p.ServiceAccountName = s.field("account")
		p.PodMetadata = datav1alpha1.PodMetadata{Annotations: map[string]string{"example.com/note": s.field("annotation")}}
		p.Script = &datav1alpha1.ScriptProcessor{
			VersionSpec: datav1alpha1.VersionSpec{Image: s.field("image"), ImageTag: s.field("tag"), ImagePullPolicy: s.field("pull")},
			Command:     []string{s.field("command")}, Source: s.field("source"),
			Env:          []corev1.EnvVar{{Name: "NOTE", Value: s.field("env")}},
			Volumes:      []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: s.field("/host")}}}},
			VolumeMounts: []corev1.VolumeMount{{Name: "scratch", MountPath: s.field("/scratch")}},
		}
		dp.Spec.Policy, dp.Spec.Schedule = datav1alpha1.Cron, s.field("schedule")
		return dp, s
	}
	job := func() (datav1alpha1.OperationObject, *strs) {
		s := &strs{}
		dp := kinds[datav1alpha1.DataProcessKind]().(*datav1alpha1.DataProcess)
		dp.Spec.Dataset.MountPath = s.field("/mount")
		dp.Spec.Processor.Script = nil
		dp.Spec.Processor.Job = &datav1alpha1.JobProcessor{PodSpec: &corev1.PodSpec{Containers: []corev1.Container{{
			Name: "work", Image: s.field("image"), Command: []string{s.field("command")}, Args: []string{s.field("arg")},
			Env: []corev1.EnvVar{{Name: "NOTE", Value: s.field("env")}}, WorkingDir: s.field("/work")}}}}
		return dp, s
	}
	var out []struct {
		name   string
		engine engineCase
		op     datav1alpha1.OperationObject
		want   *strs
	}
	add := func(name, e string, op datav1alpha1.OperationObject, s *strs) {
		out = append(out, struct {
			name   string
			engine engineCase
			op     datav1alpha1.OperationObject
			want   *strs
		}{name, engine[e], op, s})
	}
	op, s := load(hostileOption)
	add("JuiceFS DataLoad", "JuiceFS", op, s)
	op, s = load(hostileOption)
	add("Alluxio DataLoad", "Alluxio", op, s)
	op, s = load(func(s *strs) map[string]string { return map[string]string{"filter": s.arg("option-value")} })
	add("Jindo DataLoad", "Jindo", op, s)
	op, s = load(func(*strs) map[string]string { return map[string]string{"threads": "8", "timeout": "2h"} })
	add("Thin DataLoad", "Thin", op, s)
	op, s = migrate("s3://")
	add("JuiceFS DataMigrate to an object store", "JuiceFS", op, s)
	op, s = migrate("pvc://archive/")
	add("JuiceFS DataMigrate to a claim", "JuiceFS", op, s)
	op, s = migrate("pvc://archive/")
	op.(*datav1alpha1.DataMigrate).Spec.Parallelism = 3
	op.(*datav1alpha1.DataMigrate).Spec.ParallelOptions = map[string]string{"sshSecretName": "keys", "sshPort": "2222"}
	add("JuiceFS DataMigrate with parallel workers", "JuiceFS", op, s)
	op, s = backup(func(s *strs) string { return "local://" + s.field("/backups") })
	add("Alluxio DataBackup to a host directory", "Alluxio", op, s)
	op, s = backup(func(s *strs) string { return "pvc://backups/" + s.field("sub") })
	add("Alluxio DataBackup to a claim", "Alluxio", op, s)
	op, s = script()
	add("DataProcess script", "process", op, s)
	op, s = job()
	add("DataProcess job", "process", op, s)
	return out
}

// TestHostileStringsArriveAsData feeds a hostile string through every
// string field of every operation each engine runs, and checks that the
// chart still renders one workload (and at most the files ConfigMap), each
// decoding strictly into its type, and that every string arrives whole as
// data: in the process's command line after the kubelet's expansion, or in
// the manifests as given.
func TestHostileStringsArriveAsData(t *testing.T) {
	for _, tc := range hostileCases() {
		t.Run(tc.name, func(t *testing.T) {
			rel, err := tc.engine.ops.Operation(engines.OperationRequest{Op: tc.op, Dataset: tc.engine.dataset(), Runtime: tc.engine.runtime, Release: "hostile"})
			if err != nil {
				t.Fatal(err)
			}
			op := enginetest.RenderOperation(t, rel, "hostile", "team-a")
			manifest := enginetest.StringsOf(t, op.Job, op.CronJob, op.Files, op.Workers, op.WorkersService)
			var containers []corev1.Container
			workers := []corev1.Container{}
			if op.Workers != nil {
				workers = op.Workers.Spec.Template.Spec.Containers
			}
			for _, c := range append(op.Containers(), workers...) {
				containers = append(containers, enginetest.Effective(c))
			}
			effective := enginetest.StringsOf(t, containers)
			for _, want := range tc.want.effective {
				if !containsString(effective, want) {
					t.Errorf("no command line carries %q whole; they are:\n%s", want, strings.Join(effective, "\n"))
				}
			}
			for _, want := range tc.want.manifest {
				if !containsString(manifest, want) {
					t.Errorf("no manifest field carries %q whole", want)
				}
			}
			if len(tc.want.effective)+len(tc.want.manifest) == 0 {
				t.Error("no hostile string fed in")
			}
		})
	}
}

// TestHostileStringsRefusedWhereNotData: strings that become labels, names
// or flags the API server or an engine would take apart are refused,
// naming the field, rather than passed on.
func TestHostileStringsRefusedWhereNotData(t *testing.T) {
	engine := map[string]engineCase{}
	for _, e := range engineCases {
		engine[e.name] = e
	}
	for _, tc := range []struct {
		engine string
		op     datav1alpha1.OperationObject
		field  string
	}{
		{"JuiceFS", dataLoad(func(dl *datav1alpha1.DataLoad) { dl.Spec.PodMetadata.Labels = map[string]string{"team": "a" + hostile} }), "spec.podMetadata.labels"},
		{"JuiceFS", dataLoad(func(dl *datav1alpha1.DataLoad) { dl.Spec.PodMetadata.Labels = map[string]string{"a" + hostile: "a"} }), "spec.podMetadata.labels"},
		{"Alluxio", dataLoad(func(dl *datav1alpha1.DataLoad) {
			dl.Spec.PodMetadata.Annotations = map[string]string{"a" + hostile: "a"}
		}), "spec.podMetadata.annotations"},
		{"Jindo", dataLoad(func(dl *datav1alpha1.DataLoad) { dl.Spec.Options = map[string]string{"a" + hostile: "a"} }), "spec.options"},
		{"Alluxio", dataLoad(func(dl *datav1alpha1.DataLoad) { dl.Spec.Options = map[string]string{"a=" + hostile: "a"} }), "spec.options"},
		{"Thin", dataLoad(func(dl *datav1alpha1.DataLoad) { dl.Spec.Options = map[string]string{"threads": "8" + hostile} }), `spec.options["threads"]`},
		{"Thin", dataLoad(func(dl *datav1alpha1.DataLoad) { dl.Spec.Options = map[string]string{"timeout": "1h" + hostile} }), `spec.options["timeout"]`},
		{"Thin", dataLoad(func(dl *datav1alpha1.DataLoad) { dl.Spec.Options = map[string]string{"threads" + hostile: "8"} }), "spec.options["},
		{"Thin", dataLoad(func(dl *datav1alpha1.DataLoad) {
			dl.Spec.Target = []datav1alpha1.TargetPath{{Path: "/a/../.." + hostile}}
		}), "spec.target[0].path"},
		{"Thin", dataLoad(func(dl *datav1alpha1.DataLoad) {
			dl.Spec.Target = []datav1alpha1.TargetPath{{Path: "/a\x00" + hostile}}
		}), "spec.target[0].path"},
		{"Alluxio", func() datav1alpha1.OperationObject {
			db := kinds[datav1alpha1.DataBackupKind]().(*datav1alpha1.DataBackup)
			db.Spec.RunAs = &datav1alpha1.User{UID: ptr.To[int64](1), GID: ptr.To[int64](1), UserName: "a" + hostile}
			return db
		}(), "spec.runAs.user"},
		{"Alluxio", func() datav1alpha1.OperationObject {
			db := kinds[datav1alpha1.DataBackupKind]().(*datav1alpha1.DataBackup)
			db.Spec.BackupPath = "pvc://a" + hostile
			return db
		}(), "spec.backupPath"},
		{"JuiceFS", func() datav1alpha1.OperationObject {
			dm := kinds[datav1alpha1.DataMigrateKind]().(*datav1alpha1.DataMigrate)
			dm.Spec.To.ExternalStorage.EncryptOptions = []datav1alpha1.EncryptOption{{Name: "a" + hostile}}
			return dm
		}(), "spec.to.externalStorage.encryptOptions[0].name"},
	} {
		e := engine[tc.engine]
		_, err := e.ops.Operation(engines.OperationRequest{Op: tc.op, Dataset: e.dataset(), Runtime: e.runtime})
		enginetest.WantInvalid(t, err, tc.field)
	}
}

// containsString says whether one of the strings holds want whole.
func containsString(all []string, want string) bool {
	for _, s := range all {
		if strings.Contains(s, want) {
			return true
		}
	}
	return false
}
