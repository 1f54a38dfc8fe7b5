package optional_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/sluice-data/sluice/internal/optional"
)

func TestGet(t *testing.T) {
	ctx := context.Background()
	c := fake.NewClientBuilder().WithObjects(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "there"}}).Build()
	if found, err := optional.Get(ctx, c, types.NamespacedName{Namespace: "a", Name: "there"}, &corev1.ConfigMap{}); !found || err != nil {
		t.Errorf("an existing object: %v, %v", found, err)
	}
	if found, err := optional.Get(ctx, c, types.NamespacedName{Namespace: "a", Name: "gone"}, &corev1.ConfigMap{}); found || err != nil {
		t.Errorf("a missing object: %v, %v", found, err)
	}
	boom := errors.New("boom")
	failing := interceptor.NewClient(c, interceptor.Funcs{Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
		return boom
	}})
	found, err := optional.Get(ctx, failing, types.NamespacedName{Namespace: "a", Name: "there"}, &corev1.ConfigMap{})
	if found || !errors.Is(err, boom) || !strings.Contains(err.Error(), "a/there") {
		t.Errorf("a failing read: %v, %v; want the error, naming the object", found, err)
	}
}
