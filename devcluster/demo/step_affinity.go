package demo

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// dataAffinity creates the sample Pod "trainer" and shows the data
// affinity the webhook injected and the cache node kube-scheduler chose;
// then, with the cache nodes full, another such Pod is placed in the
// cache's zone (the zone tier, from the runtime's cacheAffinity), and a Pod
// that requires its data locally stays Pending with the scheduler's
// reason.
func (s *story) dataAffinity(ctx context.Context) error {
	pod, err := samplePod("trainer")
	if err != nil {
		return err
	}
	if err := s.createAdmitted(ctx, pod); err != nil {
		return err
	}
	s.say("Pod %s/%s admitted with:\n%s", ns, pod.Name, describe(pod))
	if len(preferredOn(pod)) == 0 {
		return fmt.Errorf("the webhook injected no preferred data affinity into Pod %s", pod.Name)
	}
	node, err := s.scheduled(ctx, pod.Name)
	if err != nil {
		return err
	}
	if !slices.Contains(s.cacheNodes, node) {
		return fmt.Errorf("kube-scheduler placed Pod %s on %s, not on a cache node %v", pod.Name, node, s.cacheNodes)
	}
	s.say("kube-scheduler placed Pod %s on %s, a cache node", pod.Name, node)

	fillers, err := s.fill(ctx, s.cacheNodes)
	if err != nil {
		return err
	}
	nearby, err := s.inCacheZone(ctx, pod)
	if err != nil {
		return err
	}
	fillers = append(fillers, nearby)
	required := pod.DeepCopy()
	required.ObjectMeta = metav1.ObjectMeta{Name: "trainer-required", Namespace: ns, Labels: map[string]string{
		datav1alpha1.LabelServerfulInject: "true", "fluid.io/dataset." + dataset + ".sched": datav1alpha1.SchedRequired}}
	required.Spec = *pod.Spec.DeepCopy()
	required.Spec.Affinity, required.Spec.NodeName = nil, ""
	if err := s.createAdmitted(ctx, required); err != nil {
		return err
	}
	s.say("Pod %s (label fluid.io/dataset.%s.sched=required) admitted with:\n%s", required.Name, dataset, describe(required))
	reason := ""
	err = s.waitFor(ctx, 30*time.Second, "the scheduler to report Pod "+required.Name+" unschedulable", func() (bool, string, error) {
		p := &corev1.Pod{}
		if err := s.Client.Get(ctx, client.ObjectKeyFromObject(required), p); err != nil {
			return false, "", err
		}
		if p.Spec.NodeName != "" {
			return false, "", fmt.Errorf("the scheduler placed Pod %s on %s although the cache nodes are full", p.Name, p.Spec.NodeName)
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
				reason = c.Reason + ": " + c.Message
				return true, "", nil
			}
		}
		return false, "no PodScheduled condition yet", nil
	})
	if err != nil {
		return err
	}
	s.say("Pod %s stays Pending: %s", required.Name, reason)
	return s.deleteAndWait(ctx, append(fillers, required))
}

// inCacheZone creates a copy of the sample Pod named trainer-nearby while
// the cache nodes are full, and shows kube-scheduler placing it on another
// node of the cache's zone, which its zone term (weight 50, with the
// region's 20) prefers over the nodes of the other zones.
func (s *story) inCacheZone(ctx context.Context, sample *corev1.Pod) (*corev1.Pod, error) {
	p := sample.DeepCopy()
	p.ObjectMeta = metav1.ObjectMeta{Name: "trainer-nearby", Namespace: ns, Labels: sample.Labels}
	p.Spec.Affinity, p.Spec.NodeName = nil, ""
	if err := s.createAdmitted(ctx, p); err != nil {
		return nil, err
	}
	want := fmt.Sprintf("%s In %v", corev1.LabelTopologyZone, s.cacheZones)
	if !slices.ContainsFunc(preferredOn(p), func(t string) bool { return strings.Contains(t, want) }) {
		return nil, fmt.Errorf("the webhook admitted Pod %s without the preferred zone term %q: %v", p.Name, want, preferredOn(p))
	}
	s.say("Pod %s admitted with the same data affinity, the cache nodes full", p.Name)
	node, err := s.scheduled(ctx, p.Name)
	if err != nil {
		return nil, err
	}
	n := &corev1.Node{}
	if err := s.Client.Get(ctx, client.ObjectKey{Name: node}, n); err != nil {
		return nil, err
	}
	zone := n.Labels[corev1.LabelTopologyZone]
	if slices.Contains(s.cacheNodes, node) || !slices.Contains(s.cacheZones, zone) {
		return nil, fmt.Errorf("kube-scheduler placed Pod %s on %s (zone %s), not on another node of the cache's zone %v", p.Name, node, zone, s.cacheZones)
	}
	s.say("kube-scheduler placed Pod %s on %s, in the cache's zone %s", p.Name, node, zone)
	return p, nil
}

