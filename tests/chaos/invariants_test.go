package chaos_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/claim"
	"github.com/sluice-data/sluice/controller/operation"
)

// violations compares what the cluster holds with what the model asked
// for and says, one line each, what is wrong: an empty list is
// convergence. Each live Dataset is Bound with exactly its PV, PVC, Helm
// release (deployed), StatefulSet (the runtime's replicas and worker
// options), Ready workers on exactly the nodes carrying its cache labels,
// its DataLoads Complete and no claim held; nothing else exists (no
// object, release, Job or node label of a deleted Dataset); no release
// is pending or uninstalling; nothing is stuck with a deletionTimestamp.
func violations(m *model, o *observed) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }

	wantReleases := map[string]string{} // release name → why it should exist
	wantLoads := map[string]bool{}
	for _, name := range m.names(true) {
		wantReleases[name] = "runtime " + name
		for _, load := range m.datasets[name].loads {
			wantLoads[load] = true
			wantReleases[operation.ReleaseName(datav1alpha1.DataLoadKind, load)] = "DataLoad " + load
		}
	}
	live := func(name string) bool { d := m.datasets[name]; return d != nil && d.live }
	pvName := func(ds string) string { return m.ns + "-" + ds }

	// Nothing the model does not ask for.
	unexpected := func(kind string, names []string, want func(string) bool) {
		for _, n := range names {
			if !want(n) {
				add("%s %s exists%s", kind, n, deletedNote(m, n))
			}
		}
	}
	unexpected("Dataset", slices.Sorted(maps.Keys(o.datasets)), live)
	unexpected("JuiceFSRuntime", slices.Sorted(maps.Keys(o.runtimes)), live)
	unexpected("DataLoad", slices.Sorted(maps.Keys(o.loads)), func(n string) bool { return wantLoads[n] })
	unexpected("PVC", slices.Sorted(maps.Keys(o.pvcs)), live)
	unexpected("StatefulSet", slices.Sorted(maps.Keys(o.statefulSets)), func(n string) bool { return live(strings.TrimSuffix(n, "-worker")) })
	unexpected("Job", slices.Sorted(maps.Keys(o.jobs)), func(n string) bool { _, ok := wantReleases[n]; return ok })
	unexpected("Helm release", slices.Sorted(maps.Keys(o.releases)), func(n string) bool { _, ok := wantReleases[n]; return ok })
	var pvs []string
	for name := range o.pvs {
		if ds, ok := strings.CutPrefix(name, m.ns+"-"); ok && !live(ds) {
			pvs = append(pvs, name)
		}
	}
	sort.Strings(pvs)
	for _, pv := range pvs {
		add("PV %s exists%s", pv, deletedNote(m, strings.TrimPrefix(pv, m.ns+"-")))
	}
	for _, p := range o.pods {
		if inst := p.Labels["app.kubernetes.io/instance"]; p.Labels["role"] == "juicefs-worker" && !live(inst) {
			add("worker Pod %s of %s exists%s", p.Name, inst, deletedNote(m, inst))
		}
	}

	// Nothing stuck in deletion.
	stuck := func(kind string, objs []client.Object) {
		for _, obj := range objs {
			if ts := obj.GetDeletionTimestamp(); ts != nil {
				add("%s %s is being deleted since %s (finalizers %v)", kind, obj.GetName(), ts.UTC().Format("15:04:05"), obj.GetFinalizers())
			}
		}
	}
	stuck("Dataset", objects(o.datasets))
	stuck("JuiceFSRuntime", objects(o.runtimes))
	stuck("DataLoad", objects(o.loads))
	stuck("PVC", objects(o.pvcs))
	stuck("StatefulSet", objects(o.statefulSets))
	stuck("Job", objects(o.jobs))
	var ours []client.Object
	for name, pv := range o.pvs {
		if strings.HasPrefix(name, m.ns+"-") {
			ours = append(ours, pv)
		}
	}
	stuck("PV", ours)

	// Every release's revisions: the newest deployed, none pending.
	for _, name := range slices.Sorted(maps.Keys(o.releases)) {
		newest, status := 0, ""
		for _, s := range o.releases[name] {
			st := s.Labels["status"]
			if strings.HasPrefix(st, "pending-") || st == "uninstalling" {
				add("Helm release %s revision %s is %s", name, s.Labels["version"], st)
			}
			if v, _ := strconv.Atoi(s.Labels["version"]); v > newest {
				newest, status = v, st
			}
		}
		if status != "deployed" {
			add("Helm release %s: newest revision %d is %q, not deployed", name, newest, status)
		}
	}
	for _, r := range slices.Sorted(maps.Keys(wantReleases)) {
		if _, ok := o.releases[r]; !ok {
			add("Helm release %s of %s is missing", r, wantReleases[r])
		}
	}

	// Node labels: per-dataset keys only of live Datasets, dataset-num
	// counting them.
	liveKeys := map[string]string{}
	for _, name := range m.names(true) {
		for _, k := range labelKeys(m.ns, name) {
			liveKeys[k] = name
		}
	}
	for _, n := range o.nodes {
		count := 0
		for _, k := range slices.Sorted(maps.Keys(n.Labels)) {
			if !strings.HasPrefix(k, "fluid.io/s-") && !strings.HasPrefix(k, "fluid.io/f-") {
				continue
			}
			if totalCapacityKey.MatchString(k) {
				count++
			}
			if _, ok := liveKeys[k]; !ok {
				add("node %s has label %s of no live Dataset", n.Name, k)
			}
		}
		if got := n.Labels[datav1alpha1.LabelDatasetNum]; got != countLabel(count) {
			add("node %s: %s=%q, but it caches %d Datasets", n.Name, datav1alpha1.LabelDatasetNum, got, count)
		}
	}

	for _, name := range m.names(true) {
		out = append(out, liveViolations(m, o, name, pvName(name))...)
	}
	return out
}

