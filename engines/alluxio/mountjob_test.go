package alluxio_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/alluxio"
	"github.com/sluice-data/sluice/engines/enginetest"
)

// runJob runs the mount Job's containers in order, as the kubelet would
// (their effective argv), against a stand-in master whose mount table is
// table, and returns the CLI calls they made. The scripts' /opt/alluxio is
// the stand-in's directory.
func runJob(t *testing.T, job corev1.PodSpec, table string) []string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The stand-in master: fs mount alone prints the table (Alluxio's
	// format), fs mount ... <path> <ufs> and fs unmount <path> change it;
	// every call is logged one line each, its arguments joined by '|'.
	cli := `#!/bin/sh
dir=$(dirname "$0")/..
line="$1 $2"; shift 2
for a in "$@"; do line="$line|$a"; done
echo "$line" >> "$dir/log"
case "$line" in
"fs mount") cat "$dir/table";;
"fs mount|"*)
  for p; do :; done; ufs=$p
  n=$#; i=0; for a; do i=$((i + 1)); [ "$i" -eq $((n - 1)) ] && path=$a; done
  printf '%s  on  %s  (s3, capacity=-1B, used=-1B, not read-only, not shared, properties={})\n' "$ufs" "$path" >> "$dir/table";;
"fs unmount|"*)
  grep -v -F "  on  $1  " "$dir/table" > "$dir/table.new"; mv "$dir/table.new" "$dir/table";;
esac
`
	if err := os.WriteFile(filepath.Join(dir, "bin", "alluxio"), []byte(cli), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "table"), []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range append(slices.Clone(job.InitContainers), job.Containers...) {
		argv := enginetest.Effective(c).Command
		if len(argv) < 3 || argv[0] != "/bin/sh" || argv[1] != "-c" {
			t.Fatalf("container %s does not run a fixed script: %q", c.Name, argv)
		}
		argv[2] = strings.ReplaceAll(argv[2], "/opt/alluxio", dir)
		out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
		if err != nil {
			t.Fatalf("container %s: %v\n%s", c.Name, err, out)
		}
	}
	log, err := os.ReadFile(filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, l := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		if l != "fs mount" { // the table reads
			calls = append(calls, l)
		}
	}
	return calls
}

// mountLine is a line of `alluxio fs mount`'s table.
func mountLine(ufs, path string) string {
	return ufs + "  on  " + path + "  (s3, capacity=-1B, used=-1B, read-only, not shared, properties={})\n"
}

// TestMountJobAppliesTheNestedMounts runs the rendered mount Job against a
// stand-in master: it unmounts the nested mounts the Dataset no longer
// has, deepest first, updates the options of one mounted from the same
// under storage, mounts one that is missing, and remounts one whose under
// storage changed; every spec string reaches the CLI as one argument, and
// secret options as the variable the kubelet fills from the Secret.
func TestMountJobAppliesTheNestedMounts(t *testing.T) {
	ds, rt := sample()
	ds.Spec.Mounts = append(ds.Spec.Mounts, datav1alpha1.Mount{MountPoint: "s3://imagenet/test set", Name: "test", ReadOnly: true})
	o := decode(t, render(t, ds, rt))
	if o.job.Name != engines.MountJobName("imagenet", engines.MountsDigest(ds)) || o.job.Annotations[engines.MountsAnnotation] != engines.MountsDigest(ds) {
		t.Fatalf("Job %s, annotations %v", o.job.Name, o.job.Annotations)
	}
	table := mountLine("s3://imagenet/train/", "/train") + // the same under storage
		mountLine("s3://imagenet/old-val", "/validation") + // another one
		mountLine("s3://imagenet/gone", "/gone") + mountLine("s3://imagenet/gone/deeper", "/gone/deeper") +
		mountLine("/underFSStorage", "/")
	calls := runJob(t, o.job.Spec.Template.Spec, table)
	shared := "--option|alluxio.underfs.s3.disable.dns.buckets=true|--option|alluxio.underfs.s3.endpoint=http://minio.storage:9000"
	job := o.job.Spec.Template.Spec.Containers[0]
	secrets := "--option|aws.accessKeyId=<" + secretVar(job, "minio-creds", "access-key") + ">|--option|aws.secretKey=<" + secretVar(job, "minio-creds", "secret-key") + ">"
	want := []string{
		"fs unmount|/gone/deeper",
		"fs unmount|/gone",
		"fs updateMount|--readonly|" + shared + "|" + secrets + "|/train",
		"fs unmount|/validation",
		"fs mount|--readonly|" + shared + "|--option|alluxio.underfs.s3.inherit.acl=false|" + secrets + "|/validation|s3://imagenet/val",
		"fs mount|--readonly|" + shared + "|" + secrets + "|/test|s3://imagenet/test set",
	}
	if !slices.Equal(calls, want) {
		t.Errorf("CLI calls:\n%s\nwant:\n%s", strings.Join(calls, "\n"), strings.Join(want, "\n"))
	}
	// The secrets reach the Job only by reference.
	for _, c := range o.job.Spec.Template.Spec.InitContainers {
		for _, e := range c.Env {
			if e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Name != "minio-creds" {
				t.Errorf("container %s env %s is not a minio-creds reference: %+v", c.Name, e.Name, e)
			}
		}
	}
	if o.job.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever || *o.job.Spec.BackoffLimit != 6 {
		t.Errorf("restart policy %s, backoff limit %d", o.job.Spec.Template.Spec.RestartPolicy, *o.job.Spec.BackoffLimit)
	}

	// Run again on the table it left: nothing is unmounted, every mount's
	// options are updated in place.
	calls = runJob(t, o.job.Spec.Template.Spec, mountLine("s3://imagenet/train", "/train")+mountLine("s3://imagenet/val", "/validation")+
		mountLine("s3://imagenet/test set", "/test"))
	for _, c := range calls {
		if !strings.HasPrefix(c, "fs updateMount|") {
			t.Errorf("a second run on an applied table: %s", c)
		}
	}
}