// scheduled waits for kube-scheduler to bind the Pod and returns its node.
func (s *story) scheduled(ctx context.Context, name string) (string, error) {
	p := &corev1.Pod{}
	err := s.waitFor(ctx, 30*time.Second, "Pod "+name+" to be scheduled", func() (bool, string, error) {
		err := s.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, p)
		return err == nil && p.Spec.NodeName != "", string(p.Status.Phase), err
	})
	return p.Spec.NodeName, err
}

// fill creates plain Pods bound to each node (no scheduler involved, as a
// DaemonSet's would be) until the node has no pod slot left.
func (s *story) fill(ctx context.Context, nodes []string) ([]client.Object, error) {
	var out []client.Object
	for _, name := range nodes {
		node := &corev1.Node{}
		if err := s.Client.Get(ctx, client.ObjectKey{Name: name}, node); err != nil {
			return nil, err
		}
		pods := &corev1.PodList{}
		if err := s.Client.List(ctx, pods, client.MatchingFields{"spec.nodeName": name}); err != nil {
			return nil, err
		}
		free := int(node.Status.Allocatable.Pods().Value()) - len(pods.Items)
		for i := range free {
			p := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("filler-%s-%d", name, i), Namespace: ns},
				Spec:       corev1.PodSpec{NodeName: name, Containers: []corev1.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10"}}},
			}
			if err := s.Client.Create(ctx, p); err != nil {
				return nil, err
			}
			out = append(out, p)
		}
		s.say("filled cache node %s: %d filler Pods bound to it take its last pod slots (%s pods allowed)", name, free, node.Status.Allocatable.Pods())
	}
	return out, nil
}

// deleteAndWait deletes objects and waits until they are gone.
func (s *story) deleteAndWait(ctx context.Context, objs []client.Object) error {
	for _, o := range objs {
		if err := s.Client.Delete(ctx, o, client.GracePeriodSeconds(0)); client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	return s.waitFor(ctx, 60*time.Second, fmt.Sprintf("%d objects to be deleted", len(objs)), func() (bool, string, error) {
		left := 0
		for _, o := range objs {
			if err := s.Client.Get(ctx, client.ObjectKeyFromObject(o), o.DeepCopyObject().(client.Object)); err == nil {
				left++
			} else if client.IgnoreNotFound(err) != nil {
				return false, "", err
			}
		}
		return left == 0, fmt.Sprintf("%d left", left), nil
	})
}

// preferredOn lists the Pod's preferred node-affinity terms as
// "weight key op values".
func preferredOn(p *corev1.Pod) []string {
	var out []string
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		for _, t := range a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			for _, e := range t.Preference.MatchExpressions {
				out = append(out, fmt.Sprintf("weight %d: %s %s %v", t.Weight, e.Key, e.Operator, e.Values))
			}
		}
	}
	return out
}

// describe prints what the webhook injected into a Pod.
func describe(pod *corev1.Pod) string {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, "           "+format+"\n", args...) }
	if v := pod.Annotations[datav1alpha1.AnnotationDatasetsInUse]; v != "" {
		line("annotation %s=%s", datav1alpha1.AnnotationDatasetsInUse, v)
	}
	for _, p := range preferredOn(pod) {
		line("preferred node affinity (%s)", p)
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, e := range t.MatchExpressions {
				line("required node affinity: %s %s %v", e.Key, e.Operator, e.Values)
			}
		}
	}
	for _, c := range pod.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			line("native sidecar %s (image %s)", c.Name, c.Image)
		}
	}
	for _, c := range pod.Spec.Containers {
		if strings.HasPrefix(c.Name, "fluid-fuse") {
			line("sidecar container %s (image %s)", c.Name, c.Image)
		}
	}
	for _, v := range pod.Spec.Volumes {
		if v.HostPath != nil {
			line("volume %s -> hostPath %s", v.Name, v.HostPath.Path)
		}
	}
	for _, c := range pod.Spec.Containers {
		for _, m := range c.VolumeMounts {
			if m.MountPropagation != nil {
				line("container %s mount %s propagation %s", c.Name, m.MountPath, *m.MountPropagation)
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
