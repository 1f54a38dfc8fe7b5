package webhook_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testobj"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/policy"
)

func alluxioRuntime(name, namespace string) *datav1alpha1.AlluxioRuntime {
	q := resource.MustParse("1Gi")
	return &datav1alpha1.AlluxioRuntime{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: datav1alpha1.AlluxioRuntimeSpec{Replicas: 1, TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{
			{MediumType: datav1alpha1.Memory, Path: "/dev/shm", Quota: &q}}}},
	}
}

// refuse sets spec.data.pin, a field the Alluxio engine refuses.
func refuse(rt *datav1alpha1.AlluxioRuntime) { rt.Spec.Data.Pin = true }

// TestEngineFieldAdmission, through the real API server and the validating
// webhook: a runtime setting a field its engine refuses (from the engine's
// field table) is denied naming the field and the rule engine-field; one
// setting a warned field is admitted with the warning; a runtime without
// either is admitted without warnings, CRD defaults included; a Dataset
// whose runtime exists is judged by that engine's Dataset fields; and a
// ThinRuntimeProfile (cluster-scoped) is judged by its own table.
func TestEngineFieldAdmission(t *testing.T) {
	ns := env.Namespace(t)
	c, warned := warnedClient(t)

	plain := alluxioRuntime("plain", ns)
	if err := c.Create(ctxT(t), plain); err != nil {
		t.Fatalf("a runtime setting only honoured fields: %v", err)
	}
	if warned.String() != "" {
		t.Fatalf("a runtime setting only honoured fields (and the CRD's defaults) is warned: %s", warned)
	}

	refused := alluxioRuntime("refused", ns)
	refuse(refused)
	refused.Spec.APIGateway = datav1alpha1.AlluxioCompTemplateSpec{Enabled: true, NodeSelector: map[string]string{"gateway": "true"}}
	err := c.Create(ctxT(t), refused)
	for _, want := range []string{"engine-field", "spec.data.pin: Sluice's Alluxio engine does not pin", "spec.apiGateway.nodeSelector: the API gateway", "set spec.master.nodeSelector"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("a runtime with refused fields: %v, want denied naming %q", err, want)
		}
	}

	// Fluid's HA-HDFS and API gateway recipes are admitted; initUsers
	// is warned: no init container runs.
	recipes := alluxioRuntime("recipes", ns)
	recipes.Spec.HadoopConfig, recipes.Spec.APIGateway.Enabled, recipes.Spec.Data.Replicas = "hdfs-conf", true, 2
	recipes.Spec.InitUsers.ImageTag = "v0.9.0"
	if err := c.Create(ctxT(t), recipes); err != nil {
		t.Fatalf("a runtime with hadoopConfig, apiGateway and data.replicas: %v", err)
	}
	if want := "spec.initUsers: has no effect: Sluice runs no init-users container"; !strings.Contains(warned.String(), want) {
		t.Fatalf("warnings %q, want %q", warned, want)
	}
	// A Dataset owner is honoured by the Alluxio engine (its FUSE mount's
	// uid and gid), refused by JuiceFS's.
	owned := testobj.Dataset("recipes", ns, testobj.WithMounts("hdfs://mycluster/"))
	owned.Spec.Owner = &datav1alpha1.User{UID: ptr.To[int64](1201), GID: ptr.To[int64](1201)}
	if err := c.Create(ctxT(t), owned); err != nil {
		t.Fatalf("an Alluxio Dataset with an owner: %v", err)
	}

	jindo := &datav1alpha1.JindoRuntime{ObjectMeta: metav1.ObjectMeta{Name: "warned", Namespace: ns},
		Spec: datav1alpha1.JindoRuntimeSpec{Replicas: 1, Worker: datav1alpha1.JindoCompTemplateSpec{Replicas: 3}}}
	if err := c.Create(ctxT(t), jindo); err != nil {
		t.Fatalf("a runtime with a warned field: %v", err)
	}
	if want := "spec.worker.replicas: has no effect: the number of workers is spec.replicas"; !strings.Contains(warned.String(), want) {
		t.Fatalf("warnings %q, want %q", warned, want)
	}

	// A Dataset whose runtime exists is judged by that engine's Dataset
	// fields: JuiceFS mounts one volume.
	if err := c.Create(ctxT(t), testobj.JuiceFSRuntime("jfs", ns, 1, testobj.Level(datav1alpha1.Memory, "/dev/shm", "1Gi"))); err != nil {
		t.Fatal(err)
	}
	// The webhook reads the runtime from its cache, which sees it a moment
	// after the create: probe with dry runs until it judges by JuiceFS's
	// table (a Dataset created before its runtime is admitted, and the
	// engine refuses the field at reconcile), then create for real.
	two := testobj.Dataset("jfs", ns, testobj.WithMounts("juicefs:///a", "juicefs:///b"))
	const twoMounts = "spec.mounts[1]: Sluice's JuiceFS engine mounts one JuiceFS volume"
	waitFor(t, 5*time.Second, "the webhook to judge the Dataset by its JuiceFSRuntime", func() bool {
		err := c.Create(ctxT(t), two.DeepCopy(), client.DryRunAll)
		return err != nil && strings.Contains(err.Error(), twoMounts)
	})
	if err := c.Create(ctxT(t), two); err == nil || !strings.Contains(err.Error(), twoMounts) {
		t.Fatalf("a JuiceFS Dataset of two mounts: %v, want denied naming spec.mounts[1]", err)
	}
	jfsOwned := testobj.Dataset("jfs", ns, testobj.WithMounts("juicefs:///a"))
	jfsOwned.Spec.Owner = owned.Spec.Owner
	if err := c.Create(ctxT(t), jfsOwned); err == nil || !strings.Contains(err.Error(), "spec.owner: Sluice's JuiceFS engine does not set the owner") {
		t.Fatalf("a JuiceFS Dataset with an owner: %v, want denied naming spec.owner", err)
	}
	if err := c.Create(ctxT(t), testobj.Dataset("jfs", ns, testobj.WithMounts("juicefs:///a"))); err != nil {
		t.Fatalf("a JuiceFS Dataset of one mount: %v", err)
	}

	profile := &datav1alpha1.ThinRuntimeProfile{ObjectMeta: metav1.ObjectMeta{Name: "fields-" + ns},
		Spec: datav1alpha1.ThinRuntimeProfileSpec{FileSystemType: "fuse.sample", NodePublishSecretPolicy: "NotMountNodePublishSecret"}}
	if err := c.Create(ctxT(t), profile, client.DryRunAll); err != nil {
		t.Fatalf("a profile with a warned field: %v", err)
	}
	if want := "spec.nodePublishSecretPolicy: has no effect"; !strings.Contains(warned.String(), want) {
		t.Fatalf("warnings %q, want %q", warned, want)
	}
}

