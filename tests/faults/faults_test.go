package faults_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/controller/volume"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// converge waits up to timeout (stretched under -race) for check to
// report no violations, marking the workers of every runtime ready
// meanwhile (no kubelet runs here); it fails with the last violations.
func converge(t *testing.T, ns string, timeout time.Duration, what string, check func() []string) {
	t.Helper()
	deadline := time.Now().Add(testenv.Stretch(timeout))
	for {
		markWorkersReady(t, ns)
		v := check()
		if len(v) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v; faults %s\nstill wrong:\n  %s", what, testenv.Stretch(timeout), faults.report(), fmt.Sprint(v))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// markWorkersReady reports every worker StatefulSet of ns ready, as a
// kubelet and the StatefulSet controller would.
func markWorkersReady(t *testing.T, ns string) {
	list := &appsv1.StatefulSetList{}
	if err := env.Client.List(context.Background(), list, client.InNamespace(ns)); err != nil {
		t.Logf("listing StatefulSets: %v", err)
		return
	}
	for i := range list.Items {
		sts := &list.Items[i]
		n := ptr.Deref(sts.Spec.Replicas, 1)
		if sts.Status.ReadyReplicas == n && sts.Status.ObservedGeneration == sts.Generation {
			continue
		}
		sts.Status.Replicas, sts.Status.ReadyReplicas, sts.Status.AvailableReplicas, sts.Status.ObservedGeneration = n, n, n, sts.Generation
		_ = env.Client.Status().Update(context.Background(), sts)
	}
}

// live lists what is wrong with a Dataset that should be served: Bound,
// its runtime Ready, its PVC naming its PV, the PV claiming the PVC.
func live(ns, name string) []string {
	ctx := context.Background()
	key := types.NamespacedName{Namespace: ns, Name: name}
	var v []string
	ds := &datav1alpha1.Dataset{}
	if err := env.Client.Get(ctx, key, ds); err != nil || ds.Status.Phase != datav1alpha1.BoundDatasetPhase {
		v = append(v, fmt.Sprintf("Dataset %s not Bound (%s, %v)", key, ds.Status.Phase, err))
	}
	rt := &datav1alpha1.JuiceFSRuntime{}
	if err := env.Client.Get(ctx, key, rt); err != nil {
		v = append(v, fmt.Sprintf("runtime %s: %v", key, err))
	} else if c := meta.FindStatusCondition(rt.Status.Conditions, "Ready"); c == nil || c.Status != metav1.ConditionTrue || c.ObservedGeneration != rt.Generation {
		v = append(v, fmt.Sprintf("runtime %s not Ready for generation %d: %s", key, rt.Generation, conditions(rt.Status.Conditions)))
		sts := &appsv1.StatefulSet{}
		if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name + "-worker"}, sts); err == nil {
			v = append(v, fmt.Sprintf("StatefulSet %s-worker: generation %d, status %+v", name, sts.Generation, sts.Status))
		}
	}
	pvc, pv := &corev1.PersistentVolumeClaim{}, &corev1.PersistentVolume{}
	if err := env.Client.Get(ctx, key, pvc); err != nil || pvc.Spec.VolumeName != volume.Name(ds) {
		v = append(v, fmt.Sprintf("PVC %s: volumeName %q, %v", key, pvc.Spec.VolumeName, err))
	}
	if err := env.Client.Get(ctx, types.NamespacedName{Name: volume.Name(ds)}, pv); err != nil || pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.UID != pvc.UID {
		v = append(v, fmt.Sprintf("PV of %s: claimRef %+v, %v", key, pv.Spec.ClaimRef, err))
	}
	return v
}

