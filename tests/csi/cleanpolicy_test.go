package csi_test

import (
	"context"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// TestOnFuseChangedCleanPolicy: unstaging keeps the FUSE label while the
// runtime's FUSE DaemonSet is unchanged, and removes it once the DaemonSet
// changed since staging, so the next Pod gets a FUSE with the new spec.
func TestOnFuseChangedCleanPolicy(t *testing.T) {
	socket, _ := startDriver(t)
	nc := nodeClient(t, socket)
	ctx := context.Background()
	ns := env.Namespace(t)
	fuse := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "imagenet-fuse", Namespace: ns},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "fuse"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "fuse"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "fuse", Image: "fuse:1"}}}},
		},
	}
	if err := env.Client.Create(testenv.Context(t), fuse); err != nil {
		t.Fatal(err)
	}
	const labelKey = "fluid.io/f-onfusechanged"
	vc := map[string]string{
		datav1alpha1.VolumeAttrFluidPath: t.TempDir(), datav1alpha1.VolumeAttrNodeSelectorKey: labelKey,
		datav1alpha1.VolumeAttrFuseCleanPolicy: "OnFuseChanged", datav1alpha1.VolumeAttrRuntimeNamespace: ns, datav1alpha1.VolumeAttrRuntimeName: "imagenet",
	}
	capability := &csi.VolumeCapability{AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}},
		AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_MULTI_NODE_READER_ONLY}}
	stage := &csi.NodeStageVolumeRequest{VolumeId: ns + "-imagenet", StagingTargetPath: t.TempDir(), VolumeCapability: capability, VolumeContext: vc}
	unstage := &csi.NodeUnstageVolumeRequest{VolumeId: ns + "-imagenet", StagingTargetPath: stage.StagingTargetPath}

	if _, err := nc.NodeStageVolume(ctx, stage); err != nil {
		t.Fatal(err)
	}
	if _, err := nc.NodeUnstageVolume(ctx, unstage); err != nil {
		t.Fatal(err)
	}
	if nodeLabels(t)[labelKey] != "true" {
		t.Fatal("the label was removed although FUSE did not change")
	}

	if _, err := nc.NodeStageVolume(ctx, stage); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Get(testenv.Context(t), client.ObjectKeyFromObject(fuse), fuse); err != nil {
		t.Fatal(err)
	}
	fuse.Spec.Template.Spec.Containers[0].Image = "fuse:2"
	if err := env.Client.Update(testenv.Context(t), fuse); err != nil {
		t.Fatal(err)
	}
	if _, err := nc.NodeUnstageVolume(ctx, unstage); err != nil {
		t.Fatal(err)
	}
	if _, ok := nodeLabels(t)[labelKey]; ok {
		t.Fatal("the label was kept although the FUSE DaemonSet changed since staging")
	}
}
