package scale_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/controller/volume"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/juicefs"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// BenchmarkFloorObjectsToBound is the floor under BenchmarkDatasetsToBound:
// the same simulated cluster (50 kwok nodes, every component on the same
// two cores) and the same N Datasets with one-worker JuiceFSRuntimes, but
// no controller. The benchmark itself writes, for each Dataset, what the
// controller writes for it and the cluster needs: the objects the JuiceFS
// chart renders for it (the worker StatefulSet and the FUSE DaemonSet,
// rendered before the timer starts by controller/helm's renderer, as the
// engine tests do), the PVC and then the PV bound to it
// (controller/volume's), and, once its worker pod is Ready, one merge patch
// of the Dataset's cache labels onto that pod's node. It leaves out what
// only the controller needs: the Helm release records, finalizers, status
// writes and reads. Its client has the controller's settings (no
// client-side rate limit) and 32 writers, the controller's runtime
// workers. Timed from the first Dataset create until every PVC is Bound,
// every worker pod Ready and every node labelled, polled once a second as
// BenchmarkDatasetsToBound polls. It reports the time and the writes per
// Dataset it sent in the controller's place (requests/dataset adds its
// reads: the pod and PVC lists of the polls).
func BenchmarkFloorObjectsToBound(b *testing.B) {
	for _, n := range scaleSizes() {
		b.Run(fmt.Sprintf("datasets=%d", n), func(b *testing.B) {
			for range b.N {
				elapsed, requests := floorAll(b, n)
				b.ReportMetric(elapsed.Seconds(), "s-to-bound")
				b.ReportMetric(requests.total/float64(n), "requests/dataset")
				b.ReportMetric(requests.writes()/float64(n), "writes/dataset")
			}
		})
	}
}

// floorDataset is one Dataset of the floor run: its objects as the user
// writes them, and what the chart rendered for them.
type floorDataset struct {
	ds       *datav1alpha1.Dataset
	rt       *datav1alpha1.JuiceFSRuntime
	rendered []*unstructured.Unstructured
}

func floorAll(b *testing.B, n int) (time.Duration, requestCounts) {
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout(n))
	defer cancel()
	r := startCluster(ctx, b, 50)
	defer r.stop()
	items := make([]*floorDataset, n)
	for i := range items {
		fd, err := renderFloorDataset(datasetName(i), r.ns)
		if err != nil {
			b.Fatal(err)
		}
		items[i] = fd
	}
	counter := &methodCounter{}
	cfg := rest.CopyConfig(r.cfg)
	cfg.Wrap(counter.wrap)
	writer, err := client.New(cfg, client.Options{Scheme: r.cluster.Scheme})
	if err != nil {
		b.Fatal(err)
	}

	b.ResetTimer()
	start := time.Now()
	if err := eachParallel(32, items, func(fd *floorDataset) error { return createFloorObjects(ctx, r.client, writer, fd) }); err != nil {
		b.Fatal(err)
	}
	labelled := map[types.NamespacedName]bool{}
	var done string
	err = wait.PollUntilContextCancel(ctx, time.Second, true, func(context.Context) (bool, error) {
		if err := r.cluster.Check(); err != nil {
			return false, err
		}
		var err error
		done, err = floorProgress(ctx, writer, r.ns, items, labelled)
		return done == "", ignoreOverloaded(err)
	})
	elapsed := time.Since(start)
	b.StopTimer()
	if err != nil {
		b.Log(stages(context.Background(), r.client, r.ns, start))
		b.Fatalf("the floor's objects not settled after %s (%s): %v", elapsed.Round(time.Millisecond), done, err)
	}
	requests := counter.counts()
	b.Log("\n" + stages(ctx, r.client, r.ns, start))
	b.Log("objects: " + inventory(ctx, r.client, r.ns))
	b.Logf("%d Datasets' objects settled in %s; floor requests %.0f (%s)", n, elapsed.Round(time.Millisecond), requests.total, requests.minus(requestCounts{}))
	return elapsed, requests
}

