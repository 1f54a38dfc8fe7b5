package claim

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/policies"
)

// PolicyTable is the conflict table of the policy data in Namespaces, for
// the controller's claims: the default policy data with the data of the
// policy ConfigMaps (label policy.sluice.io/bundle=true) of the webhook's
// policy namespaces merged over it, read from the API server at each
// claim (reliability audit L7: the controller followed the embedded
// defaults only).
type PolicyTable struct {
	// Reader lists the policy ConfigMaps (the API server, not a cache: a
	// claim follows the table as it is now).
	Reader client.Reader
	// Namespaces are the webhook's policy namespaces (--policy-namespaces);
	// none: the default table alone.
	Namespaces []string
	// Default is the default policy data (policies.DefaultData).
	Default map[string]any
}

// For returns the kinds that block kind.
func (t *PolicyTable) For(ctx context.Context, kind string) ([]string, error) {
	data, err := t.Data(ctx)
	if err != nil {
		return nil, err
	}
	table, err := TableFrom(data)
	if err != nil {
		return nil, errors.New("the operation conflict table of the policy data: " + err.Error())
	}
	return table[kind], nil
}

// Data is the policy data as the webhook serves it: the default data with
// the policy ConfigMaps of Namespaces over it. A policy ConfigMap the
// webhook reports it rejected (policies.Rejected) counts with its last
// good data (policies.LastGood), as the webhook serves it, or is left out
// when it has none; one whose data does not parse is left out.
func (t *PolicyTable) Data(ctx context.Context) (map[string]any, error) {
	var cms []corev1.ConfigMap
	for _, ns := range t.Namespaces {
		list := &corev1.ConfigMapList{}
		if err := t.Reader.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{policies.BundleLabel: "true"}); err != nil {
			return nil, fmt.Errorf("reading the policy ConfigMaps of %s: %w", ns, err)
		}
		for _, cm := range list.Items {
			if !policies.Rejected(&cm) {
				cms = append(cms, cm)
			} else if restored, ok := policies.LastGood(cm); ok {
				cms = append(cms, restored)
			}
		}
	}
	data, _ := policies.OverlayData(t.Default, cms)
	return data, nil
}