// TestANestedMountEditRestartsNoPod: changing or adding an S3 mount that
// reads the Secret keys the others read changes the mount Job and the
// StatefulSets' mounts annotation, but no pod template, so no master
// restarts (a single master would start from an empty journal); a
// local:// mount is a volume of the masters and workers, whose pods then
// restart.
func TestANestedMountEditRestartsNoPod(t *testing.T) {
	ds, rt := sample()
	before := decode(t, render(t, ds, rt))
	ds.Spec.Mounts[1].Options["alluxio.underfs.s3.inherit.acl"] = "true"
	ds.Spec.Mounts = append(ds.Spec.Mounts, datav1alpha1.Mount{MountPoint: "s3://imagenet/extra", Name: "extra", ReadOnly: true})
	after := decode(t, render(t, ds, rt))
	if before.job.Name == after.job.Name {
		t.Errorf("the mount Job keeps its name %s", after.job.Name)
	}
	for name, pair := range map[string][2]*corev1.PodTemplateSpec{
		"master": {&before.master.Spec.Template, &after.master.Spec.Template},
		"worker": {&before.worker.Spec.Template, &after.worker.Spec.Template},
		"fuse":   {&before.fuse.Spec.Template, &after.fuse.Spec.Template},
	} {
		if !equalYAML(t, pair[0], pair[1]) {
			t.Errorf("the %s pod template changed with an S3 mount edit", name)
		}
	}
	if after.master.Annotations[engines.MountsAnnotation] != engines.MountsDigest(ds) || after.worker.Annotations[engines.MountsAnnotation] != engines.MountsDigest(ds) {
		t.Errorf("StatefulSets' mounts annotation: master %v, worker %v", after.master.Annotations, after.worker.Annotations)
	}
	ds.Spec.Mounts = append(ds.Spec.Mounts, datav1alpha1.Mount{MountPoint: "local:///mnt/labels", Name: "labels"})
	local := decode(t, render(t, ds, rt))
	if equalYAML(t, &after.master.Spec.Template, &local.master.Spec.Template) || equalYAML(t, &after.worker.Spec.Template, &local.worker.Spec.Template) {
		t.Error("a local:// mount did not change the master and worker pods, which must mount it")
	}
}

func equalYAML(t *testing.T, a, b any) bool {
	t.Helper()
	return slices.Equal(enginetest.StringsOf(t, a), enginetest.StringsOf(t, b))
}

// TestAlluxioMountEdits: a bound Alluxio Dataset's nested mounts may
// change; its root under storage may not, nor may it turn into nested
// mounts or back.
func TestAlluxioMountEdits(t *testing.T) {
	root := []datav1alpha1.Mount{{MountPoint: "s3://bucket/data"}}
	nested := []datav1alpha1.Mount{{MountPoint: "s3://bucket/a", Name: "a"}}
	for _, c := range []struct {
		name    string
		applied []datav1alpha1.Mount
		now     []datav1alpha1.Mount
		refused string // the field refused, "" when allowed
	}{
		{"nested mount edited", nested, []datav1alpha1.Mount{{MountPoint: "s3://bucket/b", Name: "a"}}, ""},
		{"nested mount added", nested, append(slices.Clone(nested), datav1alpha1.Mount{MountPoint: "s3://bucket/c", Name: "c"}), ""},
		{"root unchanged", root, root, ""},
		{"root moved", root, []datav1alpha1.Mount{{MountPoint: "s3://bucket/other"}}, "spec.mounts[0]"},
		{"root made read-only", root, []datav1alpha1.Mount{{MountPoint: "s3://bucket/data", ReadOnly: true}}, "spec.mounts[0]"},
		{"a second mount beside the root", root, []datav1alpha1.Mount{{MountPoint: "s3://bucket/data", Name: "data"}, {MountPoint: "s3://bucket/c", Name: "c"}}, "spec.mounts"},
		{"nested becomes the root", nested, root, "spec.mounts[0]"},
	} {
		ds := &datav1alpha1.Dataset{Spec: datav1alpha1.DatasetSpec{Mounts: c.now}}
		got := alluxio.Engine{}.CheckMountEdit(c.applied, ds)
		switch {
		case c.refused == "" && len(got) > 0:
			t.Errorf("%s: refused %v", c.name, got)
		case c.refused != "" && (len(got) != 1 || got[0].Path != c.refused || got[0].Support != engines.Refused ||
			!strings.Contains(got[0].Message, "delete the AlluxioRuntime and create it again")):
			t.Errorf("%s: %v, want %s refused", c.name, got, c.refused)
		}
	}
}
