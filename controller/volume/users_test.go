package volume

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// listCounter counts Lists.
type listCounter struct {
	client.Reader
	lists int
}

func (l *listCounter) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	l.lists++
	return l.Reader.List(ctx, list, opts...)
}

// Users asks the API server when the cache shows no Pod using the Dataset
// (one created a moment ago), and only then.
func TestUsersConfirmsNoneWithTheAPIServer(t *testing.T) {
	ctx := context.Background()
	reader := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team-a"}, Spec: corev1.PodSpec{
			Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "imagenet"}}}}}}
	}
	empty := &listCounter{Reader: fake.NewClientBuilder().Build()}
	live := &listCounter{Reader: fake.NewClientBuilder().WithObjects(reader("new-reader")).Build()}
	users, err := Users(ctx, empty, live, "team-a", "imagenet")
	if err != nil || !slices.Equal(users, []string{"new-reader"}) || live.lists != 1 {
		t.Fatalf("a Pod the cache does not show yet: users %v, %v, %d live lists", users, err, live.lists)
	}
	cached := &listCounter{Reader: fake.NewClientBuilder().WithObjects(reader("old-reader")).Build()}
	live.lists = 0
	if users, err := Users(ctx, cached, live, "team-a", "imagenet"); err != nil || !slices.Equal(users, []string{"old-reader"}) || live.lists != 0 {
		t.Fatalf("a Pod in the cache: users %v, %v, %d live lists (want none)", users, err, live.lists)
	}
	if users, err := Users(ctx, empty, nil, "team-a", "imagenet"); err != nil || len(users) != 0 {
		t.Fatalf("no live reader: users %v, %v", users, err)
	}
}