// renderFloorDataset builds a Dataset and runtime as BenchmarkDatasetsToBound
// applies them and renders the JuiceFS chart for them.
func renderFloorDataset(name, ns string) (*floorDataset, error) {
	ds := testobj.Dataset(name, ns, testobj.WithMounts("juicefs:///"+name))
	ds.Spec.Placement = datav1alpha1.ShareMode
	rt := testobj.JuiceFSRuntime(name, ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache/"+name, "10Gi"))
	out, err := enginetest.RenderErr(juicefs.Engine{}, nil, ds, rt)
	if err != nil {
		return nil, fmt.Errorf("rendering the JuiceFS chart for %s: %w", name, err)
	}
	fd := &floorDataset{ds: ds, rt: rt}
	for _, tpl := range helm.SortedKeys(out) {
		if err := helm.EachObject(out[tpl], func(_ []byte, u *unstructured.Unstructured) {
			u.SetNamespace(ns)
			fd.rendered = append(fd.rendered, u)
		}); err != nil {
			return nil, fmt.Errorf("%s of %s: %w", tpl, name, err)
		}
	}
	if len(fd.rendered) == 0 {
		return nil, fmt.Errorf("the JuiceFS chart rendered nothing for %s", name)
	}
	return fd, nil
}

// createFloorObjects creates one Dataset and its runtime as the user does
// (through user, not counted), then through w the chart's objects, the PVC
// and the PV bound to it.
func createFloorObjects(ctx context.Context, user, w client.Client, fd *floorDataset) error {
	for _, obj := range []client.Object{fd.ds, fd.rt} {
		if err := user.Create(ctx, obj); err != nil {
			return err
		}
	}
	for _, u := range fd.rendered {
		if err := w.Create(ctx, u); err != nil {
			return fmt.Errorf("creating %s %s: %w", u.GetKind(), u.GetName(), err)
		}
	}
	pvc, err := volume.PVC(fd.ds)
	if err != nil {
		return err
	}
	if err := w.Create(ctx, pvc); err != nil {
		return err
	}
	fuse := (juicefs.Engine{}).Volume(fd.rt)
	pv, err := volume.PV(fd.ds, volume.Spec{
		FluidPath: fuse.Path, MountType: fuse.MountType, ClaimUID: pvc.UID,
		RuntimeName: fd.rt.Name, RuntimeNamespace: fd.rt.Namespace, CleanPolicy: string(fuse.CleanPolicy),
		FuseNodeSelector: fd.rt.GetFuseNodeSelector(),
	})
	if err != nil {
		return err
	}
	return w.Create(ctx, pv)
}

// floorProgress labels the node of every worker pod that became Ready
// since the last call (labelled records them) and says what is not settled
// yet, "" when every PVC is Bound and every worker Ready and labelled.
func floorProgress(ctx context.Context, w client.Client, ns string, items []*floorDataset, labelled map[types.NamespacedName]bool) (string, error) {
	pods := &corev1.PodList{}
	if err := w.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{"role": "juicefs-worker"}); err != nil {
		return "", err
	}
	byDataset := map[string]*floorDataset{}
	for _, fd := range items {
		byDataset[datav1alpha1.KeyOf(fd.ds).DatasetID()] = fd
	}
	type patch struct {
		node string
		fd   *floorDataset
		pod  types.NamespacedName
	}
	var todo []patch
	for i := range pods.Items {
		p := &pods.Items[i]
		key := types.NamespacedName{Namespace: p.Namespace, Name: p.Name}
		if labelled[key] || p.Spec.NodeName == "" || !podReady(p) {
			continue
		}
		fd := byDataset[p.Labels["fluid.io/dataset"]]
		if fd == nil {
			return "", fmt.Errorf("worker pod %s has no Dataset of the run (fluid.io/dataset %q)", key, p.Labels["fluid.io/dataset"])
		}
		todo = append(todo, patch{node: p.Spec.NodeName, fd: fd, pod: key})
	}
	if err := eachParallel(32, todo, func(t patch) error { return labelNode(ctx, w, t.node, t.fd) }); err != nil {
		return "", err
	}
	for _, t := range todo {
		labelled[t.pod] = true
	}
	pvcs := &corev1.PersistentVolumeClaimList{}
	if err := w.List(ctx, pvcs, client.InNamespace(ns)); err != nil {
		return "", err
	}
	bound := 0
	for _, c := range pvcs.Items {
		if c.Status.Phase == corev1.ClaimBound {
			bound++
		}
	}
	if n := len(items); bound < n || len(labelled) < n {
		return fmt.Sprintf("%d of %d PVCs Bound, %d of %d workers Ready and labelled", bound, n, len(labelled), n), nil
	}
	return "", nil
}

