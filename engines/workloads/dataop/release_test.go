package dataop_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/charts"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

func dataset() *datav1alpha1.Dataset {
	return &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "imagenet", Namespace: "team-a"}}
}

func dataLoad(mutate ...func(*datav1alpha1.DataLoad)) *datav1alpha1.DataLoad {
	dl := &datav1alpha1.DataLoad{ObjectMeta: metav1.ObjectMeta{Name: "warm", Namespace: "team-a", UID: "3f0c9a52-7f1e-4c11-9d2b-6a5e8b1c0d42"},
		Spec: datav1alpha1.DataLoadSpec{Dataset: datav1alpha1.TargetDataset{Name: "imagenet", Namespace: "team-a"}}}
	for _, m := range mutate {
		m(dl)
	}
	return dl
}

func loadPod() dataop.Pod {
	return dataop.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "load", Image: "engine:1", Command: []string{"load", "/"}}}}}
}

func release(t *testing.T, req engines.OperationRequest, pod dataop.Pod) enginetest.Operation {
	t.Helper()
	rel, err := dataop.Release(req, pod)
	if err != nil {
		t.Fatal(err)
	}
	return enginetest.RenderOperation(t, rel, "warm-load", "team-a")
}

func TestOnceRendersAJob(t *testing.T) {
	op := release(t, engines.OperationRequest{Op: dataLoad(func(dl *datav1alpha1.DataLoad) {
		dl.Spec.PodMetadata = datav1alpha1.PodMetadata{Labels: map[string]string{"team": "a"}, Annotations: map[string]string{"note": "x"}}
	}), Dataset: dataset()}, loadPod())
	if op.Job == nil || op.Files != nil {
		t.Fatalf("rendered %v, want a Job alone", op.Templates())
	}
	labels := map[string]string{engines.LabelOperationKind: "DataLoad", engines.LabelOperationName: "warm", engines.LabelManagedBy: "sluice", dataop.LabelInstance: "warm-load"}
	if diff := cmp.Diff(labels, op.Job.Labels); diff != "" {
		t.Errorf("Job labels (-want +got):\n%s", diff)
	}
	labels["team"] = "a"
	if diff := cmp.Diff(labels, op.Pod().Labels); diff != "" {
		t.Errorf("pod labels (-want +got):\n%s", diff)
	}
	if op.Pod().Annotations["note"] != "x" {
		t.Errorf("pod annotations %v", op.Pod().Annotations)
	}
	spec := op.Job.Spec
	if *spec.BackoffLimit != dataop.BackoffLimit || spec.TTLSecondsAfterFinished != nil || spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("Job backoffLimit %d, ttl %v, restartPolicy %s; want %d, none (the controller applies the operation's TTL), Never",
			*spec.BackoffLimit, spec.TTLSecondsAfterFinished, spec.Template.Spec.RestartPolicy, dataop.BackoffLimit)
	}
	if op.Job.Namespace != "team-a" || op.Pod().Spec.Containers[0].Name != "load" {
		t.Errorf("Job in %q, containers %+v", op.Job.Namespace, op.Pod().Spec.Containers)
	}
}

func TestCronRendersACronJob(t *testing.T) {
	op := release(t, engines.OperationRequest{Op: dataLoad(func(dl *datav1alpha1.DataLoad) {
		dl.Spec.Policy, dl.Spec.Schedule = datav1alpha1.Cron, "*/5 * * * *"
	}), Dataset: dataset()}, loadPod())
	if op.CronJob == nil {
		t.Fatalf("rendered %v, want a CronJob", op.Templates())
	}
	c := op.CronJob.Spec
	if c.Schedule != "*/5 * * * *" || c.ConcurrencyPolicy != "Forbid" || *c.JobTemplate.Spec.BackoffLimit != dataop.BackoffLimit {
		t.Errorf("CronJob schedule %q, concurrency %q, backoffLimit %d", c.Schedule, c.ConcurrencyPolicy, *c.JobTemplate.Spec.BackoffLimit)
	}
	if s := c.JobTemplate.Spec.Suspend; s == nil || !*s {
		t.Errorf("each scheduled run must start suspended (the controller resumes it once it holds the claim): suspend %v", s)
	}
	if c.JobTemplate.Labels[engines.LabelOperationName] != "warm" || op.Pod().Labels[engines.LabelOperationKind] != "DataLoad" {
		t.Errorf("scheduled Jobs and their pods must carry the operation's labels: %v, %v", c.JobTemplate.Labels, op.Pod().Labels)
	}
}

