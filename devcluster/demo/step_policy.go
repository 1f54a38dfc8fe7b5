package demo

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The chart's platform policy ConfigMap (release "sluice") and what the
// webhook writes on it.
const (
	policyConfigMap = "sluice-policies"
	policyStatus    = "policy.sluice.io/status"
	// newWeight replaces the default 100 of the "dataset cached on the
	// node" tier.
	newWeight = 80
	// DefaultReloadBound is how soon the next Pod must show a policy
	// change unless Cluster.ReloadBound says otherwise.
	DefaultReloadBound = 2 * time.Second
)

// platformWeights is policy data deep-merged over policies/data.yaml: the
// same tiers with the node tier's weight lowered.
var platformWeights = fmt.Sprintf(`mutating:
  affinity:
    preferred:
      - {name: fluid.io/node, weight: %d}
      - {name: topology.kubernetes.io/zone, weight: 50}
      - {name: topology.kubernetes.io/region, weight: 20}
`, newWeight)

// brokenModule does not compile.
const brokenModule = "package sluice.platform\n\ndeny contains msg if {\n  msg := \n}\n"

// platformPolicy changes the affinity weight through the chart's policy
// ConfigMap and measures how soon the next Pod shows it; then adds a module
// that does not compile, which the webhook reports on the ConfigMap while it
// keeps serving the last good policies.
func (s *story) platformPolicy(ctx context.Context) error {
	cm := &corev1.ConfigMap{}
	key := client.ObjectKey{Namespace: s.Namespace, Name: policyConfigMap}
	if err := s.Client.Get(ctx, key, cm); err != nil {
		return fmt.Errorf("the chart's policy ConfigMap: %w", err)
	}
	patch := client.MergeFrom(cm.DeepCopy())
	cm.Data = map[string]string{"platform.yaml": platformWeights}
	if err := s.Client.Patch(ctx, cm, patch); err != nil {
		return err
	}
	changed := time.Now()
	s.say("ConfigMap %s/%s: the node tier's weight set to %d (was 100)", s.Namespace, policyConfigMap, newWeight)
	want := fmt.Sprintf("weight %d: fluid.io/s-%s-%s", newWeight, ns, dataset)
	var seen []string
	bound := s.ReloadBound
	if bound == 0 {
		bound = DefaultReloadBound
	}
	err := s.waitFor(ctx, bound, fmt.Sprintf("the next Pod to show weight %d", newWeight), func() (bool, string, error) {
		p, err := s.dryRunTrainer(ctx)
		if err != nil {
			return false, "", err
		}
		seen = preferredOn(p)
		return len(seen) > 0 && strings.HasPrefix(seen[0], want), fmt.Sprintf("%v", seen), nil
	})
	if err != nil {
		return err
	}
	s.say("%s after the change, the next Pod is admitted with preferred node affinity (%s)", time.Since(changed).Round(10*time.Millisecond), seen[0])

	patch = client.MergeFrom(cm.DeepCopy())
	cm.Data["broken.rego"] = brokenModule
	if err := s.Client.Patch(ctx, cm, patch); err != nil {
		return err
	}
	s.say("ConfigMap %s/%s: added broken.rego, which does not compile", s.Namespace, policyConfigMap)
	err = s.waitFor(ctx, 10*time.Second, "the webhook to report the compile error", func() (bool, string, error) {
		if err := s.Client.Get(ctx, key, cm); err != nil {
			return false, "", err
		}
		st := cm.Annotations[policyStatus]
		return st != "" && st != "ok", st, nil
	})
	if err != nil {
		return err
	}
	s.say("the webhook rejected it: %s=%q", policyStatus, firstLine(cm.Annotations[policyStatus]))
	p, err := s.dryRunTrainer(ctx)
	if err != nil {
		return err
	}
	if seen = preferredOn(p); len(seen) == 0 || !strings.HasPrefix(seen[0], want) {
		return fmt.Errorf("after the broken policy, a Pod is admitted with %v, not the last good policy's weight %d", seen, newWeight)
	}
	s.say("the last good policies keep serving: the next Pod still gets (%s)", seen[0])

	patch = client.MergeFrom(cm.DeepCopy())
	delete(cm.Data, "broken.rego")
	if err := s.Client.Patch(ctx, cm, patch); err != nil {
		return err
	}
	return s.waitFor(ctx, 10*time.Second, "the policy ConfigMap to be reported ok again", func() (bool, string, error) {
		err := s.Client.Get(ctx, key, cm)
		return err == nil && cm.Annotations[policyStatus] == "ok", cm.Annotations[policyStatus], err
	})
}

// dryRunTrainer sends a copy of the sample Pod "trainer" through admission
// without storing it, and returns what the webhook made of it.
func (s *story) dryRunTrainer(ctx context.Context) (*corev1.Pod, error) {
	p, err := samplePod("trainer")
	if err != nil {
		return nil, err
	}
	p.ObjectMeta = metav1.ObjectMeta{Name: "trainer-probe", Namespace: ns, Labels: p.Labels}
	if err := s.Client.Create(ctx, p, client.DryRunAll); err != nil {
		return nil, err
	}
	return p, nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