// labelNode merges the Dataset's cache labels (the five the controller
// sets: cached, cached by the runtime kind, and the memory, disk and total
// capacities of its tiered store) into the node's labels.
func labelNode(ctx context.Context, w client.Client, node string, fd *floorDataset) error {
	key := datav1alpha1.KeyOf(fd.ds)
	typ := (juicefs.Engine{}).Type()
	var mem, disk int64
	for _, l := range fd.rt.GetTieredStore().Levels {
		if l.MediumType == datav1alpha1.Memory {
			mem += l.Quota.Value()
		} else {
			disk += l.Quota.Value()
		}
	}
	labels := map[string]string{
		key.CacheLabelKey():                                    "true",
		key.RuntimeCacheLabelKey(typ):                          "true",
		key.CapacityLabelKey(typ, datav1alpha1.MemoryCapacity): engines.FormatBytes(mem),
		key.CapacityLabelKey(typ, datav1alpha1.DiskCapacity):   engines.FormatBytes(disk),
		key.CapacityLabelKey(typ, datav1alpha1.TotalCapacity):  engines.FormatBytes(mem + disk),
	}
	data, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": labels}})
	if err != nil {
		return err
	}
	n := &corev1.Node{}
	n.Name = node
	return w.Patch(ctx, n, client.RawPatch(types.MergePatchType, data))
}

// podReady reports whether the pod's Ready condition is True.
func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// eachParallel calls f with each item from the given number of goroutines
// and returns the first error.
func eachParallel[T any](workers int, items []T, f func(T) error) error {
	var wg sync.WaitGroup
	errs := make(chan error, len(items))
	next := make(chan T)
	for range workers {
		wg.Go(func() {
			for it := range next {
				if err := f(it); err != nil {
					errs <- err
				}
			}
		})
	}
	for _, it := range items {
		next <- it
	}
	close(next)
	wg.Wait()
	close(errs)
	return <-errs
}

// methodCounter counts the requests a client sends, by HTTP method.
type methodCounter struct {
	get, post, patch, put, del, other atomic.Int64
}

func (m *methodCounter) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		switch req.Method {
		case http.MethodGet:
			m.get.Add(1)
		case http.MethodPost:
			m.post.Add(1)
		case http.MethodPatch:
			m.patch.Add(1)
		case http.MethodPut:
			m.put.Add(1)
		case http.MethodDelete:
			m.del.Add(1)
		default:
			m.other.Add(1)
		}
		return next.RoundTrip(req)
	})
}

// counts are the requests counted so far, as requestCounts.
func (m *methodCounter) counts() requestCounts {
	out := requestCounts{by: map[string]float64{}}
	for method, c := range map[string]*atomic.Int64{http.MethodGet: &m.get, http.MethodPost: &m.post, http.MethodPatch: &m.patch,
		http.MethodPut: &m.put, http.MethodDelete: &m.del, "other": &m.other} {
		if v := float64(c.Load()); v > 0 {
			out.by[method] = v
			out.total += v
		}
	}
	return out
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