func TestPlacementAndRunAfterAffinity(t *testing.T) {
	zone := corev1.NodeSelectorRequirement{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a", "b"}}
	host := corev1.NodeSelectorRequirement{Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: []string{"node-7"}}
	toleration := corev1.Toleration{Key: "gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	req := engines.OperationRequest{Op: dataLoad(func(dl *datav1alpha1.DataLoad) {
		dl.Spec.Affinity = required(term(zone))
		dl.Spec.Tolerations = []corev1.Toleration{toleration}
		dl.Spec.NodeSelector = map[string]string{"disk": "nvme"}
		dl.Spec.SchedulerName = "volcano"
	}), Dataset: dataset(), Affinity: required(term(host))}
	spec := release(t, req, loadPod()).Pod().Spec
	if diff := cmp.Diff(required(term(zone, host)), spec.Affinity); diff != "" {
		t.Errorf("affinity (-want +got):\n%s", diff)
	}
	if !cmp.Equal(spec.Tolerations, []corev1.Toleration{toleration}) || spec.NodeSelector["disk"] != "nvme" || spec.SchedulerName != "volcano" {
		t.Errorf("tolerations %v, nodeSelector %v, scheduler %q", spec.Tolerations, spec.NodeSelector, spec.SchedulerName)
	}
}

func TestFilesBecomeAConfigMapVolume(t *testing.T) {
	pod := loadPod()
	pod.Files = map[string]string{"run.sh": "echo $(HOME) \"{{ x }}\"\n---\n"}
	op := release(t, engines.OperationRequest{Op: dataLoad(), Dataset: dataset()}, pod)
	if op.Files == nil || op.Files.Name != "warm-load-files" || op.Files.Data["run.sh"] != pod.Files["run.sh"] {
		t.Fatalf("files ConfigMap %+v", op.Files)
	}
	vols := op.Pod().Spec.Volumes
	if len(vols) != 1 || vols[0].Name != dataop.FilesVolume || vols[0].ConfigMap == nil || vols[0].ConfigMap.Name != "warm-load-files" || *vols[0].ConfigMap.DefaultMode != 0o555 {
		t.Errorf("pod volumes %+v, want the files ConfigMap, mode 0555", vols)
	}
}

func TestLongNamesLabelByUID(t *testing.T) {
	dl := dataLoad(func(dl *datav1alpha1.DataLoad) { dl.Name = strings.Repeat("n", 64) })
	if got := engines.OperationLabels(dl)[engines.LabelOperationName]; got != string(dl.UID) {
		t.Errorf("a 64-character name labels as %q, want the UID", got)
	}
}

