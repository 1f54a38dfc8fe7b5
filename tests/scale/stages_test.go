package scale_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// stages shows where a run's time went, from the run's objects listed once
// (whole seconds after start, as the API server records them): when the
// last worker StatefulSet was created (the last release installed) and the
// last worker pod was created, scheduled and Ready; and, in 5-second
// buckets (the last holds everything later), when each stage happened:
// Datasets and release records created, worker StatefulSets and pods
// created, pods Ready, PVCs created and Dataset conditions set, e.g. binds
// queued behind installs.
func stages(ctx context.Context, c client.Client, ns string, start time.Time) string {
	const n = 14
	rows := map[string]*[n]int{}
	var stsCreated, podCreated, scheduled, ready time.Time
	add := func(kind string, t time.Time) {
		if rows[kind] == nil {
			rows[kind] = &[n]int{}
		}
		i := min(max(int(t.Sub(start).Seconds())/5, 0), n-1)
		rows[kind][i]++
	}
	ds, sec, sts := &datav1alpha1.DatasetList{}, &corev1.SecretList{}, &appsv1.StatefulSetList{}
	pods, pvc := &corev1.PodList{}, &corev1.PersistentVolumeClaimList{}
	for _, l := range []client.ObjectList{ds, sec, sts, pvc} {
		if err := c.List(ctx, l, client.InNamespace(ns)); err != nil {
			return err.Error()
		}
	}
	if err := c.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{"role": "juicefs-worker"}); err != nil {
		return err.Error()
	}
	for _, d := range ds.Items {
		add("dataset", d.CreationTimestamp.Time)
		for _, cond := range d.Status.Conditions {
			add("dataset-condition-"+cond.Type, cond.LastTransitionTime.Time)
		}
	}
	for _, s := range sec.Items {
		add("release-secret", s.CreationTimestamp.Time)
	}
	for _, s := range sts.Items {
		add("worker-sts", s.CreationTimestamp.Time)
		stsCreated = latest(stsCreated, s.CreationTimestamp.Time)
	}
	for _, p := range pods.Items {
		add("worker-pod", p.CreationTimestamp.Time)
		podCreated = latest(podCreated, p.CreationTimestamp.Time)
		for _, cond := range p.Status.Conditions {
			switch cond.Type {
			case corev1.PodScheduled:
				scheduled = latest(scheduled, cond.LastTransitionTime.Time)
			case corev1.PodReady:
				add("worker-pod-ready", cond.LastTransitionTime.Time)
				ready = latest(ready, cond.LastTransitionTime.Time)
			}
		}
	}
	for _, p := range pvc.Items {
		add("pvc", p.CreationTimestamp.Time)
	}
	since := func(t time.Time) string { return t.Sub(start).Round(time.Second).String() }
	var b strings.Builder
	fmt.Fprintf(&b, "last worker StatefulSet created at +%s, last pod created +%s, scheduled +%s, Ready +%s\n",
		since(stsCreated), since(podCreated), since(scheduled), since(ready))
	for _, k := range slices.Sorted(maps.Keys(rows)) {
		fmt.Fprintf(&b, "%-28s %v\n", k, *rows[k])
	}
	return b.String()
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
