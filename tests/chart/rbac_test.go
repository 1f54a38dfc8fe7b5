package chart_test

import (
	"slices"
	"testing"
)

// TestLeastPrivilegeController checks, in every golden case, the two places
// where the controller's rules used to be wider than it needs: the
// leader-election lease is granted only in the release namespace, by a Role
// (get and update on the controller's own lease by name, and create), and
// Secrets only with the verbs of Helm's secret storage driver, which keeps
// the engines' release records in runtimes' namespaces (never watch or
// patch).
func TestLeastPrivilegeController(t *testing.T) {
	helmStorage := []string{"create", "delete", "get", "list", "update"}
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			objs := render(t, parseValues(t, tc.values))
			var leaseRules []map[string]any
			for _, o := range objs {
				if o.GetKind() != "Role" && o.GetKind() != "ClusterRole" {
					continue
				}
				for _, r := range rulesOf(t, o) {
					resources := strs(t, r, "resources")
					if slices.Contains(resources, "leases") {
						if o.GetKind() != "Role" || o.GetNamespace() != namespace {
							t.Errorf("%s %s/%s grants leases outside the release namespace: %v", o.GetKind(), o.GetNamespace(), o.GetName(), r)
						}
						if o.GetName() == "sluice-controller" {
							leaseRules = append(leaseRules, r)
						}
					}
					if o.GetName() == "sluice-controller" && slices.Contains(resources, "secrets") {
						if len(resources) != 1 {
							t.Errorf("%s sluice-controller grants Secrets together with %v: give Secrets a rule of their own", o.GetKind(), resources)
						}
						if verbs := sorted(strs(t, r, "verbs")); !slices.Equal(verbs, helmStorage) {
							t.Errorf("%s sluice-controller grants Secrets %v, want Helm's storage driver's %v", o.GetKind(), verbs, helmStorage)
						}
					}
				}
			}
			var named, create bool
			for _, r := range leaseRules {
				verbs := sorted(strs(t, r, "verbs"))
				switch names := strs(t, r, "resourceNames"); {
				case slices.Equal(verbs, []string{"create"}) && len(names) == 0:
					create = true
				case slices.Equal(verbs, []string{"get", "update"}) && slices.Equal(names, []string{"sluice-controller.data.fluid.io"}):
					named = true
				default:
					t.Errorf("unexpected lease rule for the controller: %v", r)
				}
			}
			if !create || !named {
				t.Errorf("the controller's Role lets it create its lease (%v) and get and update it by name (%v); want both", create, named)
			}
		})
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
