package process_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
	"github.com/sluice-data/sluice/engines/workloads/process"
)

func dataset() *datav1alpha1.Dataset {
	return &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "imagenet", Namespace: "team-a"}}
}

func dataProcess(p datav1alpha1.Processor, mutate ...func(*datav1alpha1.DataProcess)) *datav1alpha1.DataProcess {
	dp := &datav1alpha1.DataProcess{ObjectMeta: metav1.ObjectMeta{Name: "train", Namespace: "team-a"},
		Spec: datav1alpha1.DataProcessSpec{Dataset: datav1alpha1.TargetDatasetWithMountPath{Name: "imagenet", Namespace: "team-a", MountPath: "/data"}, Processor: p}}
	for _, m := range mutate {
		m(dp)
	}
	return dp
}

// jobDefault is the smallest job processor: one container.
func jobDefault() *datav1alpha1.DataProcess {
	return dataProcess(datav1alpha1.Processor{Job: &datav1alpha1.JobProcessor{PodSpec: &corev1.PodSpec{
		Containers: []corev1.Container{{Name: "train", Image: "pytorch/pytorch:2.4", Command: []string{"python", "/code/train.py"}}}}}})
}

// jobFull sets every processor field a job processor has.
func jobFull() *datav1alpha1.DataProcess {
	return dataProcess(datav1alpha1.Processor{
		ServiceAccountName: "trainer",
		PodMetadata:        datav1alpha1.PodMetadata{Labels: map[string]string{"team": "vision"}, Annotations: map[string]string{"sidecar.istio.io/inject": "false"}},
		Job: &datav1alpha1.JobProcessor{PodSpec: &corev1.PodSpec{
			RestartPolicy:  corev1.RestartPolicyOnFailure,
			InitContainers: []corev1.Container{{Name: "check", Image: "busybox:1.36", Command: []string{"ls", "/data"}}},
			Containers: []corev1.Container{
				{Name: "train", Image: "pytorch/pytorch:2.4", Command: []string{"python", "/code/train.py"},
					VolumeMounts: []corev1.VolumeMount{{Name: "code", MountPath: "/code"}}},
				{Name: "monitor", Image: "busybox:1.36", Command: []string{"sleep", "infinity"}},
			},
			Volumes:      []corev1.Volume{{Name: "code", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "train-code"}}}}},
			NodeSelector: map[string]string{"gpu": "a100"},
			Tolerations:  []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
		}},
	}, func(dp *datav1alpha1.DataProcess) {
		dp.Spec.Dataset.SubPath = "train"
		dp.Spec.Policy, dp.Spec.Schedule = datav1alpha1.Cron, "0 3 * * *"
	})
}

func scriptDefault() *datav1alpha1.DataProcess {
	return dataProcess(datav1alpha1.Processor{Script: &datav1alpha1.ScriptProcessor{
		VersionSpec: datav1alpha1.VersionSpec{Image: "python", ImageTag: "3.12"}, Command: []string{"bash"}, Source: "ls -R /data | wc -l\n"}})
}

