package fake_test

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/engines/fake"
)

func TestRenderFollowsTopologyAndReplicas(t *testing.T) {
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n", UID: "u1"}}
	rt := &datav1alpha1.JindoRuntime{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n"}, Spec: datav1alpha1.JindoRuntimeSpec{Replicas: 3}}
	for _, master := range []bool{false, true} {
		e := fake.Engine{Master: master}
		values, err := e.Values(ds, rt)
		if err != nil {
			t.Fatal(err)
		}
		c, err := helm.LoadChart(e.Chart())
		if err != nil {
			t.Fatal(err)
		}
		out, err := helm.Render(context.Background(), c, values, "d", "n")
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := out["templates/master-statefulset.yaml"]; ok != master {
			t.Errorf("master=%v: rendered %v", master, helm.SortedKeys(out))
		}
		w := &appsv1.StatefulSet{}
		if err := yaml.UnmarshalStrict([]byte(out["templates/worker-statefulset.yaml"]), w); err != nil {
			t.Fatal(err)
		}
		if w.Name != "d-worker" || *w.Spec.Replicas != 3 {
			t.Errorf("worker StatefulSet %s with %d replicas", w.Name, *w.Spec.Replicas)
		}
		f := &appsv1.DaemonSet{}
		if err := yaml.UnmarshalStrict([]byte(out["templates/fuse-daemonset.yaml"]), f); err != nil {
			t.Fatal(err)
		}
		if f.Spec.Template.Spec.NodeSelector["fluid.io/f-n-d"] != "true" {
			t.Errorf("FUSE nodeSelector %v", f.Spec.Template.Spec.NodeSelector)
		}
	}
}
