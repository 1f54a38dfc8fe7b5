package devcluster

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/config"
)

// runDemo applies config/samples/demo.yaml, stands in for the kubelet by
// reporting the engine's workers ready (the dev cluster has no nodes), waits
// for the controller to bind the Dataset, creates the Pods of
// config/samples/demo-pods.yaml and prints what the webhook injected.
func runDemo(ctx context.Context, c client.Client, out io.Writer) error {
	objs, err := samples("samples/demo.yaml")
	if err != nil {
		return err
	}
	for _, o := range objs {
		if err := c.Create(ctx, o); err != nil {
			return fmt.Errorf("creating %T %s: %w", o, o.GetName(), err)
		}
	}
	fmt.Fprintln(out, "demo: applied Dataset demo/imagenet and its JuiceFSRuntime; the controller installs the engine with Helm")
	if err := standInForKubelet(ctx, c, out); err != nil {
		return err
	}
	if err := waitBound(ctx, c); err != nil {
		return err
	}
	fmt.Fprintln(out, "demo: the controller bound the Dataset and created its PV and PVC")

	pods, err := samples("samples/demo-pods.yaml")
	if err != nil {
		return err
	}
	for _, o := range pods {
		pod := o.(*corev1.Pod)
		if err := createWhenCached(ctx, c, pod); err != nil {
			return err
		}
		fmt.Fprintf(out, "demo: Pod %s/%s (%s) was admitted with:\n%s", pod.Namespace, pod.Name, kindOf(pod), describe(pod))
	}
	return nil
}

// standInForKubelet marks the engine's worker StatefulSet ready: the dev
// cluster has no nodes, so nothing would run the workers.
func standInForKubelet(ctx context.Context, c client.Client, out io.Writer) error {
	key := client.ObjectKey{Namespace: "demo", Name: "imagenet-worker"}
	sts := &appsv1.StatefulSet{}
	if err := poll(ctx, 60*time.Second, func() bool { return c.Get(ctx, key, sts) == nil }); err != nil {
		return fmt.Errorf("waiting for the engine's workers: %w", err)
	}
	replicas := int32(1)
	if sts.Spec.Replicas != nil {
		replicas = *sts.Spec.Replicas
	}
	sts.Status.Replicas, sts.Status.ReadyReplicas, sts.Status.AvailableReplicas, sts.Status.ObservedGeneration = replicas, replicas, replicas, sts.Generation
	if err := c.Status().Update(ctx, sts); err != nil {
		return err
	}
	fmt.Fprintf(out, "demo: the dev cluster has no nodes, so the demo reports the %d worker(s) of StatefulSet demo/imagenet-worker ready\n", replicas)
	return nil
}

func waitBound(ctx context.Context, c client.Client) error {
	ds := &datav1alpha1.Dataset{}
	err := poll(ctx, 60*time.Second, func() bool {
		return c.Get(ctx, client.ObjectKey{Namespace: "demo", Name: "imagenet"}, ds) == nil && ds.Status.Phase == datav1alpha1.BoundDatasetPhase
	})
	if err != nil {
		return fmt.Errorf("waiting for the Dataset to be bound (phase %q): %w", ds.Status.Phase, err)
	}
	return nil
}

func poll(ctx context.Context, timeout time.Duration, cond func() bool) error {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %v", timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return nil
}

// createWhenCached creates the Pod once the webhook's caches have seen the
// demo objects: until then the webhook admits it unchanged, so the demo
// dry-runs first and retries for a few seconds.
func createWhenCached(ctx context.Context, c client.Client, pod *corev1.Pod) error {
	deadline := time.Now().Add(15 * time.Second)
	for {
		probe := pod.DeepCopy()
		if err := c.Create(ctx, probe, client.DryRunAll); err != nil {
			return fmt.Errorf("creating Pod %s: %w", pod.Name, err)
		}
		if probe.Annotations[datav1alpha1.AnnotationDatasetsInUse] != "" || time.Now().After(deadline) {
			return c.Create(ctx, pod)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func kindOf(pod *corev1.Pod) string {
	if pod.Labels[datav1alpha1.LabelServerlessInject] == "true" {
		return "FUSE sidecar"
	}
	return "data affinity"
}

func describe(pod *corev1.Pod) string {
	var b strings.Builder
	for k, v := range pod.Annotations {
		fmt.Fprintf(&b, "  annotation %s=%s\n", k, v)
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		for _, p := range a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			for _, e := range p.Preference.MatchExpressions {
				fmt.Fprintf(&b, "  preferred node affinity (weight %d): %s %s %v\n", p.Weight, e.Key, e.Operator, e.Values)
			}
		}
		if r := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
			for _, t := range r.NodeSelectorTerms {
				for _, e := range t.MatchExpressions {
					fmt.Fprintf(&b, "  required node affinity: %s %s %v\n", e.Key, e.Operator, e.Values)
				}
			}
		}
	}
	for _, c := range pod.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			fmt.Fprintf(&b, "  native sidecar %s (image %s)\n", c.Name, c.Image)
		}
	}
	for _, v := range pod.Spec.Volumes {
		if v.HostPath != nil {
			fmt.Fprintf(&b, "  volume %s -> hostPath %s\n", v.Name, v.HostPath.Path)
		}
	}
	for _, c := range pod.Spec.Containers {
		for _, m := range c.VolumeMounts {
			if m.MountPropagation != nil {
				fmt.Fprintf(&b, "  container %s mount %s propagation %s\n", c.Name, m.MountPath, *m.MountPropagation)
			}
		}
	}
	return b.String()
}

func samples(name string) ([]client.Object, error) {
	data, err := fs.ReadFile(config.FS, name)
	if err != nil {
		return nil, err
	}
	return sluicescheme.DecodeObjects[client.Object](bytes.NewReader(data), sluicescheme.New())
}
