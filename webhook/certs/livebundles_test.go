package certs

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// failingReader fails every Get with err.
type failingReader struct {
	client.Reader
	err error
}

func (f failingReader) Get(context.Context, client.ObjectKey, client.Object, ...client.GetOption) error {
	return f.err
}

// TestLiveBundlesBoundTheirStaleness (audit N16): a failed read stands in
// the caBundles last read while they are at most maxStale old, so a short
// API server outage does not take a replica out of its Service; older,
// or when the API server says a configuration is gone or unreadable, the
// read fails.
func TestLiveBundlesBoundTheirStaleness(t *testing.T) {
	gr := schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations"}
	outage := errors.New("dial tcp 10.0.0.1:443: connect: connection refused")
	for _, tc := range []struct {
		name  string
		err   error         // the failing read's error
		after time.Duration // since the last good read
		want  string        // a substring of the error; "": the last bundles
	}{
		{"an outage just after a read", outage, 5 * time.Second, ""},
		{"an outage at the bound", outage, 30 * time.Second, ""},
		{"an outage past the bound", outage, 31 * time.Second, "connection refused; the caBundles last read are 31s old, more than 30s"},
		{"a configuration deleted", apierrors.NewNotFound(gr, "v"), time.Second, "not found"},
		{"access revoked", apierrors.NewForbidden(gr, "v", errors.New("no")), time.Second, "forbidden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok := fake.NewClientBuilder().WithScheme(configurationScheme(t)).WithObjects(configurationObjects([]byte("ca"))...).Build()
			b := &liveBundles{reader: ok, mutating: "m", validating: "v", timeout: time.Second, maxStale: 30 * time.Second}
			at := time.Now()
			first, err := b.read(context.Background(), at)
			if err != nil || len(first) != 3 {
				t.Fatalf("first read: %v, %v", first, err)
			}
			b.reader = failingReader{err: tc.err}
			got, err := b.read(context.Background(), at.Add(tc.after))
			if tc.want == "" {
				if err != nil || len(got) != 3 {
					t.Fatalf("got %v, %v; want the last bundles", got, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, %v; want an error with %q", got, err, tc.want)
			}
		})
	}
	b := &liveBundles{reader: failingReader{err: outage}, mutating: "m", validating: "v", timeout: time.Second, maxStale: time.Minute}
	if _, err := b.read(context.Background(), time.Now()); !errors.Is(err, outage) {
		t.Fatalf("a failed first read: %v, want the failure", err)
	}
}
