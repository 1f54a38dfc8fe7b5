package demo

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// datasetBound applies config/samples/demo.yaml and follows it: the
// controller installs the JuiceFS engine with Helm, kube-scheduler places
// its workers, kwok makes them Ready, the controller binds the Dataset,
// creates its PV and PVC and labels exactly the workers' nodes.
func (s *story) datasetBound(ctx context.Context) error {
	objs, err := samples("samples/demo.yaml")
	if err != nil {
		return err
	}
	for _, o := range objs {
		if err := s.Client.Create(ctx, o); err != nil {
			return fmt.Errorf("creating %T %s: %w", o, o.GetName(), err)
		}
	}
	s.say("applied Namespace %s, the metaurl Secret, Dataset %s and JuiceFSRuntime %s", ns, dataset, dataset)

	workers := map[string]bool{}
	err = s.waitFor(ctx, 90*time.Second, "the engine's workers to be scheduled and Ready", func() (bool, string, error) {
		pods := &corev1.PodList{}
		if err := s.Client.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{"app.kubernetes.io/instance": dataset, "role": "juicefs-worker"}); err != nil {
			return false, "", err
		}
		clear(workers)
		for _, p := range pods.Items {
			if podReady(&p) {
				workers[p.Spec.NodeName] = true
			}
		}
		return len(pods.Items) > 0 && len(workers) == len(pods.Items), fmt.Sprintf("%d worker pods, %d ready", len(pods.Items), len(workers)), nil
	})
	if err != nil {
		return err
	}
	s.cacheNodes = sorted(workers)
	s.say("worker pods scheduled by kube-scheduler and Ready (kwok) on %v", s.cacheNodes)

	ds := &datav1alpha1.Dataset{}
	err = s.waitFor(ctx, 60*time.Second, "the Dataset to be Bound", func() (bool, string, error) {
		err := s.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: dataset}, ds)
		return err == nil && ds.Status.Phase == datav1alpha1.BoundDatasetPhase, fmt.Sprintf("phase %q", ds.Status.Phase), client.IgnoreNotFound(err)
	})
	if err != nil {
		return err
	}
	s.say("Dataset %s/%s is %s", ns, dataset, ds.Status.Phase)
	pv, pvc := &corev1.PersistentVolume{}, &corev1.PersistentVolumeClaim{}
	if err := s.Client.Get(ctx, client.ObjectKey{Name: ns + "-" + dataset}, pv); err != nil {
		return fmt.Errorf("the Dataset's PV: %w", err)
	}
	s.say("the controller created PV %s (CSI driver %s) and PVC %s/%s", pv.Name, csiDriver(pv), ns, dataset)
	// kube-controller-manager's PV controller binds them (it syncs every
	// 15 s); the scheduler places no Pod whose PVC is unbound.
	err = s.waitFor(ctx, 60*time.Second, "the PVC to be Bound", func() (bool, string, error) {
		err := s.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: dataset}, pvc)
		return err == nil && pvc.Status.Phase == corev1.ClaimBound, string(pvc.Status.Phase), err
	})
	if err != nil {
		return err
	}
	s.say("PVC %s/%s Bound to PV %s by kube-controller-manager", ns, pvc.Name, pvc.Spec.VolumeName)

	key := datav1alpha1.KeyOf(ds).CacheLabelKey()
	var labelled []string
	err = s.waitFor(ctx, 30*time.Second, "cache labels on exactly the workers' nodes", func() (bool, string, error) {
		var err error
		labelled, err = nodesLabelled(ctx, s.Client, key)
		return slices.Equal(labelled, s.cacheNodes), fmt.Sprintf("%s on %v", key, labelled), err
	})
	if err != nil {
		return err
	}
	s.say("node label %s=true on %v, exactly the workers' nodes", key, labelled)
	if err := s.reportCacheAffinity(ctx); err != nil {
		return err
	}
	return s.reportCacheStates(ctx, ns, dataset)
}

// reportCacheAffinity waits for the runtime's status.cacheAffinity to name
// the zones of the cache nodes (the Dataset's nodeAffinity narrowed to
// where the workers run), and prints it: the zone and region tiers of the
// Pods' data affinity come from it.
func (s *story) reportCacheAffinity(ctx context.Context) error {
	zones := map[string]bool{}
	for _, name := range s.cacheNodes {
		n := &corev1.Node{}
		if err := s.Client.Get(ctx, client.ObjectKey{Name: name}, n); err != nil {
			return err
		}
		zones[n.Labels[corev1.LabelTopologyZone]] = true
	}
	s.cacheZones = sorted(zones)
	rt := &datav1alpha1.JuiceFSRuntime{}
	var terms []string
	err := s.waitFor(ctx, 30*time.Second, fmt.Sprintf("the runtime's cacheAffinity to name zone %v", s.cacheZones), func() (bool, string, error) {
		if err := s.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: dataset}, rt); err != nil {
			return false, "", err
		}
		terms = requiredTerms(rt.Status.CacheAffinity)
		want := fmt.Sprintf("%s In %v", corev1.LabelTopologyZone, s.cacheZones)
		return slices.ContainsFunc(terms, func(t string) bool { return strings.Contains(t, want) }), fmt.Sprintf("%v", terms), nil
	})
	if err != nil {
		return err
	}
	s.say("JuiceFSRuntime %s status.cacheAffinity: %s", dataset, strings.Join(terms, " OR "))
	return nil
}

// requiredTerms prints a node affinity's required terms, one
// "key op values, ..." string each.
func requiredTerms(a *corev1.NodeAffinity) []string {
	var out []string
	if a == nil || a.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	for _, t := range a.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		var reqs []string
		for _, e := range t.MatchExpressions {
			reqs = append(reqs, fmt.Sprintf("%s %s %v", e.Key, e.Operator, e.Values))
		}
		out = append(out, strings.Join(reqs, ", "))
	}
	return out
}

// reportCacheStates waits for the cache states the controller reports and
// prints them. The capacity comes from the tieredstore and the ready
// workers; the cached figures from JuiceFS's FUSE clients' metrics, and
// FUSE pods start on a node when the CSI plugin stages a volume there: no
// kubelet (so no CSI) runs in the dev cluster, so only the capacity is
// known here.
func (s *story) reportCacheStates(ctx context.Context, ns, dataset string) error {
	ds := &datav1alpha1.Dataset{}
	err := s.waitFor(ctx, 30*time.Second, "the cache states", func() (bool, string, error) {
		err := s.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: dataset}, ds)
		return err == nil && ds.Status.CacheStates[datav1alpha1.CacheCapacity] != "", fmt.Sprintf("%v", ds.Status.CacheStates), err
	})
	if err != nil {
		return err
	}
	s.say("cache states: %v (cached figures come from JuiceFS's FUSE clients, which start when the CSI plugin stages a volume; no kubelet or CSI runs here)", ds.Status.CacheStates)
	return nil
}

func nodesLabelled(ctx context.Context, c client.Client, key string) ([]string, error) {
	nodes := &corev1.NodeList{}
	if err := c.List(ctx, nodes, client.MatchingLabels{key: "true"}); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, n := range nodes.Items {
		out[n.Name] = true
	}
	return sorted(out), nil
}

func podReady(p *corev1.Pod) bool {
	if p.DeletionTimestamp != nil || p.Spec.NodeName == "" {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func csiDriver(pv *corev1.PersistentVolume) string {
	if pv.Spec.CSI != nil {
		return pv.Spec.CSI.Driver
	}
	return "none"
}
