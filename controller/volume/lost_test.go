package volume

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

func TestLost(t *testing.T) {
	now := time.Now()
	node := func(name string, ready corev1.ConditionStatus) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready}}}}
	}
	c := fake.NewClientBuilder().WithObjects(node("up", corev1.ConditionTrue), node("down", corev1.ConditionUnknown), node("off", corev1.ConditionFalse),
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "silent"}}).Build()
	pod := func(nodeName string, deleted *time.Time) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "n"}, Spec: corev1.PodSpec{NodeName: nodeName}}
		if deleted != nil {
			p.DeletionTimestamp = &metav1.Time{Time: *deleted}
		}
		return p
	}
	past, future := now.Add(-time.Second), now.Add(time.Minute)
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		want bool
	}{
		{"running on a lost node, not deleted", pod("down", nil), false},
		{"deleted, grace period not over, lost node", pod("down", &future), false},
		{"deleted, grace over, node Ready", pod("up", &past), false},
		{"deleted, grace over, node Unknown", pod("down", &past), true},
		{"deleted, grace over, node NotReady", pod("off", &past), true},
		{"deleted, grace over, node without a Ready condition", pod("silent", &past), true},
		{"deleted, grace over, node gone", pod("gone", &past), true},
		{"deleted, never scheduled", pod("", &past), true},
	} {
		got, err := Lost(context.Background(), c, tc.pod, now)
		if err != nil || got != tc.want {
			t.Errorf("%s: Lost = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}
