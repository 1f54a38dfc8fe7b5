package chaos_test

import (
	"context"
	"fmt"
	"math/rand"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// phaseKind is a kind of workload phase the controller is killed during.
type phaseKind string

const (
	// create: Datasets and their one-worker JuiceFSRuntimes (Helm
	// installs, binding, PV and PVC, node labelling).
	phaseCreate phaseKind = "create"
	// scale: runtimes go from 1 to 2 workers or back (Helm upgrades, node
	// labels added and removed).
	phaseScale phaseKind = "scale"
	// option: a worker option changes (Helm upgrades, rolling workers).
	phaseOption phaseKind = "option"
	// load: a DataLoad per Dataset (operation releases, Jobs, claims).
	phaseLoad phaseKind = "load"
	// delete: Datasets with their DataLoads (uninstalls, cache cleanup,
	// PV and PVC removal, unlabelling, finalizers).
	phaseDelete phaseKind = "delete"
)

// workload applies the phases to the cluster and records what they ask
// for in the model.
type workload struct {
	c     client.Client
	m     *model
	rng   *rand.Rand
	round int
}

// apply starts one phase and returns what it did, e.g. "scale ds-03→2".
// It returns once the API server has stored the changes: the controller's
// reaction is what the kill interrupts.
func (w *workload) apply(ctx context.Context, kind phaseKind, n int) (string, error) {
	w.round++
	var done []string
	targets := w.pick(kind, n)
	for _, name := range targets {
		what, err := w.applyOne(ctx, kind, name)
		if err != nil {
			return "", fmt.Errorf("%s %s: %w", kind, name, err)
		}
		done = append(done, what)
	}
	return string(kind) + " " + strings.Join(done, ", "), nil
}

// pick chooses the phase's Datasets: the next n never created for create,
// else n live ones at random.
func (w *workload) pick(kind phaseKind, n int) []string {
	if kind == phaseCreate {
		var out []string
		for i := 0; len(out) < n; i++ {
			if _, ok := w.m.datasets[datasetName(i)]; !ok {
				out = append(out, datasetName(i))
			}
		}
		return out
	}
	live := w.m.names(true)
	w.rng.Shuffle(len(live), func(i, j int) { live[i], live[j] = live[j], live[i] })
	return live[:min(n, len(live))]
}

func (w *workload) applyOne(ctx context.Context, kind phaseKind, name string) (string, error) {
	switch kind {
	case phaseCreate:
		return name, w.create(ctx, name)
	case phaseScale:
		d := w.m.datasets[name]
		d.replicas = 3 - d.replicas
		return fmt.Sprintf("%s→%d", name, d.replicas), w.updateRuntime(ctx, name, func(rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.Replicas = d.replicas
		})
	case phaseOption:
		d := w.m.datasets[name]
		d.bufferSize = strconv.Itoa(w.round*1000 + w.rng.Intn(1000))
		return fmt.Sprintf("%s buffer-size=%s", name, d.bufferSize), w.updateRuntime(ctx, name, func(rt *datav1alpha1.JuiceFSRuntime) {
			rt.Spec.Worker.Options = map[string]string{"buffer-size": d.bufferSize}
		})
	case phaseLoad:
		load := fmt.Sprintf("%s-load-%02d", name, w.round)
		w.m.datasets[name].loads = append(w.m.datasets[name].loads, load)
		return load, w.c.Create(ctx, testobj.DataLoad(load, w.m.ns, name))
	case phaseDelete:
		return name, w.delete(ctx, name)
	}
	return "", fmt.Errorf("unknown phase %q", kind)
}

// create makes a Dataset (Shared placement: the workers of twenty
// Datasets share the four nodes), the Secret with its metadata URL, and
// its one-worker JuiceFSRuntime.
func (w *workload) create(ctx context.Context, name string) error {
	d := &wantDataset{live: true, replicas: 1, bufferSize: "300"}
	w.m.datasets[name] = d
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: w.m.ns, Name: name + "-juicefs"},
		StringData: map[string]string{"metaurl": "redis://redis.example:6379/1"}}
	ds := testobj.Dataset(name, w.m.ns, testobj.WithMounts("juicefs:///"+name))
	ds.Spec.Placement = datav1alpha1.ShareMode
	rt := testobj.JuiceFSRuntime(name, w.m.ns, d.replicas, testobj.Level(datav1alpha1.SSD, "/var/jfsCache", "10Gi"))
	rt.Spec.Worker.Options = map[string]string{"buffer-size": d.bufferSize}
	rt.Spec.Worker.PodMetadata.Annotations = promptKubelet()
	for _, obj := range []client.Object{secret, ds, rt} {
		if err := w.c.Create(ctx, obj); err != nil {
			return err
		}
	}
	return nil
}

// updateRuntime changes the runtime's spec, retrying on conflicts with the
// controller's writes.
func (w *workload) updateRuntime(ctx context.Context, name string, change func(*datav1alpha1.JuiceFSRuntime)) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		rt := &datav1alpha1.JuiceFSRuntime{}
		if err := w.c.Get(ctx, types.NamespacedName{Namespace: w.m.ns, Name: name}, rt); err != nil {
			return err
		}
		change(rt)
		return w.c.Update(ctx, rt)
	})
}

// delete deletes the Dataset's DataLoads, then the Dataset (whose
// deletion deletes its runtime) and its Secret.
func (w *workload) delete(ctx context.Context, name string) error {
	d := w.m.datasets[name]
	d.live = false
	for _, load := range d.loads {
		if err := w.c.Delete(ctx, testobj.DataLoad(load, w.m.ns, name)); err != nil {
			return err
		}
	}
	d.loads = nil
	for _, obj := range []client.Object{
		&datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: w.m.ns, Name: name}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: w.m.ns, Name: name + "-juicefs"}},
	} {
		if err := w.c.Delete(ctx, obj); err != nil {
			return err
		}
	}
	return nil
}

// kwokStages are the steps of a pod's life that kwok plays as a kubelet
// would (hack/kwok-stages.sh).
var kwokStages = []string{"pod-create", "pod-init-container-running", "pod-init-container-completed", "pod-ready", "pod-delete"}

// promptKubelet is the annotations that have kwok play each step of a
// worker's life within 0.5–1.5 s: its defaults are 1–6 s a step and, for
// a deletion, any time in the 30 s grace period (a process that ignores
// SIGTERM). A worker restarted by a rolling update would otherwise take up
// to a minute by itself, and two in turn longer than the convergence
// bound, which is the controller's.
func promptKubelet() map[string]string {
	a := map[string]string{}
	for _, stage := range kwokStages {
		a[stage+".stage.kwok.x-k8s.io/delay"] = "500ms"
		a[stage+".stage.kwok.x-k8s.io/jitter-delay"] = "1s"
	}
	return a
}
