package guardcheck_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/tests/support/testobj"
	"github.com/sluice-data/sluice/trust/guardcheck"
)

func checker(t *testing.T, over map[string]any, objs ...client.Object) *guardcheck.Checker {
	t.Helper()
	data, err := policies.DefaultData(policies.ProfileRestricted)
	if err != nil {
		t.Fatal(err)
	}
	data = policies.MergeData(data, over)
	r := fake.NewClientBuilder().WithScheme(sluicescheme.New()).WithObjects(objs...).Build()
	return &guardcheck.Checker{Data: func(context.Context) (map[string]any, error) { return data, nil }, Reader: r}
}

func rules(ds []guardcheck.Denial) []string {
	var out []string
	for _, d := range ds {
		if !slices.Contains(out, d.Rule) {
			out = append(out, d.Rule)
		}
	}
	slices.Sort(out)
	return out
}

// TestTheGuardRulesJudgeWhatTheWebhookWould: every escape guard denies
// at reconcile what it denies at admission, naming rule and field.
func TestTheGuardRulesJudgeWhatTheWebhookWould(t *testing.T) {
	kubelet := testobj.JuiceFSRuntime("kubelet", "team-a", 1, testobj.Level(datav1alpha1.SSD, "/var/lib/kubelet", "10Gi"))
	kubelet.Spec.JuiceFSVersion.Image = "busybox"
	kubelet.Spec.Fuse.Env = []corev1.EnvVar{{Name: "PATH", Value: "/opt/x"}}
	local := testobj.Dataset("local", "team-a", testobj.WithMounts("local:///etc"))
	profile := &datav1alpha1.ThinRuntimeProfile{ObjectMeta: metav1.ObjectMeta{Name: "nfs"},
		Spec: datav1alpha1.ThinRuntimeProfileSpec{FileSystemType: "nfs", Fuse: datav1alpha1.ThinFuseSpec{Command: []string{"mount-nfs"}}}}
	thin := &datav1alpha1.ThinRuntime{ObjectMeta: metav1.ObjectMeta{Name: "thin", Namespace: "team-a"},
		Spec: datav1alpha1.ThinRuntimeSpec{ProfileName: "nfs", Fuse: datav1alpha1.ThinFuseSpec{Command: []string{"sh"}}}}
	process := &datav1alpha1.DataProcess{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "team-a"},
		Spec: datav1alpha1.DataProcessSpec{Processor: datav1alpha1.Processor{Job: &datav1alpha1.JobProcessor{PodSpec: &corev1.PodSpec{HostPID: true}}}}}
	c := checker(t, nil, profile)
	for _, tt := range []struct {
		obj  client.Object
		want []string
		says string
	}{
		{kubelet, []string{"image-registry", "privileged-container", "tieredstore-path"}, `spec.fuse.env[0]: "PATH" is not allowed in the privileged JuiceFS FUSE container`},
		{local, []string{"local-mount"}, `spec.mounts[0].mountPoint: local path "/etc" is not under an allowed prefix`},
		{thin, []string{"thin-override"}, "spec.fuse.command: overrides the command of ThinRuntimeProfile nfs"},
		{process, []string{"process-privilege"}, "spec.processor.job.podSpec.hostPID"},
		{testobj.JuiceFSRuntime("fine", "team-a", 1, testobj.Level(datav1alpha1.Memory, "/dev/shm", "1Gi")), nil, ""},
	} {
		got, err := c.Check(context.Background(), tt.obj)
		if err != nil {
			t.Fatalf("%s: %v", tt.obj.GetName(), err)
		}
		if !slices.Equal(rules(got), tt.want) {
			t.Errorf("%s: rules %v, want %v (%v)", tt.obj.GetName(), rules(got), tt.want, got)
		}
		if tt.says != "" && !slices.ContainsFunc(got, func(d guardcheck.Denial) bool { return strings.Contains(d.Message, tt.says) }) {
			t.Errorf("%s: no denial says %q: %v", tt.obj.GetName(), tt.says, got)
		}
	}

	err := c.Refuse(context.Background(), kubelet)
	var e *engines.Error
	if !errors.As(err, &e) || e.Reason != engines.ReasonInvalidSpec || !strings.Contains(err.Error(), "(rule privileged-container)") {
		t.Errorf("Refuse: %v", err)
	}
}

