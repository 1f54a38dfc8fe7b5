package webhookcerts_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/sluice-data/sluice/tests/support/certmanager"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/webhook"
)

var (
	env *testenv.Env
	// kubeconfigPath is an administrator's kubeconfig for the replicas.
	kubeconfigPath string
)

// argsEnv carries a helper process's `sluice webhook` arguments (JSON).
const argsEnv = "SLUICE_TEST_WEBHOOK_ARGS"

func TestMain(m *testing.M) {
	if os.Getenv(argsEnv) != "" { // a replica: no control plane of its own
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "webhookcerts-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := testenv.MainWith(m, &env, testenv.Options{}, installCertManagerCRDs, func(_ context.Context, e *testenv.Env) error {
		kubeconfigPath, err = e.WriteKubeconfig(dir)
		return err
	})
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// installCertManagerCRDs installs cert-manager's CRDs (all of them: its
// controller watches CertificateRequests, ClusterIssuers and the ACME
// kinds too), from the cert-manager module the controller is built from.
func installCertManagerCRDs(_ context.Context, e *testenv.Env) error {
	return certmanager.InstallCRDs(e.Config)
}

// TestHelperWebhookProcess is not a test: started by startReplica in a
// child process, it runs `sluice webhook` with the arguments in
// $SLUICE_TEST_WEBHOOK_ARGS against the cluster of $KUBECONFIG until it
// is sent SIGTERM.
func TestHelperWebhookProcess(t *testing.T) {
	raw := os.Getenv(argsEnv)
	if raw == "" {
		t.Skip("helper process only")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		t.Fatal(err)
	}
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr)))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	cmd := webhook.NewCommand(ctrl.GetConfig)
	cmd.SetArgs(args)
	if err := cmd.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "sluice webhook:", err)
		os.Exit(1)
	}
}
