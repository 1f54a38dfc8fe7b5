package demo

import (
	"context"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// deletion deletes the JuiceFSRuntime and the Dataset, as `kubectl delete`
// of the sample would, while the Pods of steps 2 and 3 still mount the
// Dataset: the runtime's deletion waits (its Ready condition says InUse,
// naming them) and keeps the release, PV and PVC, and so does the
// Dataset's (Deleting=True, InUse); once the Pods are deleted, the
// controller removes the release, the PV and PVC and the cache labels,
// then the Dataset.
func (s *story) deletion(ctx context.Context) error {
	ds := &datav1alpha1.Dataset{}
	if err := s.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: dataset}, ds); err != nil {
		return err
	}
	cacheKey := datav1alpha1.KeyOf(ds).CacheLabelKey()
	rt := &datav1alpha1.JuiceFSRuntime{}
	if err := s.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: dataset}, rt); err != nil {
		return err
	}
	for _, o := range []client.Object{rt, ds} {
		if err := s.Client.Delete(ctx, o); err != nil {
			return err
		}
	}
	s.say("deleted JuiceFSRuntime and Dataset %s/%s while Pod trainer mounts its PVC (Pod server reads through its FUSE sidecar)", ns, dataset)
	msg := ""
	err := s.waitFor(ctx, 30*time.Second, "the runtime's deletion to wait InUse", func() (bool, string, error) {
		if err := s.Client.Get(ctx, client.ObjectKeyFromObject(rt), rt); err != nil {
			return false, "", err
		}
		c := meta.FindStatusCondition(rt.Status.Conditions, "Ready")
		if c == nil {
			return false, "no Ready condition", nil
		}
		msg = c.Reason + ": " + c.Message
		return c.Reason == "InUse", msg, nil
	})
	if err != nil {
		return err
	}
	s.say("the runtime waits: Ready=False %s", msg)
	err = s.waitFor(ctx, 30*time.Second, "the Dataset's deletion to wait InUse", func() (bool, string, error) {
		if err := s.Client.Get(ctx, client.ObjectKeyFromObject(ds), ds); err != nil {
			return false, "", err
		}
		c := meta.FindStatusCondition(ds.Status.Conditions, "Deleting")
		if c == nil {
			return false, "no Deleting condition", nil
		}
		msg = c.Reason + ": " + c.Message
		return c.Reason == "InUse", msg, nil
	})
	if err != nil {
		return err
	}
	s.say("the Dataset waits too (its finalizer holds it): Deleting=True %s", msg)
	if err := s.stillThere(ctx); err != nil {
		return err
	}
	s.say("its release (StatefulSet %s-worker), PV and PVC stay while the Pods run", dataset)

	var users []client.Object
	for _, name := range []string{"trainer", "server"} {
		users = append(users, &corev1.Pod{})
		users[len(users)-1].SetNamespace(ns)
		users[len(users)-1].SetName(name)
	}
	if err := s.deleteAndWait(ctx, users); err != nil {
		return err
	}
	s.say("deleted Pods trainer and server")
	left := ""
	err = s.waitFor(ctx, 60*time.Second, "the runtime, release, PV, PVC and cache labels to be gone", func() (bool, string, error) {
		var err error
		left, err = s.leftovers(ctx, cacheKey)
		return err == nil && left == "", left, err
	})
	if err != nil {
		return err
	}
	s.say("the runtime and the Dataset are gone, with the Helm release, StatefulSet, PV, PVC and the %s node labels", cacheKey)
	return nil
}

// stillThere checks that the release's StatefulSet, the PV and the PVC exist.
func (s *story) stillThere(ctx context.Context) error {
	for _, o := range []struct {
		key client.ObjectKey
		obj client.Object
	}{
		{client.ObjectKey{Namespace: ns, Name: dataset + "-worker"}, &appsv1.StatefulSet{}},
		{client.ObjectKey{Name: ns + "-" + dataset}, &corev1.PersistentVolume{}},
		{client.ObjectKey{Namespace: ns, Name: dataset}, &corev1.PersistentVolumeClaim{}},
	} {
		if err := s.Client.Get(ctx, o.key, o.obj); err != nil {
			return fmt.Errorf("%T %s while the runtime waits: %w", o.obj, o.key, err)
		}
	}
	return nil
}

// leftovers names what of the runtime is still there, or returns "".
func (s *story) leftovers(ctx context.Context, cacheKey string) (string, error) {
	var left []string
	for _, o := range []struct {
		key client.ObjectKey
		obj client.Object
	}{
		{client.ObjectKey{Namespace: ns, Name: dataset}, &datav1alpha1.JuiceFSRuntime{}},
		{client.ObjectKey{Namespace: ns, Name: dataset}, &datav1alpha1.Dataset{}},
		{client.ObjectKey{Namespace: ns, Name: dataset + "-worker"}, &appsv1.StatefulSet{}},
		{client.ObjectKey{Name: ns + "-" + dataset}, &corev1.PersistentVolume{}},
		{client.ObjectKey{Namespace: ns, Name: dataset}, &corev1.PersistentVolumeClaim{}},
	} {
		err := s.Client.Get(ctx, o.key, o.obj)
		switch {
		case err == nil:
			left = append(left, fmt.Sprintf("%T %s (finalizers %v)", o.obj, o.key, o.obj.GetFinalizers()))
		case !apierrors.IsNotFound(err):
			return "", err
		}
	}
	pods := &corev1.PodList{}
	if err := s.Client.List(ctx, pods, client.InNamespace(ns)); err != nil {
		return "", err
	}
	for _, p := range pods.Items {
		for _, v := range p.Spec.Volumes {
			if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == dataset {
				left = append(left, fmt.Sprintf("Pod %s (%s, deleting %v) mounting the PVC", p.Name, p.Status.Phase, p.DeletionTimestamp != nil))
			}
		}
	}
	// Helm stores a release's revisions in Secrets labelled owner=helm.
	releases := &corev1.SecretList{}
	if err := s.Client.List(ctx, releases, client.InNamespace(ns), client.MatchingLabels{"owner": "helm", "name": dataset}); err != nil {
		return "", err
	}
	if n := len(releases.Items); n > 0 {
		left = append(left, fmt.Sprintf("%d Helm release Secrets", n))
	}
	labelled, err := nodesLabelled(ctx, s.Client, cacheKey)
	if err != nil {
		return "", err
	}
	if len(labelled) > 0 {
		left = append(left, fmt.Sprintf("label %s on %v", cacheKey, labelled))
	}
	return strings.Join(left, ", "), nil
}
