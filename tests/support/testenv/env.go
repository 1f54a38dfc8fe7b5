package testenv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
)

// Env is a running control plane with Sluice's CRDs installed.
type Env struct {
	// Config reaches the API server as an administrator.
	Config *rest.Config
	// Client is a controller-runtime client with Sluice's and core kinds.
	Client client.Client
	// Scheme knows Sluice's and Kubernetes' built-in kinds.
	Scheme *k8sruntime.Scheme

	env *envtest.Environment
	tmp string // the control plane's files (etcd's data, configuration), removed by Stop
}

// RepoRoot is the root of the Sluice repository.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}

// BinDir is where the kube-apiserver and etcd binaries are looked for:
// $KUBEBUILDER_ASSETS when set, else the repository's bin/.
func BinDir() string {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir
	}
	return filepath.Join(RepoRoot(), "bin")
}

// Start starts etcd and kube-apiserver and installs the CRDs from
// config/crd/bases. Call Stop when done.
func Start() (*Env, error) { return StartWith(Options{}) }

// Options add to what Start installs.
type Options struct {
	// WebhookPaths are files or directories of webhook configurations to
	// install, pointed at a local webhook server with generated certificates
	// (see Env.Webhook).
	WebhookPaths []string
	// WebhookClientCert, when set, is the client certificate the API
	// server presents to every admission webhook it calls (given through
	// --admission-control-config-file, see admissionConfig).
	WebhookClientCert *ClientCert
	// ServiceAccountAdmission turns on the API server's ServiceAccount
	// admission plugin, which envtest turns off (there is no controller
	// to create each namespace's default ServiceAccount): every Pod then
	// gets its account's token volume, kube-api-access-<random>, before
	// mutating webhooks see it, as in every cluster. Tests create the
	// ServiceAccounts their Pods use.
	ServiceAccountAdmission bool
}

// StartWith is Start with options.
func StartWith(o Options) (*Env, error) {
	for _, bin := range []string{"etcd", "kube-apiserver"} {
		if _, err := os.Stat(filepath.Join(BinDir(), bin)); err != nil {
			return nil, fmt.Errorf("%s not found in %s: run `make kube-binaries` (or `make test`, which builds them): %w", bin, BinDir(), err)
		}
	}
	scheme := sluicescheme.New()
	e := &envtest.Environment{
		BinaryAssetsDirectory: BinDir(),
		Scheme:                scheme,
		WebhookInstallOptions: envtest.WebhookInstallOptions{Paths: o.WebhookPaths},
	}
	tmp, err := os.MkdirTemp("", "testenv-")
	if err != nil {
		return nil, err
	}
	seeded := seedEtcd(e, tmp)
	if o.WebhookClientCert != nil {
		path, err := admissionConfig(tmp, *o.WebhookClientCert)
		if err != nil {
			_ = os.RemoveAll(tmp)
			return nil, err
		}
		e.ControlPlane.GetAPIServer().Configure().Set("admission-control-config-file", path)
	}
	if o.ServiceAccountAdmission {
		e.ControlPlane.GetAPIServer().Configure().Disable("disable-admission-plugins")
	}
	cfg, err := e.Start()
	if err != nil {
		_ = os.RemoveAll(tmp)
		return nil, fmt.Errorf("starting kube-apiserver and etcd: %w", err)
	}
	if seeded != nil {
		err = envtest.WaitForCRDs(cfg, seeded, envtest.CRDInstallOptions{PollInterval: 50 * time.Millisecond, MaxTime: Stretch(30 * time.Second)})
	}
	var c client.Client
	if err == nil {
		c, err = client.New(cfg, client.Options{Scheme: scheme})
	}
	if err == nil && len(o.WebhookPaths) > 0 {
		err = stretchWebhookTimeouts(context.Background(), c)
	}
	if err != nil {
		_ = e.Stop()
		_ = os.RemoveAll(tmp)
		return nil, err
	}
	return &Env{Config: cfg, Client: c, Scheme: scheme, env: e, tmp: tmp}, nil
}

// Webhook is where the installed webhook configurations point: the host,
// port and certificate directory a test's webhook server must use.
func (e *Env) Webhook() *envtest.WebhookInstallOptions { return &e.env.WebhookInstallOptions }

// Kubeconfig writes an administrator's kubeconfig for this control plane
// to a file in t's temp dir, for tests that run a command with --kubeconfig.
func (e *Env) Kubeconfig(t testing.TB) string {
	t.Helper()
	path, err := e.WriteKubeconfig(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// WriteKubeconfig writes an administrator's kubeconfig into dir and
// returns its path.
func (e *Env) WriteKubeconfig(dir string) (string, error) {
	user, err := e.env.ControlPlane.AddUser(envtest.User{Name: "sluice-test-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return "", err
	}
	data, err := user.KubeConfig()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "kubeconfig")
	return path, os.WriteFile(path, data, 0o600)
}

// Stop stops the control plane.
func (e *Env) Stop() error {
	err := e.env.Stop()
	if e.tmp != "" {
		_ = os.RemoveAll(e.tmp)
	}
	return err
}

// Main runs a test package's tests against a fresh control plane, storing it
// in *env. Use it from TestMain: os.Exit(testenv.Main(m, &env)).
func Main(m *testing.M, env **Env) int { return MainWith(m, env, Options{}) }

// MainWith is Main with options, and setup functions that run once the
// control plane is up (e.g. to start a webhook server). Their context is
// cancelled when the tests end.
func MainWith(m *testing.M, env **Env, o Options, setup ...func(context.Context, *Env) error) int {
	e, err := StartWith(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testenv:", err)
		return 1
	}
	*env = e
	ctx, cancel := context.WithCancel(context.Background())
	defer func() {
		cancel()
		if err := e.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "testenv: stopping:", err)
		}
	}()
	for _, s := range setup {
		if err := s(ctx, e); err != nil {
			fmt.Fprintln(os.Stderr, "testenv: setup:", err)
			return 1
		}
	}
	return m.Run()
}

// Namespace creates a namespace with a generated name for one test and
// deletes it when the test ends.
func (e *Env) Namespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "t-"}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.Client.Create(ctx, ns); err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	t.Cleanup(func() { _ = e.Client.Delete(context.Background(), ns) })
	return ns.Name
}

// Context returns a context that ends with the test or after 30 seconds
// (stretched under the race detector, as the waits inside the test are:
// a test whose waits are stretched must not run out of context first),
// whichever comes first.
func Context(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Stretch(30*time.Second))
	t.Cleanup(cancel)
	return ctx
}
