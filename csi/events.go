package csi

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"
)

// KubeEvents records events on Pods through the API server.
type KubeEvents struct {
	Client kubernetes.Interface
	// Node is reported as the event's source host.
	Node string
}

// Event implements EventSink.
func (k *KubeEvents) Event(namespace, pod, eventType, reason, message string) {
	now := metav1.NewTime(time.Now())
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{GenerateName: pod + ".", Namespace: namespace},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: namespace, Name: pod, APIVersion: "v1"},
		Reason:         reason, Message: message, Type: eventType,
		Source:         corev1.EventSource{Component: "sluice-csi", Host: k.Node},
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := k.Client.CoreV1().Events(namespace).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		ctrl.Log.WithName("csi").Error(fmt.Errorf("recording event %s on pod %s/%s: %w", reason, namespace, pod, err), "")
	}
}
