package chaos_test

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// observed is what the cluster holds that the invariants are about, read
// from the API server (never a cache) in one pass.
type observed struct {
	datasets     map[string]*datav1alpha1.Dataset
	runtimes     map[string]*datav1alpha1.JuiceFSRuntime
	loads        map[string]*datav1alpha1.DataLoad
	pvcs         map[string]*corev1.PersistentVolumeClaim
	pvs          map[string]*corev1.PersistentVolume
	statefulSets map[string]*appsv1.StatefulSet
	jobs         map[string]*batchv1.Job
	pods         []corev1.Pod
	nodes        []corev1.Node
	// releases are the Helm release Secrets (sh.helm.release.v1.*) by
	// release name, one per stored revision.
	releases map[string][]corev1.Secret
}

// observe lists the namespace's Datasets, runtimes, DataLoads, PVCs,
// StatefulSets, Jobs, Pods and Helm release Secrets, and the cluster's PVs
// and nodes.
func observe(ctx context.Context, c client.Client, ns string) (*observed, error) {
	o := &observed{releases: map[string][]corev1.Secret{}}
	in := client.InNamespace(ns)
	var (
		datasets datav1alpha1.DatasetList
		runtimes datav1alpha1.JuiceFSRuntimeList
		loads    datav1alpha1.DataLoadList
		pvcs     corev1.PersistentVolumeClaimList
		pvs      corev1.PersistentVolumeList
		sets     appsv1.StatefulSetList
		jobs     batchv1.JobList
		pods     corev1.PodList
		nodes    corev1.NodeList
		secrets  corev1.SecretList
	)
	for _, l := range []struct {
		list client.ObjectList
		opts []client.ListOption
	}{
		{&datasets, []client.ListOption{in}}, {&runtimes, []client.ListOption{in}}, {&loads, []client.ListOption{in}},
		{&pvcs, []client.ListOption{in}}, {&pvs, nil}, {&sets, []client.ListOption{in}}, {&jobs, []client.ListOption{in}},
		{&pods, []client.ListOption{in}}, {&nodes, nil}, {&secrets, []client.ListOption{in, client.MatchingLabels{"owner": "helm"}}},
	} {
		if err := c.List(ctx, l.list, l.opts...); err != nil {
			return nil, fmt.Errorf("listing %T: %w", l.list, err)
		}
	}
	o.datasets = byName(datasets.Items)
	o.runtimes = byName(runtimes.Items)
	o.loads = byName(loads.Items)
	o.pvcs = byName(pvcs.Items)
	o.pvs = byName(pvs.Items)
	o.statefulSets = byName(sets.Items)
	o.jobs = byName(jobs.Items)
	o.pods, o.nodes = pods.Items, nodes.Items
	for _, s := range secrets.Items {
		if s.Type == "helm.sh/release.v1" {
			o.releases[s.Labels["name"]] = append(o.releases[s.Labels["name"]], s)
		}
	}
	return o, nil
}

// byName indexes a list's items by name.
func byName[T any, P interface {
	*T
	client.Object
}](items []T) map[string]P {
	out := make(map[string]P, len(items))
	for i := range items {
		p := P(&items[i])
		out[p.GetName()] = p
	}
	return out
}
