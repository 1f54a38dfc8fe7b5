package chart_test

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/sluice-data/sluice/tests/support/simcluster"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// checkSecureMetrics scrapes an installed component's metrics (url), which
// the chart serves secure by default (audit L11: they name every
// namespace's Datasets and decisions): HTTPS only, and only to a token the
// API server authenticates (401 without one) and authorizes for get on
// /metrics (403 for a ServiceAccount with no binding, 200 once it is bound
// to the chart's metrics-reader ClusterRole), with a body containing want.
// The component runs as its ServiceAccount, so the reviews it makes are
// the chart's RBAC too. who names the scraper's ServiceAccount.
func checkSecureMetrics(ctx context.Context, t *testing.T, c *simcluster.Cluster, ns, who, url, want string) {
	t.Helper()
	cs, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "scraper-" + who, Namespace: ns}}
	if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tok, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa.Name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The certificate is self-signed, as kube-controller-manager's:
	// scrapers skip its verification (Prometheus: insecureSkipVerify).
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // self-signed by design
	scrape := func(token string) (int, string) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return resp.StatusCode, string(body)
	}
	// The metrics server may start listening after /readyz answers (the
	// secure one first makes its certificate): wait until it listens.
	host := strings.SplitN(strings.TrimPrefix(url, "https://"), "/", 2)[0]
	var dialErr error
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, testenv.Stretch(30*time.Second), true, func(context.Context) (bool, error) {
		conn, err := net.DialTimeout("tcp", host, time.Second)
		if dialErr = err; err == nil {
			conn.Close()
		}
		return err == nil, nil
	}); err != nil {
		t.Fatalf("the metrics server at %s does not listen: %v", host, dialErr)
	}
	if resp, err := http.Get(strings.Replace(url, "https://", "http://", 1)); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Errorf("the metrics answered plain HTTP: %s", resp.Status)
		}
	}
	if code, body := scrape(""); code != http.StatusUnauthorized {
		t.Errorf("a scrape without a token: %d %q, want 401", code, body)
	}
	if code, body := scrape(tok.Status.Token); code != http.StatusForbidden {
		t.Errorf("a scrape by a ServiceAccount with no binding: %d %q, want 403", code, body)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "scraper-" + who + "-" + ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "sluice-metrics-reader"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa.Name, Namespace: ns}},
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.RbacV1().ClusterRoleBindings().Delete(context.Background(), binding.Name, metav1.DeleteOptions{})
	})
	var code int
	var body string
	// The authorizer sees the new binding within moments, but
	// controller-runtime's filter caches a denial for 30 s (DenyCacheTTL):
	// the unbound scrape above is answered from that cache until it expires.
	err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, testenv.Stretch(60*time.Second), true, func(context.Context) (bool, error) {
		code, body = scrape(tok.Status.Token)
		return code == http.StatusOK && strings.Contains(body, want), nil
	})
	if err != nil {
		t.Errorf("a scrape by a ServiceAccount bound to sluice-metrics-reader: %d, %d bytes, want 200 with %q", code, len(body), want)
	}
}
