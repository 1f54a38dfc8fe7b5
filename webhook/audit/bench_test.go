package audit

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	policyreportv1alpha2 "github.com/sluice-data/sluice/api/policyreport/v1alpha2"
	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/webhook/policy"
)

// auditCluster is namespaces namespaces, each with a Dataset, a
// JuiceFSRuntime (one in three on a tieredstore path the guards refuse)
// and pods Pods mounting a PVC.
func auditCluster(namespaces, pods int) []client.Object {
	var objs []client.Object
	for n := range namespaces {
		ns := fmt.Sprintf("team-%03d", n)
		objs = append(objs, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		objs = append(objs, &datav1alpha1.Dataset{
			ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: ns},
			Spec:       datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{{Name: "data", MountPoint: "s3://bucket/data"}}},
		})
		path := "/mnt/cache"
		if n%3 == 0 {
			path = "/var/lib/kubelet/cache"
		}
		q := resource.MustParse("10Gi")
		rt := &datav1alpha1.JuiceFSRuntime{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: ns}}
		rt.Spec.TieredStore.Levels = []datav1alpha1.Level{{MediumType: "SSD", Path: path, Quota: &q}}
		objs = append(objs, rt)
		for p := range pods {
			objs = append(objs, &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("worker-%d", p), Namespace: ns},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "main", Image: "busybox", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}},
					Volumes:    []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}},
				},
			})
		}
	}
	return objs
}

// BenchmarkAuditCycle measures one in-cluster audit of every namespace
// once the reports are written (steady state: no report changed), against
// an in-memory API: requests/op are the API requests of a cycle (Pod list
// pages; reports are written only when they change), peak-MiB the most
// heap in use above the cluster's own objects at any Pod page, which stays
// flat as namespaces are added since one namespace is held at a time.
func BenchmarkAuditCycle(b *testing.B) {
	for _, size := range []struct{ namespaces, pods int }{{10, 50}, {40, 50}, {40, 200}} {
		b.Run(fmt.Sprintf("namespaces=%d/pods=%d", size.namespaces, size.pods), func(b *testing.B) {
			ctx := context.Background()
			s := sluicescheme.New()
			if err := policyreportv1alpha2.AddToScheme(s); err != nil {
				b.Fatal(err)
			}
			requests := 0
			var baseline, peak uint64
			sample := func() {
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				if m.HeapInuse > baseline && m.HeapInuse-baseline > peak {
					peak = m.HeapInuse - baseline
				}
			}
			c := fake.NewClientBuilder().WithScheme(s).WithObjects(auditCluster(size.namespaces, size.pods)...).Build()
			pods := interceptor.NewClient(c, interceptor.Funcs{
				List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
					requests++
					sample()
					return listPage(ctx, c, list.(*corev1.PodList), opts...)
				},
			})
			writes := interceptor.NewClient(c, interceptor.Funcs{
				Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
					requests++
					return c.Get(ctx, key, obj, opts...)
				},
				Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
					requests++
					return c.Create(ctx, obj, opts...)
				},
				Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
					requests++
					return c.Update(ctx, obj, opts...)
				},
			})
			engine := policy.NewEngine(policies.MutatingQuery, policies.ValidatingQuery)
			bundle, err := policy.ProfileBundle("")
			if err != nil {
				b.Fatal(err)
			}
			if err := engine.Load(ctx, bundle); err != nil {
				b.Fatal(err)
			}
			r := &Runner{
				Auditor: New(engine, c, "sluice-system", true),
				Source:  &Source{Objects: c, Pods: pods, PageSize: DefaultPageSize},
				Writer:  &Writer{Client: writes},
				Engine:  engine,
			}
			first, err := r.Cycle(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if first.Written != size.namespaces {
				b.Fatalf("first cycle wrote %d reports, want one per namespace", first.Written)
			}
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			baseline, peak, requests = m.HeapInuse, 0, 0
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := r.Cycle(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			objects := size.namespaces * (size.pods + 2)
			b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
			b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(objects), "ns/object")
		})
	}
}

// listPage lists as the API server does with a limit, which the fake
// client ignores: Limit items from the offset the continue token names.
func listPage(ctx context.Context, c client.WithWatch, list *corev1.PodList, opts ...client.ListOption) error {
	o := (&client.ListOptions{}).ApplyOptions(opts)
	if err := c.List(ctx, list, client.InNamespace(o.Namespace)); err != nil {
		return err
	}
	from, _ := strconv.Atoi(o.Continue)
	total := len(list.Items)
	to := min(from+int(o.Limit), total)
	list.Items = list.Items[from:to]
	list.Continue = ""
	if to < total {
		list.Continue = strconv.Itoa(to)
	}
	return nil
}
