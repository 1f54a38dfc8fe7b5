package controller_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/controller"
	"github.com/sluice-data/sluice/controller/hostports"
	"github.com/sluice-data/sluice/engines/registry"
	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

var env *testenv.Env

// controllerMetrics is the URL of the controller's metrics endpoint.
var controllerMetrics string

// grace is the claim grace period the controller runs with in these tests.
const grace = 2 * time.Second

// metadataImage is the image of the controller's metadata Jobs in these
// tests (no kubelet pulls it).
const metadataImage = "registry.test/sluice:test"

// gcPeriod is the controller's orphan sweep period in these tests.
const gcPeriod = time.Second

// fuseRecords is the controller's namespace for its FUSE records here.
const fuseRecords = "sluice-records"

// hostPorts is the controller's host port allocator, whose holdings the
// tests read.
var hostPorts *hostports.Allocator

func TestMain(m *testing.M) {
	ctrl.SetLogger(logr.Discard())
	os.Exit(testenv.MainWith(m, &env, testenv.Options{}, func(ctx context.Context, e *testenv.Env) error {
		metricsAddr, err := testenv.PickFreeAddr()
		if err != nil {
			return err
		}
		controllerMetrics = "http://" + metricsAddr + "/metrics"
		o := controller.NewOptions()
		o.MetricsAddr, o.ProbeAddr, o.LeaderElect, o.ClaimGracePeriod, o.CacheRefresh = metricsAddr, "0", false, grace, time.Second
		o.SluiceImage, o.GCPeriod = metadataImage, gcPeriod
		o.Engines = registry.Default(registry.Options{SluiceImage: o.SluiceImage})
		if err := e.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fuseRecords}}); err != nil {
			return err
		}
		o.FuseRecords = fuseRecords
		hostPorts = hostports.New(o.HostPortRange, hostports.Records(e.Client))
		o.HostPorts = hostPorts
		// The controller judges runtimes with the platform's guards (issue
		// 30 item 6). These tests mount a CA bundle or an extra volume into
		// the FUSE container, as a platform that allows it would.
		if err := platformPolicy(ctx, e.Client); err != nil {
			return err
		}
		o.PolicyNamespaces = []string{policyNamespace}
		cfg := rest.CopyConfig(e.Config)
		cfg.Wrap(controllerRequests.wrap)
		return controller.StartLocal(ctx, cfg, o, testenv.Stopped("controller"))
	}))
}

// policyNamespace holds the platform's policy ConfigMaps in these tests.
const policyNamespace = "sluice-policies"

// platformPolicy writes the policy data every test's namespace shares.
func platformPolicy(ctx context.Context, c client.Client) error {
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: policyNamespace}}); err != nil {
		return err
	}
	return c.Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: policyNamespace, Name: "platform", Labels: map[string]string{policies.BundleLabel: "true"}},
		Data:       map[string]string{"guards.yaml": "validating:\n  guards:\n    \"*\":\n      privilegedFields: [spec.fuse.volumeMounts]\n"},
	})
}
