package webhook_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testobj"
	"github.com/sluice-data/sluice/webhook/validating"
)

// TestWithoutAClientCAAForgedReviewClaims (reliability audit M5): without
// --client-ca-file (this package's webhook) any caller that reaches the
// webhook is believed: a DataLoad CREATE review for another namespace's
// Dataset, posted by a caller with no client certificate, claims that
// Dataset. tests/webhookauth runs the same review against a webhook with
// --client-ca-file, where it fails the TLS handshake.
func TestWithoutAClientCAAForgedReviewClaims(t *testing.T) {
	victim := env.Namespace(t)
	seedDataset(t, victim, "imagenet", datav1alpha1.BoundDatasetPhase)
	waitForCache()
	review, err := testobj.CreateReview("DataLoad", "dataloads", testobj.DataLoad("forged", victim, "imagenet"), victim, "forged", "system:serviceaccount:attacker:default")
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	wi := env.Webhook()
	roots.AppendCertsFromPEM(wi.LocalServingCAData)
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	defer c.CloseIdleConnections()
	resp, err := c.Post("https://"+net.JoinHostPort(wi.LocalServingHost, strconv.Itoa(wi.LocalServingPort))+validating.Path, "application/json", bytes.NewReader(review))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := dataset(t, victim, "imagenet").Status.OperationRef["DataLoad"]; got != "forged" {
		t.Fatalf("status.operationRef[DataLoad] = %q, want the forged holder: this webhook authenticates no one", got)
	}
}