// scriptFull sets every field a script processor has.
func scriptFull() *datav1alpha1.DataProcess {
	return dataProcess(datav1alpha1.Processor{
		ServiceAccountName: "trainer",
		PodMetadata:        datav1alpha1.PodMetadata{Labels: map[string]string{"team": "vision"}, Annotations: map[string]string{"owner": "ml@example.com"}},
		Script: &datav1alpha1.ScriptProcessor{
			VersionSpec:   datav1alpha1.VersionSpec{Image: "python", ImageTag: "3.12", ImagePullPolicy: "Always"},
			RestartPolicy: corev1.RestartPolicyOnFailure,
			Command:       []string{"bash", "-c"},
			Source:        "set -e\npython /code/index.py --root \"$DATA\" > /out/index.txt\n",
			Env: []corev1.EnvVar{{Name: "DATA", Value: "/data"}, {Name: "TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: "hub"}, Key: "token"}}}},
			Volumes:      []corev1.Volume{{Name: "out", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
			VolumeMounts: []corev1.VolumeMount{{Name: "out", MountPath: "/out"}},
			Resources:    corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")}},
		},
	}, func(dp *datav1alpha1.DataProcess) { dp.Spec.Dataset.SubPath = "val" })
}

func render(t *testing.T, dp *datav1alpha1.DataProcess, affinity *corev1.Affinity) enginetest.Operation {
	t.Helper()
	rel, err := process.Operations{}.Operation(engines.OperationRequest{Op: dp, Dataset: dataset(), Affinity: affinity})
	if err != nil {
		t.Fatal(err)
	}
	return enginetest.RenderOperation(t, rel, "train-process", "team-a")
}

// TestGolden renders each processor with its defaults and with every field
// set, and compares with testdata/golden/<case> (go test -update rewrites
// them after a deliberate change).
func TestGolden(t *testing.T) {
	for name, tc := range map[string]struct {
		dp       *datav1alpha1.DataProcess
		affinity *corev1.Affinity
	}{
		"job-default": {jobDefault(), nil}, "job-full": {jobFull(), enginetest.RunAfterAffinity},
		"script-default": {scriptDefault(), nil}, "script-full": {scriptFull(), enginetest.RunAfterAffinity},
	} {
		t.Run(name, func(t *testing.T) {
			op := render(t, tc.dp, tc.affinity)
			enginetest.GoldenCase(t, name, op.Out, op.Templates())
		})
	}
}

// TestDatasetMountedEverywhere: every container, init containers included,
// mounts the Dataset's PVC at spec.dataset.mountPath (its subPath).
func TestDatasetMountedEverywhere(t *testing.T) {
	for _, dp := range []*datav1alpha1.DataProcess{jobFull(), scriptFull()} {
		op := render(t, dp, nil)
		want := corev1.VolumeMount{Name: process.DatasetVolume, MountPath: "/data", SubPath: dp.Spec.Dataset.SubPath}
		for _, c := range op.Containers() {
			if !hasMount(c, want) {
				t.Errorf("container %s mounts %+v, not the Dataset at /data", c.Name, c.VolumeMounts)
			}
		}
		i := slices.IndexFunc(op.Pod().Spec.Volumes, func(v corev1.Volume) bool { return v.Name == process.DatasetVolume })
		if i < 0 || op.Pod().Spec.Volumes[i].PersistentVolumeClaim.ClaimName != "imagenet" {
			t.Errorf("pod volumes %+v lack the Dataset's PVC imagenet", op.Pod().Spec.Volumes)
		}
	}
}

func hasMount(c corev1.Container, want corev1.VolumeMount) bool {
	return slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return cmp.Equal(m, want) })
}

func TestScriptRunsFromItsFile(t *testing.T) {
	dp := scriptFull()
	op := render(t, dp, enginetest.RunAfterAffinity)
	c := op.Pod().Spec.Containers[0]
	if !cmp.Equal(c.Command, []string{"bash", "-c"}) || !cmp.Equal(c.Args, []string{process.ScriptDir + "/" + process.ScriptFile}) {
		t.Errorf("script container runs %q %q", c.Command, c.Args)
	}
	if op.Files == nil || op.Files.Data[process.ScriptFile] != dp.Spec.Processor.Script.Source {
		t.Errorf("the script's file holds %+v", op.Files)
	}
	if !hasMount(c, corev1.VolumeMount{Name: dataop.FilesVolume, MountPath: process.ScriptDir, ReadOnly: true}) {
		t.Errorf("the script container does not mount its file: %+v", c.VolumeMounts)
	}
	spec := op.Pod().Spec
	if c.Image != "python:3.12" || c.ImagePullPolicy != corev1.PullAlways || spec.RestartPolicy != corev1.RestartPolicyOnFailure || spec.ServiceAccountName != "trainer" ||
		c.Resources.Requests.Cpu().String() != "2" || op.Pod().Labels["team"] != "vision" || !cmp.Equal(spec.Affinity, enginetest.RunAfterAffinity) {
		t.Errorf("script pod: image %s (%s), restart %s, service account %q, resources %v, labels %v, affinity %+v",
			c.Image, c.ImagePullPolicy, spec.RestartPolicy, spec.ServiceAccountName, c.Resources, op.Pod().Labels, spec.Affinity)
	}
}

func TestInvalidProcessors(t *testing.T) {
	job := func(mutate func(*corev1.PodSpec)) *datav1alpha1.DataProcess {
		dp := jobDefault()
		mutate(dp.Spec.Processor.Job.PodSpec)
		return dp
	}
	script := func(mutate func(*datav1alpha1.ScriptProcessor)) *datav1alpha1.DataProcess {
		dp := scriptDefault()
		mutate(dp.Spec.Processor.Script)
		return dp
	}
	for _, tc := range []struct {
		name  string
		dp    *datav1alpha1.DataProcess
		field string // the error names it
	}{
		{"neither", dataProcess(datav1alpha1.Processor{}), "spec.processor"},
		{"both", dataProcess(datav1alpha1.Processor{Job: jobDefault().Spec.Processor.Job, Script: scriptDefault().Spec.Processor.Script}), "spec.processor"},
		{"job without podSpec", dataProcess(datav1alpha1.Processor{Job: &datav1alpha1.JobProcessor{}}), "spec.processor.job.podSpec"},
		{"job without containers", job(func(s *corev1.PodSpec) { s.Containers = nil }), "spec.processor.job.podSpec.containers"},
		{"restart Always", job(func(s *corev1.PodSpec) { s.RestartPolicy = corev1.RestartPolicyAlways }), "spec.processor.job.podSpec.restartPolicy"},
		{"two service accounts", func() *datav1alpha1.DataProcess {
			dp := job(func(s *corev1.PodSpec) { s.ServiceAccountName = "a" })
			dp.Spec.Processor.ServiceAccountName = "b"
			return dp
		}(), "spec.processor.serviceAccountName"},
		{"volume named like the Dataset's", job(func(s *corev1.PodSpec) { s.Volumes = []corev1.Volume{{Name: process.DatasetVolume}} }), "spec.processor.job.podSpec.volumes[0].name"},
		{"mountPath taken", job(func(s *corev1.PodSpec) {
			s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "x", MountPath: "/data/"}}
		}),
			"spec.processor.job.podSpec.containers[0].volumeMounts"},
		{"init container's mountPath taken", job(func(s *corev1.PodSpec) {
			s.InitContainers = []corev1.Container{{Name: "i", VolumeMounts: []corev1.VolumeMount{{Name: "x", MountPath: "/data"}}}}
		}), "spec.processor.job.podSpec.initContainers[0].volumeMounts"},
		{"relative mountPath", func() *datav1alpha1.DataProcess { dp := jobDefault(); dp.Spec.Dataset.MountPath = "data"; return dp }(), "spec.dataset.mountPath"},
		{"subPath leaving the Dataset", func() *datav1alpha1.DataProcess { dp := jobDefault(); dp.Spec.Dataset.SubPath = "a/../../b"; return dp }(), "spec.dataset.subPath"},
		{"absolute subPath", func() *datav1alpha1.DataProcess { dp := jobDefault(); dp.Spec.Dataset.SubPath = "/a"; return dp }(), "spec.dataset.subPath"},
		{"script without image", script(func(s *datav1alpha1.ScriptProcessor) { s.Image = "" }), "spec.processor.script.image"},
		{"script without source", script(func(s *datav1alpha1.ScriptProcessor) { s.Source = "" }), "spec.processor.script.source"},
		{"script mount over its file", script(func(s *datav1alpha1.ScriptProcessor) {
			s.VolumeMounts = []corev1.VolumeMount{{Name: "x", MountPath: process.ScriptDir}}
		}),
			"spec.processor.script.volumeMounts[0]"},
		{"script restart Always", script(func(s *datav1alpha1.ScriptProcessor) { s.RestartPolicy = corev1.RestartPolicyAlways }), "spec.processor.script.restartPolicy"},
		{"script volume named like its files", script(func(s *datav1alpha1.ScriptProcessor) { s.Volumes = []corev1.Volume{{Name: dataop.FilesVolume}} }),
			"spec.processor.script.volumes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := process.Operations{}.Operation(engines.OperationRequest{Op: tc.dp, Dataset: dataset()})
			enginetest.WantInvalid(t, err, tc.field)
		})
	}
}

func TestOtherKindsAreTheEngines(t *testing.T) {
	dl := &datav1alpha1.DataLoad{ObjectMeta: metav1.ObjectMeta{Name: "warm", Namespace: "team-a"}, Spec: datav1alpha1.DataLoadSpec{Dataset: datav1alpha1.TargetDataset{Name: "imagenet"}}}
	_, err := process.Operations{}.Operation(engines.OperationRequest{Op: dl, Dataset: dataset()})
	var e *engines.Error
	if !errors.As(err, &e) || e.Reason != engines.ReasonUnsupported {
		t.Errorf("a DataLoad: %v, want ReasonUnsupported", err)
	}
}
