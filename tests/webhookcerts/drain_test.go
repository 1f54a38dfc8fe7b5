package webhookcerts_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/webhook/mutating"
)

// drainDelay is TestServesWhileDrainingAfterSIGTERM's --shutdown-delay,
// the chart's default.
const drainDelay = 5 * time.Second

// TestServesWhileDrainingAfterSIGTERM sends a ready replica SIGTERM and
// requires that, for its --shutdown-delay, /readyz fails (the probe server
// still answering: its shutdown check failed) while the webhook still admits: an
// AdmissionReview posted to it is answered with the mutation and
// "Connection: close" (before SIGTERM the connection is kept alive), and a
// Pod created through the API server, whose configuration still points at
// the replica as a lagging Service would, is stored mutated. Then the
// replica exits, no sooner than the delay.
func TestServesWhileDrainingAfterSIGTERM(t *testing.T) {
	ns := env.Namespace(t)
	secret := createEmptySecret(t, ns, "sluice-webhook-cert")
	cfgs := newConfigurations(ns)
	r := startReplica(t, "a", ns, replicaOptions{env: selfManaged(secret.Name, cfgs),
		args: []string{"--cert-extra-dns-names=localhost", fmt.Sprintf("--shutdown-delay=%v", drainDelay)}})
	url := fmt.Sprintf("https://localhost:%d", port(r.addr))
	cfgs.createMutating(t, configurationOptions{mutatingURL: url, failAll: true})
	cfgs.createValidating(t, configurationOptions{validatingURL: url, failAll: true})
	waitReady(t, r)
	podNS := env.Namespace(t)
	seedDataset(t, podNS, "imagenet")
	waitMutates(t, labelledPod(podNS, "before", "imagenet"), r)
	if closed := review(t, r, labelledPod(podNS, "before", "imagenet")); closed {
		t.Fatal("before SIGTERM the replica answered with Connection: close")
	}

	at := r.terminate(t)
	waitFor(t, time.Second, "/readyz failing", func() error {
		if err := r.readyz(); err == nil || !strings.Contains(err.Error(), "[-]shutdown failed") {
			return fmt.Errorf("/readyz says %v, want its shutdown check failed", err)
		}
		return nil
	})
	if err := r.get("/readyz/shutdown"); err == nil || !strings.Contains(err.Error(), "shutting down") {
		t.Errorf("/readyz/shutdown says %v", err)
	}
	if closed := review(t, r, labelledPod(podNS, "draining", "imagenet")); !closed {
		t.Error("while draining the replica answered without Connection: close")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := createMutated(ctx, env.Client, labelledPod(podNS, "draining", "imagenet"), "imagenet"); err != nil {
		t.Errorf("create while draining: %v", err)
	}
	if d := time.Since(at); d >= drainDelay {
		t.Fatalf("the checks while draining took %v, longer than the delay: they proved nothing", d)
	}
	if err := r.waitExited(testenv.Stretch(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if served := time.Since(at); served < drainDelay {
		t.Errorf("exited %v after SIGTERM, before --shutdown-delay=%v", served, drainDelay)
	}
}

// review posts an AdmissionReview of pod's creation to the replica's
// mutating webhook, requires a mutation, and says whether the replica
// asked to close the connection.
func review(t *testing.T, r *replica, pod *corev1.Pod) (closed bool) {
	t.Helper()
	resp, closed, err := postReview(r, pod)
	if err != nil {
		t.Fatal(err)
	}
	if resp == nil || !resp.Allowed || len(resp.Patch) == 0 {
		t.Fatalf("replica %s did not mutate the Pod: %+v", r.name, resp)
	}
	return closed
}

// postReview posts an AdmissionReview of pod's creation to the replica's
// mutating webhook and returns its answer, and whether the replica asked
// to close the connection. The review stores nothing: a probe may repeat
// it.
func postReview(r *replica, pod *corev1.Pod) (*admissionv1.AdmissionResponse, bool, error) {
	raw, err := json.Marshal(pod)
	if err != nil {
		return nil, false, err
	}
	in := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID: types.UID("review-" + r.name), Operation: admissionv1.Create, Namespace: pod.Namespace, Name: pod.Name,
			Kind:     metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
			Resource: metav1.GroupVersionResource{Version: "v1", Resource: "pods"},
			Object:   runtime.RawExtension{Raw: raw},
		},
	}
	body, err := json.Marshal(in)
	if err != nil {
		return nil, false, err
	}
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // the webhook's answer is what is tested, not its certificate
	}}
	defer c.CloseIdleConnections()
	resp, err := c.Post("https://"+r.addr+mutating.Path, "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, false, fmt.Errorf("posting a review to replica %s: %w", r.name, err)
	}
	defer resp.Body.Close()
	out := admissionv1.AdmissionReview{}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, resp.Close, fmt.Errorf("replica %s answered %s: %w", r.name, resp.Status, err)
	}
	return out.Response, resp.Close, nil
}

// waitMutates waits until each replica mutates pod, a labelled Pod of a
// Dataset seeded a moment ago: a replica reads the Dataset's objects from
// its cache, which sees them a moment after they are stored, and until it
// shows the new PVC it refuses the Pod asking for a retry
// (webhook/snapshot cacheLag). Each replica is asked directly, with a
// review that stores nothing, since the Pods that follow may reach any of
// them.
func waitMutates(t *testing.T, pod *corev1.Pod, rs ...*replica) {
	t.Helper()
	for _, r := range rs {
		waitFor(t, testenv.Stretch(10*time.Second), "replica "+r.name+" to mutate a Pod of the Dataset seeded", func() error {
			if err := r.exited(); err != nil {
				return err
			}
			resp, _, err := postReview(r, pod)
			switch {
			case err != nil:
				return err
			case resp == nil:
				return errors.New("an answer without a response")
			case !resp.Allowed || len(resp.Patch) == 0:
				return fmt.Errorf("allowed %v, %d bytes of patch: %+v", resp.Allowed, len(resp.Patch), resp.Result)
			}
			return nil
		})
	}
}
