package controller_test

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// TestFuseRecordIsTheRenderedTemplate (reliability audit M12): the
// controller records the FUSE pod template it renders for a runtime in its
// own namespace (datav1alpha1.FuseRecord), the webhook's source for other
// namespaces' sidecars. As stored, the record's container and volumes are
// the FUSE DaemonSet's, Helm having just created it; a spec change is in
// the record by the time the DaemonSet has it; the runtime's deletion
// removes the record.
func TestFuseRecordIsTheRenderedTemplate(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	rt := boundRuntime(t, ns, "logs")
	fuse, record := &appsv1.DaemonSet{}, &corev1.PodTemplate{}
	fuseKey := types.NamespacedName{Namespace: ns, Name: "logs" + datav1alpha1.FuseDaemonSetSuffix}
	recordKey := types.NamespacedName{Namespace: fuseRecords, Name: datav1alpha1.FuseRecordName(rt.UID)}
	same := func() bool {
		if env.Client.Get(ctx, fuseKey, fuse) != nil || env.Client.Get(ctx, recordKey, record) != nil {
			return false
		}
		a, b := &fuse.Spec.Template.Spec, &record.Template.Spec
		return len(a.Containers) == 1 && len(b.Containers) == 1 &&
			equality.Semantic.DeepEqual(a.Containers[0], b.Containers[0]) && equality.Semantic.DeepEqual(a.Volumes, b.Volumes)
	}
	eventually(t, 20*time.Second, "the FUSE DaemonSet and its record hold the same container and volumes", same)
	if got := record.Annotations[datav1alpha1.AnnotationFuseRecordRuntime]; got != ns+"/logs" || record.Labels[datav1alpha1.LabelFuseRecord] != "true" {
		t.Fatalf("the record names runtime %q (labels %v), want %s/logs", got, record.Labels, ns)
	}

	before := *fuse.Spec.Template.Spec.Containers[0].DeepCopy()
	edit(t, rt, func(rt *datav1alpha1.JuiceFSRuntime) {
		rt.Spec.Fuse.Options = map[string]string{"buffer-size": "600"}
	})
	eventually(t, 30*time.Second, "the changed FUSE template is recorded", func() bool {
		return same() && !equality.Semantic.DeepEqual(fuse.Spec.Template.Spec.Containers[0], before)
	})

	if err := env.Client.Delete(ctx, rt); err != nil {
		t.Fatal(err)
	}
	eventually(t, 60*time.Second, "the runtime's deletion removes its record", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, recordKey, &corev1.PodTemplate{}))
	})
}
