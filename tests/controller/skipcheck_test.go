package controller_test

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// TestSkipCheckMountReadyTargetReachesThePV: a runtime annotated
// fluid.io/skip-check-mount-ready-target gets a PV whose CSI volume
// attributes carry the annotation's value, where the CSI plugin's
// NodePublishVolume reads it (as Fluid copies it); a runtime without the
// annotation gets a PV without the attribute.
func TestSkipCheckMountReadyTargetReachesThePV(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	for name, value := range map[string]string{"skipping": "MountPod", "checking": ""} {
		if err := env.Client.Create(ctx, testobj.Dataset(name, ns, testobj.WithMounts("juicefs:///"+name))); err != nil {
			t.Fatal(err)
		}
		rt := testobj.JuiceFSRuntime(name, ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi"))
		if value != "" {
			rt.Annotations = map[string]string{datav1alpha1.AnnotationSkipCheckMountReadyTarget: value}
		}
		if err := env.Client.Create(ctx, rt); err != nil {
			t.Fatal(err)
		}
		sts := &appsv1.StatefulSet{}
		eventually(t, 20*time.Second, "Helm installs the workers of "+name, func() bool {
			return env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name + "-worker"}, sts) == nil
		})
		markReady(t, sts)
	}
	for name, want := range map[string]string{"skipping": "MountPod", "checking": ""} {
		pv := &corev1.PersistentVolume{}
		eventually(t, 20*time.Second, "the PV of "+name, func() bool {
			return env.Client.Get(ctx, types.NamespacedName{Name: pvName(ns, name)}, pv) == nil
		})
		got, ok := pv.Spec.CSI.VolumeAttributes[datav1alpha1.AnnotationSkipCheckMountReadyTarget]
		if got != want || ok != (want != "") {
			t.Errorf("PV %s: attribute %s = %q (set %v), want %q", pv.Name, datav1alpha1.AnnotationSkipCheckMountReadyTarget, got, ok, want)
		}
		if pv.Spec.CSI.VolumeAttributes[datav1alpha1.VolumeAttrFluidPath] == "" {
			t.Errorf("PV %s lost its other attributes: %v", pv.Name, pv.Spec.CSI.VolumeAttributes)
		}
	}
}
