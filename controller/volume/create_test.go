package volume

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// TestCreateIfMissingNeverPassesTheDesiredObjectForTheStoredOne: when the
// cache does not show a PVC the API server already holds (an earlier
// create took effect and its answer was lost), CreateIfMissing must not
// report success with the object as given: it has no UID, so the PV made
// from it claimed no UID (seen under API faults: a PV whose claimRef never
// matched its PVC), and it carries the desired owner labels, so the
// ownership check would pass for someone else's PVC.
func TestCreateIfMissingNeverPassesTheDesiredObjectForTheStoredOne(t *testing.T) {
	ctx := context.Background()
	stored := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "imagenet", UID: "stored-uid"}}
	lagging := fakeclient.NewClientBuilder().WithInterceptorFuncs(interceptor.Funcs{
		Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
			return apierrors.NewNotFound(schema.GroupResource{Resource: "persistentvolumeclaims"}, stored.Name)
		},
	}).WithObjects(stored).Build()
	desired := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "imagenet"}}
	if err := CreateIfMissing(ctx, lagging, desired); err == nil {
		t.Fatalf("reported success with the desired object (UID %q) for the stored one", desired.UID)
	}

	fresh := fakeclient.NewClientBuilder().Build()
	created := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "models"}}
	if err := CreateIfMissing(ctx, fresh, created); err != nil || created.ResourceVersion == "" {
		t.Fatalf("creating a missing PVC: %v (resourceVersion %q)", err, created.ResourceVersion)
	}
	again := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "models"}}
	if err := CreateIfMissing(ctx, fresh, again); err != nil || again.ResourceVersion != created.ResourceVersion {
		t.Fatalf("a PVC the cache shows: %v, resourceVersion %q, want the stored %q", err, again.ResourceVersion, created.ResourceVersion)
	}
}
