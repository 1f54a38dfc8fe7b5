package controller_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/release"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/cacheruntime"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// forgedRepository is the image repository a forged release record puts
// in the place of the engine's.
const forgedRepository = "registry.test/forged"

// TestARollbackAppliesNoForgedRecord (reliability audit N4): a namespace
// user who may edit Secrets rewrites the release record of the runtime's
// deployed revision (its manifest and its values) to run another image in
// the workers, then has the next upgrade fail (requests above limits, as
// in TestARefusedUpgradeBacksOff). The controller rolls back, and nothing
// of the record reaches the API server: the workers keep the engine's
// image, and the revision the rollback wrote is rendered afresh. Before,
// Helm's rollback applied the stored manifest, the forged image with it.
func TestARollbackAppliesNoForgedRecord(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := func(name string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: name} }
	rt := boundRuntime(t, ns, "forged")
	sts := &appsv1.StatefulSet{}
	if err := env.Client.Get(ctx, key("forged-worker"), sts); err != nil {
		t.Fatal(err)
	}
	image := sts.Spec.Template.Spec.Containers[0].Image
	repository := image[:strings.LastIndex(image, ":")]

	releases := releaseStorage(t, ns)
	good, err := releases.Last("forged")
	if err != nil || good.Info.Status != release.StatusDeployed || !strings.Contains(good.Manifest, repository) {
		t.Fatalf("the runtime's release: %+v %v, want it deployed, naming %s", good, err, repository)
	}
	good.Manifest = strings.ReplaceAll(good.Manifest, repository, forgedRepository)
	values, err := json.Marshal(good.Config)
	if err != nil {
		t.Fatal(err)
	}
	forgedValues := map[string]any{}
	if err := json.Unmarshal([]byte(strings.ReplaceAll(string(values), repository, forgedRepository)), &forgedValues); err != nil {
		t.Fatal(err)
	}
	good.Config = forgedValues
	if err := releases.Update(good); err != nil {
		t.Fatal(err)
	}

	edit(t, rt, func(rt *datav1alpha1.JuiceFSRuntime) {
		rt.Spec.Worker.Resources = corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
			Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
		}
	})
	eventually(t, 30*time.Second, "the runtime reports the refused upgrade", func() bool {
		if env.Client.Get(ctx, client.ObjectKeyFromObject(rt), rt) != nil {
			return false
		}
		ready := meta.FindStatusCondition(rt.Status.Conditions, cacheruntime.ConditionReady)
		return ready != nil && ready.Reason == cacheruntime.ReasonReleaseFailed && strings.Contains(ready.Message, "tried again after")
	})
	eventually(t, 20*time.Second, "the release is rolled back", func() bool {
		last, err := releases.Last("forged")
		return err == nil && last.Version > good.Version+1 && last.Info.Status == release.StatusDeployed
	})
	if events := runtimeEvents(t, ns, "forged"); !strings.Contains(events, "Release/Rollback") {
		t.Errorf("events:\n%s\nwant a rollback", events)
	}

	ctx = testenv.Context(t)
	last, err := releases.Last("forged")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(last.Manifest, forgedRepository) {
		t.Errorf("the rollback's revision %d carries the forged image:\n%s", last.Version, last.Manifest)
	}
	for _, list := range []client.ObjectList{&appsv1.StatefulSetList{}, &appsv1.DaemonSetList{}} {
		if err := env.Client.List(ctx, list, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		for _, tmpl := range podTemplatesOf(list) {
			for _, c := range append(tmpl.Spec.InitContainers, tmpl.Spec.Containers...) {
				if strings.HasPrefix(c.Image, forgedRepository) {
					t.Errorf("%s: container %s runs the forged image %s", tmpl.Name, c.Name, c.Image)
				}
			}
		}
	}
}

// podTemplatesOf returns the pod templates of a StatefulSetList or a
// DaemonSetList, each named after its workload.
func podTemplatesOf(list client.ObjectList) []corev1.PodTemplateSpec {
	var out []corev1.PodTemplateSpec
	switch l := list.(type) {
	case *appsv1.StatefulSetList:
		for _, s := range l.Items {
			tmpl := s.Spec.Template
			tmpl.Name = "StatefulSet " + s.Name
			out = append(out, tmpl)
		}
	case *appsv1.DaemonSetList:
		for _, d := range l.Items {
			tmpl := d.Spec.Template
			tmpl.Name = "DaemonSet " + d.Name
			out = append(out, tmpl)
		}
	}
	return out
}