// TestThePlatformsDataApplies: the policy data a platform team writes
// admits at reconcile what it admits at admission, in its namespace only.
func TestThePlatformsDataApplies(t *testing.T) {
	rt := testobj.JuiceFSRuntime("x", "team-a", 1, testobj.Level(datav1alpha1.Memory, "/dev/shm", "1Gi"))
	rt.Spec.Fuse.VolumeMounts = []corev1.VolumeMount{{Name: "x", MountPath: "/opt/x"}}
	over := map[string]any{"validating": map[string]any{"guards": map[string]any{"team-a": map[string]any{"privilegedFields": []any{"spec.fuse.volumeMounts"}}}}}
	c := checker(t, over)
	if got, err := c.Check(context.Background(), rt); err != nil || len(got) != 0 {
		t.Errorf("team-a, whose data lists spec.fuse.volumeMounts: %v %v", got, err)
	}
	other := rt.DeepCopy()
	other.Namespace = "team-b"
	if got, err := c.Check(context.Background(), other); err != nil || !slices.Equal(rules(got), []string{"privileged-container"}) {
		t.Errorf("team-b: %v %v", got, err)
	}
}

// TestADenialIsConfirmedWithTheDataAsItIsNow: with policy data cached, a
// value the platform has just admitted is not refused, and the data is
// read again only to confirm a denial.
func TestADenialIsConfirmedWithTheDataAsItIsNow(t *testing.T) {
	base, err := policies.DefaultData(policies.ProfileRestricted)
	if err != nil {
		t.Fatal(err)
	}
	current, reads := base, 0
	c := &guardcheck.Checker{MaxAge: time.Hour, Data: func(context.Context) (map[string]any, error) { reads++; return current, nil }}
	fine := testobj.JuiceFSRuntime("fine", "team-a", 1, testobj.Level(datav1alpha1.Memory, "/dev/shm", "1Gi"))
	if got, err := c.Check(context.Background(), fine); err != nil || len(got) != 0 || reads != 1 {
		t.Fatalf("a clean runtime: %v %v, %d reads", got, err, reads)
	}
	if _, _ = c.Check(context.Background(), fine); reads != 1 {
		t.Fatalf("the cached data was read again: %d reads", reads)
	}
	srv := testobj.JuiceFSRuntime("k", "team-a", 1, testobj.Level(datav1alpha1.SSD, "/srv/cache", "1Gi"))
	current = policies.MergeData(base, map[string]any{"validating": map[string]any{"guards": map[string]any{"team-a": map[string]any{"tieredstorePaths": []any{"/srv/cache"}}}}})
	if got, err := c.Check(context.Background(), srv); err != nil || len(got) != 0 || reads != 2 {
		t.Errorf("a path the platform has just admitted: %v %v, %d reads", got, err, reads)
	}
}

// TestEnforcementAppliesAtReconcile: a guard rule in warn or dryrun mode,
// or an exception covering the object until it expires, refuses nothing
// at reconcile either, as at admission; elsewhere the rule still denies,
// and a refusal says how to get an exception.
func TestEnforcementAppliesAtReconcile(t *testing.T) {
	registry := func(ns, name string, labels map[string]string) *datav1alpha1.JuiceFSRuntime {
		rt := testobj.JuiceFSRuntime(name, ns, 1, testobj.Level(datav1alpha1.Memory, "/dev/shm", "1Gi"))
		rt.Spec.JuiceFSVersion.Image = "busybox"
		rt.Labels = labels
		return rt
	}
	over := map[string]any{"enforcement": map[string]any{
		"rules": map[string]any{"image-registry": map[string]any{"namespaces": map[string]any{"warned": "warn", "dry": "dryrun"}}},
		"exceptions": map[string]any{
			"legacy":  map[string]any{"rules": []any{"image-registry"}, "selector": map[string]any{"matchLabels": map[string]any{"legacy": "true"}}},
			"expired": map[string]any{"rules": []any{"image-registry"}, "namespaces": []any{"old"}, "expires": time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)},
		},
	}}
	c := checker(t, over)
	for _, tt := range []struct {
		obj  client.Object
		want []string
	}{
		{registry("warned", "x", nil), nil},
		{registry("dry", "x", nil), nil},
		{registry("team-a", "x", map[string]string{"legacy": "true"}), nil},
		{registry("team-a", "x", nil), []string{"image-registry"}},
		{registry("old", "x", nil), []string{"image-registry"}},
	} {
		got, err := c.Check(context.Background(), tt.obj)
		if err != nil || !slices.Equal(rules(got), tt.want) {
			t.Errorf("%s/%s %v: rules %v (%v), want %v", tt.obj.GetNamespace(), tt.obj.GetName(), tt.obj.GetLabels(), rules(got), err, tt.want)
		}
	}
	if err := c.Refuse(context.Background(), registry("team-a", "x", nil)); err == nil || !strings.Contains(err.Error(), "exception to rule image-registry") {
		t.Errorf("Refuse: %v, want how to get an exception", err)
	}
	bad := checker(t, map[string]any{"enforcement": map[string]any{"rules": map[string]any{"image-registry": map[string]any{"mode": "audit"}}}})
	if _, err := bad.Check(context.Background(), registry("team-a", "x", nil)); err == nil || !strings.Contains(err.Error(), `"audit" is not a mode`) {
		t.Errorf("an unknown mode: %v", err)
	}
}