// TestStoredRuntimeWithRefusedFieldIsDeleted: a runtime stored before its
// field was refused (here: while a platform bundle relaxed the rule) is
// denied any spec change afterwards, but its labels can still be edited
// (the refused field is then a warning), and it is still deleted:
// removing its finalizer is an UPDATE of finalizers only, admitted
// without policies.
func TestStoredRuntimeWithRefusedFieldIsDeleted(t *testing.T) {
	ns := env.Namespace(t)
	relax := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "relax-fields-" + ns, Namespace: webhook.DefaultNamespace, Labels: map[string]string{policy.BundleLabel: "true"}},
		Data:       map[string]string{"fields.yaml": "validating:\n  fields:\n    denyRefused: false\n"},
	}
	if err := env.Client.Create(ctxT(t), relax); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), relax) })
	waitFor(t, policyLoad, "the relaxed rule loads", func() bool { return annotation(t, relax) == "ok" })

	rt := alluxioRuntime("old", ns)
	refuse(rt)
	rt.Finalizers = []string{"example.com/hold"} // stands in for the controller's
	waitFor(t, 5*time.Second, "a runtime with a refused field is admitted while relaxed", func() bool {
		return env.Client.Create(ctxT(t), rt.DeepCopy(), client.DryRunAll) == nil
	})
	if err := env.Client.Create(ctxT(t), rt); err != nil {
		t.Fatal(err)
	}

	if err := env.Client.Delete(ctxT(t), relax); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "the rule denies again", func() bool {
		probe := alluxioRuntime("probe", ns)
		refuse(probe)
		err := env.Client.Create(ctxT(t), probe, client.DryRunAll)
		return err != nil && strings.Contains(err.Error(), "engine-field")
	})
	if err := env.Client.Get(ctxT(t), client.ObjectKeyFromObject(rt), rt); err != nil {
		t.Fatal(err)
	}
	rt.Spec.Replicas = 2
	if err := env.Client.Update(ctxT(t), rt.DeepCopy()); err == nil || !strings.Contains(err.Error(), "spec.data.pin") {
		t.Fatalf("a spec change of the stored runtime: %v, want denied naming spec.data.pin", err)
	}
	rt.Spec.Replicas = 1
	rt.Labels = map[string]string{"team": "a"}
	if err := env.Client.Update(ctxT(t), rt); err != nil {
		t.Fatalf("a label edit of the stored runtime: %v, want admitted (with a warning)", err)
	}

	if err := env.Client.Delete(ctxT(t), rt); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Get(ctxT(t), client.ObjectKeyFromObject(rt), rt); err != nil {
		t.Fatal(err)
	}
	controllerutil.RemoveFinalizer(rt, "example.com/hold")
	if err := env.Client.Update(ctxT(t), rt); err != nil {
		t.Fatalf("removing the finalizer of a runtime with a refused field: %v", err)
	}
	if err := env.Client.Get(ctxT(t), client.ObjectKeyFromObject(rt), rt); !apierrors.IsNotFound(err) {
		t.Fatalf("the runtime is still there: %v", err)
	}
}
