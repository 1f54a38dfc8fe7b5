package bench_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/certs"
	"github.com/sluice-data/sluice/webhook/mutating"
	"github.com/sluice-data/sluice/webhook/validating"
)

// A replica's start, as a rolling update or a scale-up meets it:
// BenchmarkWebhookStart runs this test binary again per iteration
// (TestWebhookStartProcess), which runs `sluice webhook` (webhook.New, the
// default options, certificate files) against the benchmark's API server
// with its benchDatasets Bound datasets. It reports how long the replica
// took from New to ready (/readyz, polled every 100 ms: ready-s), and,
// over HTTPS once ready, the first admission of each kind the webhook
// serves, one after another, as the API server posts them (first-<kind>-ms):
// a Dataset, a JuiceFSRuntime and a DataLoad (dry runs: nothing claimed)
// to the validating webhook, then a data-affinity Pod of a seeded dataset
// to the mutating one; and the same four again (then-<kind>-ms). The TLS
// handshake is made before the first admission. Each figure is the mean
// over the processes run: b.N, at most SLUICE_BENCH_START_RUNS (default
// 5), since make bench's -benchtime counts admissions elsewhere.
const (
	startKubeconfig = "SLUICE_BENCH_START_KUBECONFIG"
	startCertDir    = "SLUICE_BENCH_START_CERT_DIR"
)

// startKinds are the kinds TestWebhookStartProcess admits, in order.
var startKinds = []string{"Dataset", "JuiceFSRuntime", "DataLoad", "Pod"}

func BenchmarkWebhookStart(b *testing.B) {
	setup(b)
	err := env.Client.Create(benchCtx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: webhook.DefaultNamespace}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		b.Fatal(err)
	}
	kubeconfig, err := env.WriteKubeconfig(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	runs := min(b.N, envCount("SLUICE_BENCH_START_RUNS", 5))
	sums := map[string]float64{}
	b.ResetTimer()
	for range runs {
		cmd := exec.CommandContext(benchCtx, os.Args[0], "-test.run=^TestWebhookStartProcess$", "-test.v")
		cmd.Env = append(os.Environ(), startKubeconfig+"="+kubeconfig, startCertDir+"="+env.Webhook().LocalServingCertDir,
			"GOGC="+strconv.Itoa(webhook.DefaultGCPercent))
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("the webhook process failed: %v\n%s", err, out)
		}
		got := map[string]float64{}
		for k, n := range childFigures(b, out) {
			if name, ok := strings.CutSuffix(k, "-ns"); ok {
				got[name] = float64(n)
			}
		}
		if len(got) != 1+2*len(startKinds) {
			b.Fatalf("the webhook process reported %v:\n%s", got, out)
		}
		for k, v := range got {
			sums[k] += v
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(runs), "processes")
	b.ReportMetric(sums["ready"]/float64(runs)/1e9, "ready-s")
	for _, kind := range startKinds {
		for _, round := range []string{"first", "then"} {
			b.ReportMetric(sums[round+"-"+kind]/float64(runs)/1e6, round+"-"+kind+"-ms")
		}
	}
}

// TestWebhookStartProcess is the child of BenchmarkWebhookStart; it does
// nothing unless run by it. It prints ready-ns and, per kind and round,
// <round>-<kind>-ns.
func TestWebhookStartProcess(t *testing.T) {
	kubeconfig, certDir := os.Getenv(startKubeconfig), os.Getenv(startCertDir)
	if kubeconfig == "" {
		t.Skip("run by BenchmarkWebhookStart only")
	}
	ctrl.SetLogger(logr.Discard())
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	o := webhook.NewOptions()
	addr := testenv.FreeAddr(t)
	host, port, _ := net.SplitHostPort(addr)
	o.Host, o.CertDir, o.Certs.Mode, o.MetricsAddr = host, certDir, certs.Files, "0"
	if o.Port, err = strconv.Atoi(port); err != nil {
		t.Fatal(err)
	}
	o.PolicyNamespaces = []string{webhook.DefaultNamespace}
	start := time.Now()
	if err := webhook.StartLocal(ctx, cfg, o, 4*time.Minute); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("ready-ns %d\n", time.Since(start).Nanoseconds())
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // the benchmark's own server
	base := "https://" + addr
	// The handshake, on the connection the admissions reuse.
	resp, err := client.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	for _, round := range []string{"first", "then"} {
		for _, kind := range startKinds {
			path, body := startReview(t, kind, round)
			t0 := time.Now()
			allowed, err := post(client, base+path, body)
			d := time.Since(t0)
			if err != nil || !allowed {
				t.Fatalf("%s %s: allowed %v, %v", round, kind, allowed, err)
			}
			fmt.Printf("%s-%s-ns %d\n", round, kind, d.Nanoseconds())
		}
	}
}

// startReview is the AdmissionReview of a dry-run CREATE of an object of
// kind, and the webhook path it goes to.
func startReview(t *testing.T, kind, round string) (string, []byte) {
	t.Helper()
	name := "start-" + round
	var obj runtime.Object
	path, group := validating.Path, datav1alpha1.GroupName
	switch kind {
	case "Dataset":
		obj = testobj.Dataset(name, benchNamespace)
	case "JuiceFSRuntime":
		obj = testobj.JuiceFSRuntime(name, benchNamespace, 1, testobj.Level(datav1alpha1.Memory, "/dev/shm", "1Gi"))
	case "DataLoad":
		obj = testobj.DataLoad(name, benchNamespace, datasetName(0))
	case "Pod":
		path, group = mutating.Path, ""
		var pod corev1.Pod
		if err := json.Unmarshal(podRequests(1, map[string]string{datav1alpha1.LabelServerfulInject: "true"})[0].Object.Raw, &pod); err != nil {
			t.Fatal(err)
		}
		pod.GenerateName, pod.Name = "", name
		obj = &pod
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	version, resource := "v1alpha1", strings.ToLower(kind)+"s"
	if group == "" {
		version = "v1"
	}
	gvk := metav1.GroupVersionKind{Group: group, Version: version, Kind: kind}
	gvr := metav1.GroupVersionResource{Group: group, Version: version, Resource: resource}
	body, err := json.Marshal(&admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID: "start", Kind: gvk, Resource: gvr, RequestKind: &gvk, RequestResource: &gvr,
			Name: name, Namespace: benchNamespace, Operation: admissionv1.Create, DryRun: ptr.To(true),
			Object: runtime.RawExtension{Raw: raw},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return path, body
}

// post sends an AdmissionReview and says whether it was allowed.
func post(c *http.Client, url string, body []byte) (bool, error) {
	resp, err := c.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(resp.Body).Decode(&review); err != nil {
		return false, fmt.Errorf("%s: %w", resp.Status, err)
	}
	if review.Response == nil {
		return false, fmt.Errorf("%s: no response", resp.Status)
	}
	if !review.Response.Allowed {
		return false, fmt.Errorf("denied: %+v", review.Response.Result)
	}
	return true, nil
}
