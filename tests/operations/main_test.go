package operations_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/fake"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

var env *testenv.Env

// policyNamespace is the controller's (and a webhook's) policy namespace:
// the operation conflict table is read from its policy ConfigMaps.
const policyNamespace = "sluice-policies"

// grace is the claim grace period the controller runs with.
const grace = 2 * time.Second

// The engines the controller runs, by the runtime type a Dataset names:
// fake runs every operation (serving AlluxioRuntimes), noload every one
// but DataLoad (JindoRuntimes), and ungated makes Cron operations' CronJobs
// start their runs unsuspended (JuiceFSRuntimes).
const (
	engineFake    = "fake"
	engineNoLoad  = "noload"
	engineUngated = "ungated"
)

var registry = []engines.Engine{
	fake.Engine{Name: engineFake},
	fake.Engine{Name: engineNoLoad, Unsupported: []datav1alpha1.OperationKind{datav1alpha1.DataLoadKind},
		Object: func() datav1alpha1.RuntimeObject { return &datav1alpha1.JindoRuntime{} }},
	fake.Engine{Name: engineUngated, UngatedCron: true, Object: func() datav1alpha1.RuntimeObject { return &datav1alpha1.JuiceFSRuntime{} }},
}

func TestMain(m *testing.M) {
	ctrl.SetLogger(logr.Discard())
	os.Exit(testenv.MainWith(m, &env, testenv.Options{}, func(ctx context.Context, e *testenv.Env) error {
		o := controller.NewOptions()
		o.MetricsAddr, o.ProbeAddr, o.LeaderElect, o.ClaimGracePeriod = "0", "0", false, grace
		o.Engines = registry
		if err := e.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: policyNamespace}}); err != nil {
			return err
		}
		o.PolicyNamespaces = []string{policyNamespace}
		return controller.StartLocal(ctx, e.Config, o, testenv.Stopped("controller"))
	}))
}