func TestReleaseRefusesWhatItCannotHonour(t *testing.T) {
	other := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: "team-a"}}
	for _, tc := range []struct {
		name      string
		req       engines.OperationRequest // its Dataset is dataset() unless noDataset
		pod       func(*dataop.Pod)        // changes the engine's pod
		noDataset bool
		field     string // the error names it
	}{
		{"schedule without Cron", engines.OperationRequest{Op: dataLoad(func(dl *datav1alpha1.DataLoad) { dl.Spec.Schedule = "@daily" })}, nil, false, "spec.schedule"},
		{"Cron without schedule", engines.OperationRequest{Op: dataLoad(func(dl *datav1alpha1.DataLoad) { dl.Spec.Policy = datav1alpha1.Cron })}, nil, false, "spec.schedule"},
		{"OnEvent", engines.OperationRequest{Op: dataLoad(func(dl *datav1alpha1.DataLoad) { dl.Spec.Policy = datav1alpha1.OnEvent })}, nil, false, "spec.policy"},
		{"unknown policy", engines.OperationRequest{Op: dataLoad(func(dl *datav1alpha1.DataLoad) { dl.Spec.Policy = "Sometimes" })}, nil, false, "spec.policy"},
		{"reserved label", engines.OperationRequest{Op: dataLoad(func(dl *datav1alpha1.DataLoad) {
			dl.Spec.PodMetadata.Labels = map[string]string{engines.LabelOperationName: "x"}
		})}, nil, false, "spec.podMetadata.labels"},
		{"bad label value", engines.OperationRequest{Op: dataLoad(func(dl *datav1alpha1.DataLoad) {
			dl.Spec.PodMetadata.Labels = map[string]string{"team": "a b"}
		})}, nil, false, "spec.podMetadata.labels"},
		{"bad annotation name", engines.OperationRequest{Op: dataLoad(func(dl *datav1alpha1.DataLoad) {
			dl.Spec.PodMetadata.Annotations = map[string]string{"not a name": "x"}
		})}, nil, false, "spec.podMetadata.annotations"},
		{"node selector conflict", engines.OperationRequest{Op: dataLoad(func(dl *datav1alpha1.DataLoad) { dl.Spec.NodeSelector = map[string]string{"role": "b"} })},
			func(p *dataop.Pod) { p.Spec.NodeSelector = map[string]string{"role": "a"} }, false, "spec.nodeSelector[role]"},
		{"scheduler conflict", engines.OperationRequest{Op: dataLoad(func(dl *datav1alpha1.DataLoad) { dl.Spec.SchedulerName = "b" })},
			func(p *dataop.Pod) { p.Spec.SchedulerName = "a" }, false, "spec.schedulerName"},
		{"restart Always", engines.OperationRequest{Op: dataLoad()}, func(p *dataop.Pod) { p.Spec.RestartPolicy = corev1.RestartPolicyAlways }, false, "restartPolicy"},
		{"files volume taken", engines.OperationRequest{Op: dataLoad()}, func(p *dataop.Pod) {
			p.Files = map[string]string{"a": "b"}
			p.Spec.Volumes = []corev1.Volume{{Name: dataop.FilesVolume}}
		}, false, dataop.FilesVolume},
		{"another Dataset", engines.OperationRequest{Op: dataLoad(), Dataset: other}, nil, false, "spec.dataset"},
		{"another namespace", engines.OperationRequest{Op: dataLoad(func(dl *datav1alpha1.DataLoad) { dl.Namespace = "team-b" })}, nil, false, "namespace"},
		{"no Dataset", engines.OperationRequest{Op: dataLoad()}, nil, true, "Dataset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.req.Dataset == nil && !tc.noDataset {
				tc.req.Dataset = dataset()
			}
			pod := loadPod()
			if tc.pod != nil {
				tc.pod(&pod)
			}
			_, err := dataop.Release(tc.req, pod)
			enginetest.WantInvalid(t, err, tc.field)
		})
	}
}

