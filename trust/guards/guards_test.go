package guards

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/alluxio"
	"github.com/sluice-data/sluice/engines/juicefs"
	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/trust"
)

func TestRepository(t *testing.T) {
	for in, want := range map[string]string{
		"busybox":                         "busybox",
		"busybox:1.36":                    "busybox",
		"registry:5000/team/fuse":         "registry:5000/team/fuse",
		"registry:5000/team/fuse:v1":      "registry:5000/team/fuse",
		"juicedata/juicefs-fuse@sha256:0": "juicedata/juicefs-fuse",
		" alluxio/alluxio ":               "alluxio/alluxio",
	} {
		if got := Repository(in); got != want {
			t.Errorf("Repository(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGuardValues(t *testing.T) {
	hostPath := func(p string) corev1.VolumeSource {
		return corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: p}}
	}
	jfs := &datav1alpha1.JuiceFSRuntime{Spec: datav1alpha1.JuiceFSRuntimeSpec{
		JuiceFSVersion: datav1alpha1.VersionSpec{Image: "busybox", ImageTag: "1.36"},
		Fuse:           datav1alpha1.JuiceFSFuseSpec{Image: "juicedata/juicefs-fuse:ce", Env: []corev1.EnvVar{{Name: "PATH", Value: "/opt/x"}}},
		TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{
			{MediumType: datav1alpha1.Memory, Path: "/dev/shm"},
			{MediumType: datav1alpha1.SSD, Path: "/mnt/a, /etc", VolumeType: datav1alpha1.VolumeTypeHostPath},
			{MediumType: datav1alpha1.HDD, Path: "/cache", VolumeType: datav1alpha1.VolumeTypeEmptyDir},
		}},
		Volumes: []corev1.Volume{{Name: "cm", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}, {Name: "root", VolumeSource: hostPath("/")}},
	}}
	got := OfUpdate(jfs, nil)
	want := Facts{
		Images: []Value{{Path: "spec.juicefsVersion.image", Value: "busybox"}, {Path: "spec.fuse.image", Value: "juicedata/juicefs-fuse"}},
		TierPaths: []Value{
			{Path: "spec.tieredstore.levels[0].path", Value: "/dev/shm", HostPath: true},
			{Path: "spec.tieredstore.levels[1].path", Value: "/mnt/a", HostPath: true},
			{Path: "spec.tieredstore.levels[1].path", Value: "/etc", HostPath: true},
			{Path: "spec.tieredstore.levels[2].path", Value: "/cache"},
		},
		HostPathVolumes: []Value{{Path: "spec.volumes[1].hostPath", Value: "/"}},
		LocalMounts:     []Value{},
		Tolerations:     []Value{},
		Privileges:      []Value{},
		Privileged: []PrivilegedValue{{Value: trust.Value{Path: "spec.fuse.env[0]", Field: "spec.fuse.env",
			Container: "the privileged JuiceFS FUSE container", Value: "PATH", List: "envNames"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("runtime guards (-want +got):\n%s", diff)
	}

	// On UPDATE, what the old object had at the same field is unchanged.
	old := jfs.DeepCopy()
	old.Spec.JuiceFSVersion.Image = "alluxio/alluxio"
	old.Spec.Volumes = old.Spec.Volumes[1:] // the hostPath volume was volumes[0]
	upd := OfUpdate(jfs, old)
	if upd.Images[0].Unchanged || !upd.Images[1].Unchanged || upd.HostPathVolumes[0].Unchanged || !upd.TierPaths[2].Unchanged || !upd.Privileged[0].Unchanged {
		t.Fatalf("unchanged marks: %+v", upd)
	}
	renamed := jfs.DeepCopy()
	renamed.Spec.Fuse.Env[0].Name = "LD_PRELOAD"
	if g := OfUpdate(renamed, jfs); g.Privileged[0].Unchanged {
		t.Fatal("a changed environment variable's name is marked unchanged")
	}
	var typedNil *datav1alpha1.JuiceFSRuntime
	if g := OfUpdate(jfs, typedNil); g.Images[0].Unchanged {
		t.Fatal("a typed nil old object marks values unchanged")
	}

	ds := &datav1alpha1.Dataset{Spec: datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{{MountPoint: "s3://b"}, {MountPoint: "local:///etc"}},
		DataRestoreLocation: &datav1alpha1.DataRestoreLocation{Path: "local:///root/backups", NodeName: "n"}}}
	if diff := cmp.Diff([]Value{{Path: "spec.mounts[1].mountPoint", Value: "/etc"}, {Path: "spec.dataRestoreLocation.path", Value: "/root/backups"}}, OfUpdate(ds, nil).LocalMounts); diff != "" {
		t.Fatalf("local mounts (-want +got):\n%s", diff)
	}

	thin := &datav1alpha1.ThinRuntime{Spec: datav1alpha1.ThinRuntimeSpec{
		Fuse:   datav1alpha1.ThinFuseSpec{VersionSpec: datav1alpha1.VersionSpec{Image: "a/fuse"}},
		Worker: datav1alpha1.ThinCompTemplateSpec{VersionSpec: datav1alpha1.VersionSpec{Image: "a/worker"}},
	}}
	if got := OfUpdate(thin, nil).Images; len(got) != 2 || got[1].Path != "spec.worker.image" {
		t.Fatalf("thin images = %+v", got)
	}
}

// TestDefaultImagePrefixesAdmitTheEnginesImages keeps policies/data.yaml's
// default image allow-list in step with the images the engines default to.
func TestDefaultImagePrefixesAdmitTheEnginesImages(t *testing.T) {
	data, err := policies.DefaultData(policies.ProfileRestricted)
	if err != nil {
		t.Fatal(err)
	}
	star := data["validating"].(map[string]any)["guards"].(map[string]any)["*"].(map[string]any)
	var prefixes []string
	for _, p := range star["imagePrefixes"].([]any) {
		prefixes = append(prefixes, strings.TrimSuffix(p.(string), "/"))
	}
	for _, image := range []string{alluxio.DefaultImage, juicefs.DefaultImage.Repository, jindoDefaultImage, jindoDefaultFuseImage} {
		ok := false
		for _, p := range prefixes {
			ok = ok || image == p || strings.HasPrefix(image, p+"/")
		}
		if !ok {
			t.Errorf("the default image %s is not under a default imagePrefixes entry %v", image, prefixes)
		}
	}
}

// The Jindo engine's defaults are unexported (engines/jindo/engine.go).
const (
	jindoDefaultImage     = "registry.cn-shanghai.aliyuncs.com/jindofs/smartdata"
	jindoDefaultFuseImage = "registry.cn-shanghai.aliyuncs.com/jindofs/jindo-fuse"
)

// TestOperationAndTolerationGuardValues: the values the pod guards judge,
// each at its field, in spec order.
func TestOperationAndTolerationGuardValues(t *testing.T) {
	exists := corev1.Toleration{Operator: corev1.TolerationOpExists}
	gpu := corev1.Toleration{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists}
	for _, c := range []struct {
		name string
		obj  client.Object
		want Facts
	}{
		{"Dataset", &datav1alpha1.Dataset{Spec: datav1alpha1.DatasetSpec{Tolerations: []corev1.Toleration{gpu, exists}}},
			Facts{Tolerations: []Value{{Path: "spec.tolerations[0]", Value: "nvidia.com/gpu"}, {Path: "spec.tolerations[1]"}}}},
		{"JindoRuntime", &datav1alpha1.JindoRuntime{Spec: datav1alpha1.JindoRuntimeSpec{
			Worker: datav1alpha1.JindoCompTemplateSpec{Tolerations: []corev1.Toleration{gpu}}, Fuse: datav1alpha1.JindoFuseSpec{Tolerations: []corev1.Toleration{exists}}}},
			Facts{Tolerations: []Value{{Path: "spec.worker.tolerations[0]", Value: "nvidia.com/gpu"}, {Path: "spec.fuse.tolerations[0]"}}}},
		{"DataBackup", &datav1alpha1.DataBackup{Spec: datav1alpha1.DataBackupSpec{BackupPath: "local:///var/backups"}},
			Facts{LocalMounts: []Value{{Path: "spec.backupPath", Value: "/var/backups"}}}},
		{"DataBackup to a claim", &datav1alpha1.DataBackup{Spec: datav1alpha1.DataBackupSpec{BackupPath: "pvc://backups/x"}}, Facts{}},
		{"DataMigrate", &datav1alpha1.DataMigrate{Spec: datav1alpha1.DataMigrateSpec{
			From: datav1alpha1.DataToMigrate{ExternalStorage: &datav1alpha1.ExternalStorage{URI: "local:///in"}},
			To:   datav1alpha1.DataToMigrate{ExternalStorage: &datav1alpha1.ExternalStorage{URI: "local:///out"}}, Tolerations: []corev1.Toleration{exists}}},
			Facts{LocalMounts: []Value{{Path: "spec.from.externalStorage.uri", Value: "/in"}, {Path: "spec.to.externalStorage.uri", Value: "/out"}},
				Tolerations: []Value{{Path: "spec.tolerations[0]"}}}},
		{"DataProcess", &datav1alpha1.DataProcess{Spec: datav1alpha1.DataProcessSpec{Processor: datav1alpha1.Processor{Job: &datav1alpha1.JobProcessor{PodSpec: &corev1.PodSpec{
			HostNetwork: true, HostPID: true, Tolerations: []corev1.Toleration{gpu},
			Volumes:        []corev1.Volume{{Name: "h", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/lib/kubelet"}}}},
			InitContainers: []corev1.Container{{Name: "i", SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(true)}}},
			Containers: []corev1.Container{{Name: "c", SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(false),
				Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"SYS_ADMIN"}}}}},
		}}}}},
			Facts{HostPathVolumes: []Value{{Path: "spec.processor.job.podSpec.volumes[0].hostPath", Value: "/var/lib/kubelet"}},
				Tolerations: []Value{{Path: "spec.processor.job.podSpec.tolerations[0]", Value: "nvidia.com/gpu"}},
				Privileges: []Value{
					{Path: "spec.processor.job.podSpec.hostNetwork", Value: "hostNetwork"},
					{Path: "spec.processor.job.podSpec.hostPID", Value: "hostPID"},
					{Path: "spec.processor.job.podSpec.initContainers[0].securityContext.privileged", Value: "privileged"},
					{Path: "spec.processor.job.podSpec.containers[0].securityContext.capabilities.add[0]", Value: "capability SYS_ADMIN"},
				}}},
	} {
		got := OfUpdate(c.obj, nil)
		if diff := cmp.Diff(c.want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}
