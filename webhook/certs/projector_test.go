package certs

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// The projector writes a matching pair only, and only when it changed.
func TestProjector(t *testing.T) {
	now := time.Now()
	ca := newCA(t, now.Add(-time.Hour), 24*time.Hour)
	crt1, key1 := newServing(t, ca, now.Add(-time.Hour), 24*time.Hour)
	crt2, key2 := newServing(t, ca, now.Add(-time.Hour), 24*time.Hour)
	key := types.NamespacedName{Namespace: "sluice-system", Name: "sluice-webhook-cert"}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
	c := fake.NewClientBuilder().WithObjects(secret).Build()
	dir := filepath.Join(t.TempDir(), "certs")
	p := &projector{reader: c, secret: key, dir: dir}
	ctx := context.Background()

	for _, step := range []struct {
		name     string
		crt, key []byte
		want     []byte // tls.crt in the directory afterwards; nil: none
	}{
		{"empty Secret", nil, nil, nil},
		{"first pair", crt1, key1, crt1},
		{"a certificate without its key", crt2, key1, crt1},
		{"the renewed pair", crt2, key2, crt2},
	} {
		secret.Data = map[string][]byte{CertFile: step.crt, KeyFile: step.key}
		if err := c.Update(ctx, secret); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Reconcile(ctx, ctrl.Request{NamespacedName: key}); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		got, err := os.ReadFile(filepath.Join(dir, CertFile))
		if step.want == nil {
			if !os.IsNotExist(err) {
				t.Errorf("%s: tls.crt written (%v)", step.name, err)
			}
			continue
		}
		if string(got) != string(step.want) {
			t.Errorf("%s: tls.crt holds another certificate (%v)", step.name, err)
		}
	}
	// Unchanged: not written again (the directory of files stays).
	before, _ := os.Readlink(filepath.Join(dir, dataLink))
	if _, err := p.Reconcile(ctx, ctrl.Request{NamespacedName: key}); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Readlink(filepath.Join(dir, dataLink)); after != before {
		t.Errorf("an unchanged pair was written again (%s -> %s)", before, after)
	}
}