// liveViolations are one live Dataset's: Bound, unclaimed, with its
// runtime, PV, PVC, StatefulSet as asked, its workers on exactly the nodes
// labelled for it, and its DataLoads Complete.
func liveViolations(m *model, o *observed, name, pvName string) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, name+": "+fmt.Sprintf(format, args...)) }
	want := m.datasets[name]
	ds, ok := o.datasets[name]
	switch {
	case !ok:
		add("the Dataset is missing")
	case ds.Status.Phase != datav1alpha1.BoundDatasetPhase:
		add("the Dataset is %q, not Bound", ds.Status.Phase)
	}
	if ok {
		for _, h := range claim.Holders(ds) {
			add("claimed by %s, but every DataLoad of it is to be Complete", h)
		}
	}
	if _, ok := o.runtimes[name]; !ok {
		add("the JuiceFSRuntime is missing")
	}
	if _, ok := o.pvs[pvName]; !ok {
		add("PV %s is missing", pvName)
	}
	switch pvc, ok := o.pvcs[name]; {
	case !ok:
		add("the PVC is missing")
	case pvc.Spec.VolumeName != pvName || pvc.Status.Phase != corev1.ClaimBound:
		add("the PVC is %s to %q, want Bound to %s", pvc.Status.Phase, pvc.Spec.VolumeName, pvName)
	}
	if sts, ok := o.statefulSets[name+"-worker"]; !ok {
		add("StatefulSet %s-worker is missing", name)
	} else {
		if sts.Spec.Replicas == nil || *sts.Spec.Replicas != want.replicas {
			add("StatefulSet %s has replicas %v, want %d", sts.Name, sts.Spec.Replicas, want.replicas)
		}
		tmpl, _ := json.Marshal(sts.Spec.Template.Spec.Containers)
		if !strings.Contains(string(tmpl), "buffer-size="+want.bufferSize) {
			add("StatefulSet %s's workers do not run with buffer-size=%s", sts.Name, want.bufferSize)
		}
	}
	ready, labelled := workerNodes(o, name), labelledNodes(o, m.ns, name)
	if len(ready) != int(want.replicas) || !slices.Equal(ready, labelled) {
		add("Ready workers on %v, cache labels on %v, want %d worker(s) on exactly the labelled nodes", ready, labelled, want.replicas)
	}
	for _, load := range want.loads {
		switch l, ok := o.loads[load]; {
		case !ok:
			add("DataLoad %s is missing", load)
		case l.Status.Phase != datav1alpha1.PhaseComplete:
			add("DataLoad %s is %q, not Complete", load, l.Status.Phase)
		}
	}
	return out
}

// workerNodes are the nodes running a Ready, not deleting, worker of the
// Dataset's runtime, sorted.
func workerNodes(o *observed, name string) []string {
	var out []string
	for _, p := range o.pods {
		if p.Labels["app.kubernetes.io/instance"] != name || p.Labels["role"] != "juicefs-worker" || p.DeletionTimestamp != nil {
			continue
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				out = append(out, p.Spec.NodeName)
			}
		}
	}
	sort.Strings(out)
	return out
}

// labelledNodes are the nodes carrying every cache label of the Dataset,
// sorted.
func labelledNodes(o *observed, ns, name string) []string {
	var out []string
	for _, n := range o.nodes {
		all := true
		for _, k := range labelKeys(ns, name)[:5] {
			if _, ok := n.Labels[k]; !ok {
				all = false
			}
		}
		if all {
			out = append(out, n.Name)
		}
	}
	return out
}

// labelKeys are the per-dataset node label keys of a JuiceFS Dataset: the
// five cache labels the controller sets, then the FUSE label the CSI
// plugin sets.
func labelKeys(ns, name string) []string {
	k := datav1alpha1.DatasetKey{Namespace: ns, Name: name}
	return []string{k.CacheLabelKey(), k.RuntimeCacheLabelKey("juicefs"),
		k.CapacityLabelKey("juicefs", datav1alpha1.MemoryCapacity), k.CapacityLabelKey("juicefs", datav1alpha1.DiskCapacity),
		k.CapacityLabelKey("juicefs", datav1alpha1.TotalCapacity), k.FuseLabelKey()}
}

// totalCapacityKey matches every Dataset's total-capacity label, one per
// Dataset a node caches: their count is the node's dataset-num.
var totalCapacityKey = regexp.MustCompile(`^fluid\.io/s-h-[a-z0-9]+-t-`)

// countLabel is dataset-num's value for n cached Datasets ("" for none:
// the label is removed).
func countLabel(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// deletedNote says, for an object named after a Dataset, that the
// Dataset was deleted.
func deletedNote(m *model, name string) string {
	for ds, d := range m.datasets {
		if !d.live && (name == ds || strings.HasPrefix(name, ds+"-")) {
			return " (Dataset " + ds + " was deleted)"
		}
	}
	return ""
}

// objects lists a map's objects sorted by name.
func objects[P client.Object](m map[string]P) []client.Object {
	out := make([]client.Object, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[k])
	}
	return out
}