// gone lists what a deleted Dataset and runtime left: the objects
// themselves (a stuck finalizer), the PVC, the PV, Helm release records.
func gone(ns, name string) []string {
	ctx := context.Background()
	key := types.NamespacedName{Namespace: ns, Name: name}
	var v []string
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	for what, obj := range map[string]client.Object{
		"Dataset": &datav1alpha1.Dataset{}, "JuiceFSRuntime": &datav1alpha1.JuiceFSRuntime{}, "PVC": &corev1.PersistentVolumeClaim{},
	} {
		err := env.Client.Get(ctx, key, obj)
		// This control plane runs no PVC protection controller; a PVC
		// being deleted has been let go by Sluice.
		if err == nil && !(what == "PVC" && !obj.GetDeletionTimestamp().IsZero()) {
			v = append(v, fmt.Sprintf("%s %s left (finalizers %v)", what, key, obj.GetFinalizers()))
		} else if err != nil && !apierrors.IsNotFound(err) {
			v = append(v, err.Error())
		}
	}
	pv := &corev1.PersistentVolume{}
	if err := env.Client.Get(ctx, types.NamespacedName{Name: volume.Name(ds)}, pv); err == nil && pv.DeletionTimestamp.IsZero() {
		v = append(v, "PV "+pv.Name+" left")
	}
	secrets := &corev1.SecretList{}
	if err := env.Client.List(ctx, secrets, client.InNamespace(ns), client.MatchingLabels{"owner": "helm", "name": name}); err != nil || len(secrets.Items) > 0 {
		v = append(v, fmt.Sprintf("%d Helm release records of %s left (%v)", len(secrets.Items), name, err))
	}
	return v
}

// TestTheControllerConvergesThroughAPIFaults (issue #17, API server
// faults): with a share of the controller's and the webhook's requests
// failing (429, 500, resets before and after the API server acted, slow
// and cut watches; see injector), three rounds each create four Datasets
// with JuiceFS runtimes, bind them, scale one and delete two. Each
// converges; the deleted ones leave nothing behind (no runtime or Dataset
// held by its finalizer, no PVC, PV or Helm release record); the PVCs of
// the ones kept are the ones first bound (no fault made the controller
// replace or delete them). Meanwhile Pods labelled for injection mount the
// Datasets as soon as their PVCs exist: the webhook may refuse them, but
// never lets one be stored unmutated.
func TestTheControllerConvergesThroughAPIFaults(t *testing.T) {
	ns := env.Namespace(t)
	pods := newAdmissions(ns)
	for _, in := range []*injector{faults, webhookFaults} {
		in.start()
		defer in.on.Store(false)
	}
	for r := range 3 {
		round(t, ns, fmt.Sprintf("r%d-", r), pods)
	}
	faults.on.Store(false)
	webhookFaults.on.Store(false)
	pods.check(t)
	var missing []string
	for _, k := range faultKinds {
		if faults.counted(k) == 0 {
			missing = append(missing, "controller: "+k)
		}
	}
	// The webhook's caches must have lagged: watches cut and started late.
	// Its few other requests fail when they happen to (logged below).
	if webhookFaults.counted(cutWatch) == 0 || webhookFaults.counted(slowWatch) == 0 {
		missing = append(missing, "webhook: a cut or slow watch")
	}
	if len(missing) > 0 {
		t.Fatalf("faults never injected: %v (controller %s; webhook %s): the test proved less than it says", missing, faults.report(), webhookFaults.report())
	}
	t.Logf("injected into the controller's requests: %s", faults.report())
	t.Logf("injected into the webhook's requests: %s", webhookFaults.report())
}

