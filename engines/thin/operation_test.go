package thin_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/thin"
)

// sluiceImage is the controller's --sluice-image in these tests.
const sluiceImage = "ghcr.io/sluice-data/sluice:v1.2.3"

// dataLoadFull sets every DataLoad field.
func dataLoadFull() *datav1alpha1.DataLoad {
	dl := enginetest.DataLoad()
	s := &dl.Spec
	s.LoadMetadata = true
	s.Target = []datav1alpha1.TargetPath{{Path: "/train", Replicas: 1}, {Path: "/validation/2024 q1"}}
	s.Options = map[string]string{"threads": "16", "timeout": "2h"}
	s.PodMetadata = datav1alpha1.PodMetadata{Labels: map[string]string{"team": "vision"}, Annotations: map[string]string{"owner": "ml@example.com"}}
	s.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
		{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}}}}}}}
	s.Tolerations = []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	s.NodeSelector = map[string]string{"gpu": "true", "disk": "nvme"}
	s.Resources = corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")}}
	s.SchedulerName = "volcano"
	s.Policy, s.Schedule = datav1alpha1.Cron, "0 */6 * * *"
	return dl
}

// renderLoad resolves the sample runtime's profile, as the operation
// reconciler does, and renders the DataLoad with the Helm SDK.
func renderLoad(t *testing.T, dl *datav1alpha1.DataLoad, affinity *corev1.Affinity) enginetest.Operation {
	t.Helper()
	rel, err := operation(t, dl, affinity)
	if err != nil {
		t.Fatal(err)
	}
	return enginetest.RenderOperation(t, rel, "warm-load", "team-a")
}

func operation(t *testing.T, op datav1alpha1.OperationObject, affinity *corev1.Affinity) (engines.OperationRelease, error) {
	t.Helper()
	ds, profile, rt := sample()
	e, err := thin.Engine{SluiceImage: sluiceImage}.Resolve(t.Context(), fakeReader(profile), rt)
	if err != nil {
		t.Fatal(err)
	}
	return e.Operation(engines.OperationRequest{Op: op, Dataset: ds, Runtime: rt, Affinity: affinity, Release: "warm-load"})
}

// TestOperationGolden renders a DataLoad with its defaults and with every
// field set, and compares with testdata/golden/<case> (go test -update
// rewrites them after a deliberate change).
func TestOperationGolden(t *testing.T) {
	for name, tc := range map[string]struct {
		dl       *datav1alpha1.DataLoad
		affinity *corev1.Affinity
	}{
		"dataload-default": {enginetest.DataLoad(), nil},
		"dataload-full":    {dataLoadFull(), enginetest.RunAfterAffinity},
	} {
		t.Run(name, func(t *testing.T) {
			op := renderLoad(t, tc.dl, tc.affinity)
			enginetest.GoldenCase(t, name, op.Out, op.Templates())
		})
	}
}

