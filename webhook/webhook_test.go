package webhook

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSupportsNativeSidecars(t *testing.T) {
	for _, tt := range []struct {
		major, minor string
		want         bool
	}{{"1", "28", false}, {"1", "29", true}, {"1", "37+", true}, {"2", "0", true}, {"1", "x", false}} {
		if got := supportsNativeSidecars(tt.major, tt.minor); got != tt.want {
			t.Errorf("%s.%s: %v, want %v", tt.major, tt.minor, got, tt.want)
		}
	}
}

func TestLimitBody(t *testing.T) {
	h := limitBody(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
			return
		}
		w.WriteHeader(http.StatusOK)
	}), 10)
	for _, tt := range []struct {
		body string
		want int
	}{{"short", http.StatusOK}, {strings.Repeat("x", 11), http.StatusRequestEntityTooLarge}} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mutate-pods", strings.NewReader(tt.body)))
		if rec.Code != tt.want {
			t.Errorf("body of %d bytes: status %d, want %d", len(tt.body), rec.Code, tt.want)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mutate-pods", strings.NewReader(strings.Repeat("x", 100))))
	if !strings.Contains(rec.Body.String(), "larger than the webhook's limit of 10 bytes") {
		t.Errorf("message = %q", rec.Body.String())
	}
}

func TestCulpritsOf(t *testing.T) {
	cm := func(name string, keys ...string) corev1.ConfigMap {
		c := corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "sluice-system", Name: name}, Data: map[string]string{}}
		for _, k := range keys {
			c.Data[k] = ""
		}
		return c
	}
	cms := []corev1.ConfigMap{cm("good", "a.rego"), cm("bad", "broken.rego"), cm("override", "mutating__affinity.rego")}
	got := culpritsOf(errors.New("configmaps/sluice-system/bad/broken.rego:3: rego_type_error"), cms)
	if len(got) != 1 || got[0].Name != "bad" {
		t.Errorf("named module: %v", names(got))
	}
	got = culpritsOf(errors.New("mutating/affinity.rego:3: rego_parse_error"), cms)
	if len(got) != 1 || got[0].Name != "override" {
		t.Errorf("overridden default module: %v", names(got))
	}
	if got = culpritsOf(errors.New("something else"), cms); len(got) != 3 {
		t.Errorf("unattributed error must blame all: %v", names(got))
	}
}

func TestOptionsValidate(t *testing.T) {
	o := NewOptions()
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	o.NativeSidecars = "maybe"
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "--native-sidecars") {
		t.Errorf("want a --native-sidecars error, got %v", err)
	}
}
