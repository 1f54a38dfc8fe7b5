package certs

import (
	"context"
	"testing"
	"time"
)

// The Loader waits for a certificate instead of failing, then reloads it
// when the directory is rewritten.
func TestLoaderWaitsForTheCertificateAndReloadsIt(t *testing.T) {
	dir := t.TempDir()
	l := NewLoader(dir)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Loader.Start: %v", err)
		}
	})

	time.Sleep(3 * l.poll)
	if _, err := l.GetCertificate(nil); err == nil || l.Current() != nil {
		t.Fatal("a certificate is presented before one was written")
	}
	now := time.Now()
	ca := newCA(t, now.Add(-time.Hour), 24*time.Hour)
	for i := range 2 {
		crt, key := newServing(t, ca, now.Add(-time.Hour), 24*time.Hour)
		want := leafOfPEM(t, crt, key)
		if err := WriteDir(dir, map[string][]byte{CertFile: crt, KeyFile: key}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the written certificate to be presented", func() bool {
			c, err := l.GetCertificate(nil)
			return err == nil && c != nil && c.Leaf != nil && c.Leaf.Equal(want)
		})
		t.Logf("certificate %d presented", i+1)
	}
}