// TestChartSchema: the chart itself refuses values that would not render
// exactly one workload.
func TestChartSchema(t *testing.T) {
	c, err := helm.LoadChart(charts.DataOp)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := dataop.Release(engines.OperationRequest{Op: dataLoad(), Dataset: dataset()}, loadPod())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := helm.Render(context.Background(), c, rel.Values, "warm-load", "team-a"); err != nil {
		t.Fatalf("the values Release computes do not render: %v", err)
	}
	// Labels the pod metadata would overwrite stay the operation's, should
	// values ever carry one (Release refuses them before).
	values, err := engines.ToPlain(rel.Values)
	if err != nil {
		t.Fatal(err)
	}
	values["pod"].(map[string]any)["labels"] = map[string]any{engines.LabelOperationName: "other", dataop.LabelInstance: "other", "team": "a"}
	op := enginetest.RenderOperation(t, engines.OperationRelease{Chart: rel.Chart, Values: values}, "warm-load", "team-a")
	if l := op.Pod().Labels; l[engines.LabelOperationName] != "warm" || l[dataop.LabelInstance] != "warm-load" || l["team"] != "a" {
		t.Errorf("pod labels %v: the operation's must win over the pod's own", l)
	}
	for name, change := range map[string]func(v map[string]any){
		"unknown policy":          func(v map[string]any) { v["policy"] = "OnEvent" },
		"Cron without a schedule": func(v map[string]any) { v["policy"], v["schedule"] = "Cron", "" },
		"unknown value":           func(v map[string]any) { v["ttlSecondsAfterFinished"] = 60 },
		"no container":            func(v map[string]any) { v["pod"].(map[string]any)["spec"].(map[string]any)["containers"] = []any{} },
		"files without a volume":  func(v map[string]any) { v["files"] = map[string]any{"volume": "", "data": map[string]any{"a": "b"}} },
		"negative workers":        func(v map[string]any) { v["workers"].(map[string]any)["replicas"] = -1 },
		"unknown workers value":   func(v map[string]any) { v["workers"].(map[string]any)["minReady"] = 1 },
	} {
		values, err := engines.ToPlain(rel.Values)
		if err != nil {
			t.Fatal(err)
		}
		change(values)
		if out, err := helm.Render(context.Background(), c, values, "warm-load", "team-a"); err == nil {
			t.Errorf("%s: rendered %v", name, helm.SortedKeys(out))
		}
	}
}

// TestWorkers: a parallel operation's workers get the operation's
// placement and pod metadata and restart Always; their instance label is
// their own, so the workers' StatefulSet selects them and never the
// operation's pod. Without the release name (which their DNS
// names need) Release refuses them.
func TestWorkers(t *testing.T) {
	dl := dataLoad()
	dl.Spec.NodeSelector = map[string]string{"disk": "nvme"}
	dl.Spec.PodMetadata.Labels = map[string]string{"team": "a"}
	pod := loadPod()
	pod.Workers = &dataop.Workers{Replicas: 2, Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "w", Image: "busybox"}}}}
	req := engines.OperationRequest{Op: dl, Dataset: dataset()}
	if _, err := dataop.Release(req, pod); err == nil || !strings.Contains(err.Error(), "release name") {
		t.Fatalf("workers without the release name: %v", err)
	}
	req.Release = "warm-load"
	rel, err := dataop.Release(req, pod)
	if err != nil {
		t.Fatal(err)
	}
	op := enginetest.RenderOperation(t, rel, "warm-load", "team-a")
	w := op.Workers
	if w == nil || *w.Spec.Replicas != 2 || w.Annotations["dataop.sluice.io/workers"] != "2" {
		t.Fatalf("workers %+v", w)
	}
	ws := w.Spec.Template.Spec
	if ws.RestartPolicy != corev1.RestartPolicyAlways || ws.NodeSelector["disk"] != "nvme" {
		t.Errorf("workers' pod: restart %s, nodeSelector %v; want Always and the operation's", ws.RestartPolicy, ws.NodeSelector)
	}
	labels := w.Spec.Template.Labels
	if labels[dataop.LabelInstance] != "warm-load-workers" || labels["team"] != "a" || labels[engines.LabelOperationName] != "warm" {
		t.Errorf("workers' labels %v", labels)
	}
	if op.Pod().Labels[dataop.LabelInstance] != "warm-load" {
		t.Errorf("the operation's pod is labelled %v", op.Pod().Labels)
	}
}
