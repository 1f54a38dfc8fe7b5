package webhookcerts_test

import (
	"bytes"
	"context"
	"io/fs"
	"maps"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	"github.com/sluice-data/sluice/config"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// configurations are a test's two webhook configurations.
type configurations struct {
	mutating, validating string
}

// configurationOptions say where the webhooks of a test's configurations
// point and how they fail.
type configurationOptions struct {
	mutatingURL, validatingURL string // https://localhost:port
	failAll                    bool   // failurePolicy Fail on every webhook
	timeoutSeconds             int32  // 0: as in config/
}

// newConfigurations returns the names of the test's copies of
// config/webhook's configurations, "<prefix>-mutating-webhook" and
// "<prefix>-validating-webhook". Create them with create.
func newConfigurations(prefix string) configurations {
	return configurations{mutating: prefix + "-mutating-webhook", validating: prefix + "-validating-webhook"}
}

// createMutating and createValidating create the copies, pointed at a
// URL instead of the Service, without a caBundle and without the
// cert-manager annotation; they are deleted when the test ends, before its
// replicas stop (cleanups run in reverse).
func (c configurations) createMutating(t *testing.T, o configurationOptions) {
	t.Helper()
	m := decodeConfig[*admissionregistrationv1.MutatingWebhookConfiguration](t, "webhook/mutating.yaml")
	m.ObjectMeta = metav1.ObjectMeta{Name: c.mutating}
	for i := range m.Webhooks {
		w := &m.Webhooks[i]
		w.ClientConfig = urlConfig(o.mutatingURL, w.ClientConfig)
		if o.failAll {
			w.FailurePolicy = ptr.To(admissionregistrationv1.Fail)
		}
		w.TimeoutSeconds = timeout(o, w.TimeoutSeconds)
	}
	create(t, m)
}

func (c configurations) createValidating(t *testing.T, o configurationOptions) {
	t.Helper()
	v := decodeConfig[*admissionregistrationv1.ValidatingWebhookConfiguration](t, "webhook/validating.yaml")
	v.ObjectMeta = metav1.ObjectMeta{Name: c.validating}
	for i := range v.Webhooks {
		w := &v.Webhooks[i]
		w.ClientConfig = urlConfig(o.validatingURL, w.ClientConfig)
		if o.failAll {
			w.FailurePolicy = ptr.To(admissionregistrationv1.Fail)
		}
		w.TimeoutSeconds = timeout(o, w.TimeoutSeconds)
	}
	create(t, v)
}

// timeout is a webhook's timeoutSeconds: the test's, or config/'s
// stretched for a -race build (testenv.Stretch: the replicas are the race
// build of the test binary, beside other packages' tests; before the
// webhook computed trust's tables at start, internal/lazy, a replica's
// first runtime admission took over a second of that build on an idle
// machine and more than config/'s 3 s on a loaded one), at most the API's
// 30. Admission latency is measured by benchmarks, not here.
func timeout(o configurationOptions, config *int32) *int32 {
	if o.timeoutSeconds > 0 {
		return ptr.To(o.timeoutSeconds)
	}
	if config == nil {
		return nil
	}
	return ptr.To(int32(min(testenv.Stretch(time.Duration(*config)*time.Second), 30*time.Second) / time.Second))
}

// caBundles returns the caBundle of every webhook of both configurations
// (an error while one is missing).
func (c configurations) caBundles(ctx context.Context) (map[string][]byte, error) {
	out, err := c.mutatingBundles(ctx)
	if err != nil {
		return nil, err
	}
	v, err := c.validatingBundles(ctx)
	if err != nil {
		return nil, err
	}
	maps.Copy(out, v)
	return out, nil
}

func (c configurations) mutatingBundles(ctx context.Context) (map[string][]byte, error) {
	m := &admissionregistrationv1.MutatingWebhookConfiguration{}
	if err := env.Client.Get(ctx, client.ObjectKey{Name: c.mutating}, m); err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, w := range m.Webhooks {
		out[c.mutating+"/"+w.Name] = w.ClientConfig.CABundle
	}
	return out, nil
}

func (c configurations) validatingBundles(ctx context.Context) (map[string][]byte, error) {
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if err := env.Client.Get(ctx, client.ObjectKey{Name: c.validating}, v); err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, w := range v.Webhooks {
		out[c.validating+"/"+w.Name] = w.ClientConfig.CABundle
	}
	return out, nil
}

// decodeConfig decodes the one object of an embedded config/ file.
func decodeConfig[T client.Object](t *testing.T, name string) T {
	t.Helper()
	data, err := fs.ReadFile(config.FS, name)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := sluicescheme.DecodeObjects[T](bytes.NewReader(data), env.Scheme)
	if err != nil || len(objs) != 1 {
		t.Fatalf("config/%s: %d objects, %v", name, len(objs), err)
	}
	return objs[0]
}

func urlConfig(url string, in admissionregistrationv1.WebhookClientConfig) admissionregistrationv1.WebhookClientConfig {
	return admissionregistrationv1.WebhookClientConfig{URL: ptr.To(url + *in.Service.Path)}
}

func create(t *testing.T, obj client.Object) {
	t.Helper()
	if err := env.Client.Create(context.Background(), obj); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), obj) })
}