// round creates, binds, scales and deletes four Datasets named prefix+...,
// with pods probing the webhook while they bind and once they are bound.
func round(t *testing.T, ns, prefix string, pods *admissions) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*testenv.Stretch(3*time.Minute))
	defer cancel()
	names := []string{prefix + "alpha", prefix + "bravo", prefix + "charlie", prefix + "delta"}

	for _, n := range names {
		persist(t, "create Dataset "+n, func() error {
			return ignoreExists(env.Client.Create(ctx, testobj.Dataset(n, ns, testobj.WithMounts("juicefs:///"+n))))
		})
		persist(t, "create JuiceFSRuntime "+n, func() error {
			return ignoreExists(env.Client.Create(ctx, testobj.JuiceFSRuntime(n, ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi"))))
		})
	}
	stop, probed := make(chan struct{}), make(chan struct{})
	go func() { defer close(probed); pods.probe(ctx, names, stop) }()
	converge(t, ns, 90*time.Second, "every Dataset is bound", func() []string {
		var v []string
		for _, n := range names {
			v = append(v, live(ns, n)...)
		}
		return v
	})
	close(stop)
	<-probed
	for range 5 {
		for _, n := range names {
			pods.try(ctx, n)
		}
	}
	uids := map[string]types.UID{}
	for _, n := range names[:2] {
		pvc := &corev1.PersistentVolumeClaim{}
		if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: n}, pvc); err != nil {
			t.Fatal(err)
		}
		uids[n] = pvc.UID
	}

	// Scale one, delete two.
	persist(t, "scale "+names[0], func() error {
		rt := &datav1alpha1.JuiceFSRuntime{}
		if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: names[0]}, rt); err != nil {
			return err
		}
		rt.Spec.Replicas = 2
		return env.Client.Update(ctx, rt)
	})
	for _, n := range names[2:] {
		for _, obj := range []client.Object{&datav1alpha1.JuiceFSRuntime{}, &datav1alpha1.Dataset{}} {
			obj.SetNamespace(ns)
			obj.SetName(n)
			persist(t, "delete "+n, func() error { return client.IgnoreNotFound(env.Client.Delete(ctx, obj)) })
		}
	}
	converge(t, ns, 90*time.Second, "the scaled runtime serves and the deleted ones leave nothing", func() []string {
		var v []string
		for _, n := range names[:2] {
			v = append(v, live(ns, n)...)
		}
		sts := &appsv1.StatefulSet{}
		if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: names[0] + "-worker"}, sts); err != nil || ptr.Deref(sts.Spec.Replicas, 0) != 2 {
			v = append(v, fmt.Sprintf("%s-worker replicas %d, %v; %s", names[0], ptr.Deref(sts.Spec.Replicas, -1), err, releaseState(ctx, ns, names[0])))
		}
		for _, n := range names[2:] {
			v = append(v, gone(ns, n)...)
		}
		return v
	})
	for n, uid := range uids {
		pvc := &corev1.PersistentVolumeClaim{}
		if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: n}, pvc); err != nil || pvc.UID != uid {
			t.Errorf("the PVC of %s was replaced or deleted under faults: UID %s (was %s), %v", n, pvc.UID, uid, err)
		}
	}
}

// persist retries a write of the test's own that the webhook refused or
// could not judge while its requests fail (the validating webhook fails
// closed), as a client would, for up to 30 s (stretched).
func persist(t *testing.T, what string, write func() error) {
	t.Helper()
	var last error
	deadline := time.Now().Add(testenv.Stretch(30 * time.Second))
	for time.Now().Before(deadline) {
		if last = write(); last == nil {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s: %v", what, last)
}

// ignoreExists is nil for an AlreadyExists error (an earlier attempt's
// write took effect), else err.
func ignoreExists(err error) error {
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// conditions shows the conditions that are not True, one "Type=Status
// (Reason: Message)" each.
func conditions(cs []metav1.Condition) string {
	var out []string
	for _, c := range cs {
		if c.Status != metav1.ConditionTrue {
			out = append(out, fmt.Sprintf("%s=%s (%s: %s, since %s)", c.Type, c.Status, c.Reason, c.Message, c.LastTransitionTime.Format(time.TimeOnly)))
		}
	}
	return strings.Join(out, "; ")
}

// releaseState says where a runtime's release and its conditions that are
// not True are, for a failure's message.
func releaseState(ctx context.Context, ns, name string) string {
	rt := &datav1alpha1.JuiceFSRuntime{}
	ready := "runtime unread"
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, rt); err == nil {
		ready = "runtime conditions not True: " + conditions(rt.Status.Conditions)
	}
	secrets := &corev1.SecretList{}
	if err := env.Client.List(ctx, secrets, client.InNamespace(ns), client.MatchingLabels{"owner": "helm", "name": name}); err != nil {
		return ready + "; release records unread: " + err.Error()
	}
	var revs []string
	for _, s := range secrets.Items {
		revs = append(revs, fmt.Sprintf("v%s %s (writer %s)", s.Labels["version"], s.Labels["status"], s.Labels[helm.WriterLabel]))
	}
	return ready + "; release records " + strings.Join(revs, ", ")
}
