package csi_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	sluicecsi "github.com/sluice-data/sluice/csi"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// TestPluginManifests applies config/csi (CSIDriver, RBAC, DaemonSet) to the
// real API server, then acts as the plugin's ServiceAccount and shows its
// ClusterRole allows every call the plugin makes, and no more.
func TestPluginManifests(t *testing.T) {
	ctx := testenv.Context(t)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "sluice-system"}}
	if err := env.Client.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	if err := env.ApplyManifests(ctx, "csi/*.yaml", 2); err != nil {
		t.Fatal(err)
	}

	sa := rest.CopyConfig(env.Config)
	sa.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:sluice-system:sluice-csi"}
	cs, err := kubernetes.NewForConfig(sa)
	if err != nil {
		t.Fatal(err)
	}
	// RBAC caches update asynchronously: allow the binding a moment.
	labeler := &sluicecsi.KubeLabeler{Client: cs}
	var setErr error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if setErr = labeler.SetLabel(ctx, nodeName, "fluid.io/f-rbac-ds", "true"); setErr == nil {
			break
		}
	}
	if setErr != nil {
		t.Fatalf("the plugin's ServiceAccount cannot label nodes: %v", setErr)
	}
	if err := labeler.RemoveLabel(ctx, nodeName, "fluid.io/f-rbac-ds"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := labeler.FuseGeneration(ctx, "default", "absent"); err != nil {
		t.Fatalf("the plugin's ServiceAccount cannot read FUSE DaemonSets: %v", err)
	}
	ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{GenerateName: "rbac-"}, InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "p"},
		Reason: sluicecsi.ReasonFuseRecovered, Message: "rbac check", Type: corev1.EventTypeNormal}
	if _, err := cs.CoreV1().Events("default").Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		t.Fatalf("the plugin's ServiceAccount cannot record events: %v", err)
	}
	// Authorization is enforced: what the role does not grant is forbidden.
	if err := cs.CoreV1().Nodes().Delete(ctx, nodeName, metav1.DeleteOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("deleting a node as the plugin: %v, want Forbidden", err)
	}
	if _, err := cs.CoreV1().Secrets("default").List(context.Background(), metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("listing secrets as the plugin: %v, want Forbidden", err)
	}
}