// TestLoadReadsThroughTheDatasetsClaim: the load pod runs sluice warmup in
// Sluice's image over the Dataset's PVC, mounted read-only where the
// command reads it, with the targets as separate arguments after --; it
// runs only where the runtime's FUSE may run, pulls with the runtime's pull
// secrets and asks for no privilege.
func TestLoadReadsThroughTheDatasetsClaim(t *testing.T) {
	op := renderLoad(t, dataLoadFull(), nil)
	spec := op.Pod().Spec
	if len(spec.Containers) != 1 || len(spec.InitContainers) != 0 {
		t.Fatalf("containers %+v, init containers %+v", spec.Containers, spec.InitContainers)
	}
	c := enginetest.Effective(spec.Containers[0])
	want := []string{"sluice", "warmup", "--root=/sluice/dataset", "--threads=16", "--timeout=2h", "--metadata", "--", "/train", "/validation/2024 q1"}
	if !cmp.Equal(c.Command, want) || len(c.Args) != 0 || c.Image != sluiceImage {
		t.Errorf("the load runs %q %q in %s, want %q in %s", c.Command, c.Args, c.Image, want, sluiceImage)
	}
	m := enginetest.MountAt(c, "/sluice/dataset")
	if m == nil || !m.ReadOnly {
		t.Fatalf("mounts %+v: want the Dataset read-only at /sluice/dataset", c.VolumeMounts)
	}
	if v := enginetest.Volume(spec, m.Name); v == nil || v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != "imagenet" || !v.PersistentVolumeClaim.ReadOnly {
		t.Errorf("the mounted volume is %+v, want the Dataset's PVC imagenet, read-only", v)
	}
	// The runtime's FUSE nodeSelector (it replaces the profile's), with
	// the DataLoad's own.
	if want := map[string]string{"gpu": "true", "disk": "nvme"}; !cmp.Equal(spec.NodeSelector, want) {
		t.Errorf("nodeSelector %v, want %v", spec.NodeSelector, want)
	}
	sc := c.SecurityContext
	if sc == nil || *sc.AllowPrivilegeEscalation || !*sc.ReadOnlyRootFilesystem || !*sc.RunAsNonRoot || !cmp.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Errorf("security context %+v", sc)
	}
	if c.Resources.Limits.Memory().String() != "256Mi" {
		t.Errorf("resources %+v, want the DataLoad's", c.Resources)
	}

	def := renderLoad(t, enginetest.DataLoad(), nil)
	if got := enginetest.Effective(def.Pod().Spec.Containers[0]).Command; !cmp.Equal(got, []string{"sluice", "warmup", "--root=/sluice/dataset", "--", "/"}) {
		t.Errorf("the default load runs %q, want the whole Dataset with warmup's defaults", got)
	}
	ds, profile, rt := sample()
	profile.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "profile-registry"}}
	rt.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "team-registry"}}
	e, err := thin.Engine{SluiceImage: sluiceImage}.Resolve(t.Context(), fakeReader(profile), rt)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := e.Operation(engines.OperationRequest{Op: enginetest.DataLoad(), Dataset: ds, Runtime: rt, Release: "warm-load"})
	if err != nil {
		t.Fatal(err)
	}
	if got := enginetest.RenderOperation(t, rel, "warm-load", "team-a").Pod().Spec.ImagePullSecrets; !cmp.Equal(got, rt.Spec.ImagePullSecrets) {
		t.Errorf("pull secrets %v, want the runtime's (which replace the profile's)", got)
	}
}

// TestLoadRefusesWhatItCannotHonour: each field the load cannot do as
// asked is an InvalidSpec error naming it.
func TestLoadRefusesWhatItCannotHonour(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(*datav1alpha1.DataLoad)
		field string // the error names it
	}{
		{"replicas", func(dl *datav1alpha1.DataLoad) {
			dl.Spec.Target = []datav1alpha1.TargetPath{{Path: "/a"}, {Path: "/b", Replicas: 2}}
		}, "spec.target[1].replicas is 2"},
		{"relative path", func(dl *datav1alpha1.DataLoad) { dl.Spec.Target = []datav1alpha1.TargetPath{{Path: "train"}} }, "spec.target[0].path"},
		{"path leaving the Dataset", func(dl *datav1alpha1.DataLoad) {
			dl.Spec.Target = []datav1alpha1.TargetPath{{Path: "/train/../../etc"}}
		}, "no .. elements"},
		{"unknown option", func(dl *datav1alpha1.DataLoad) { dl.Spec.Options = map[string]string{"atomicCache": "true"} }, `spec.options["atomicCache"]`},
		{"threads", func(dl *datav1alpha1.DataLoad) { dl.Spec.Options = map[string]string{"threads": "0"} }, `spec.options["threads"] is "0"`},
		{"threads not a number", func(dl *datav1alpha1.DataLoad) { dl.Spec.Options = map[string]string{"threads": "many"} }, `spec.options["threads"]`},
		{"timeout", func(dl *datav1alpha1.DataLoad) { dl.Spec.Options = map[string]string{"timeout": "1d"} }, `spec.options["timeout"] is "1d"`},
		{"nodeSelector the FUSE cannot run on", func(dl *datav1alpha1.DataLoad) { dl.Spec.NodeSelector = map[string]string{"gpu": "false"} }, "spec.nodeSelector[gpu]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dl := enginetest.DataLoad()
			tc.edit(dl)
			_, err := operation(t, dl, nil)
			enginetest.WantInvalid(t, err, tc.field)
		})
	}
	ds, _, rt := sample()
	_, err := thin.Engine{}.Operation(engines.OperationRequest{Op: enginetest.DataLoad(), Dataset: ds, Runtime: rt})
	enginetest.WantInvalid(t, err, "--sluice-image")
}
