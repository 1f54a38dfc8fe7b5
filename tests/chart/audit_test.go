package chart_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/tests/support/chartrender"
)

// TestAuditIsOptIn: by default the chart renders nothing of the audit; with
// audit.enabled the webhook gets its flags, the right to list Pods, write
// PolicyReports and hold its Lease, and the report CRDs unless
// audit.installCRDs is false.
func TestAuditIsOptIn(t *testing.T) {
	kinds := func(vals map[string]any) (crds []string, auditRoles int, args []string) {
		t.Helper()
		objs := render(t, vals)
		for _, o := range objs {
			switch {
			case o.GetKind() == "CustomResourceDefinition" && strings.HasSuffix(o.GetName(), ".wgpolicyk8s.io"):
				if o.GetAnnotations()["helm.sh/resource-policy"] != "keep" {
					t.Errorf("CRD %s would be deleted with the release, and every report with it", o.GetName())
				}
				crds = append(crds, o.GetName())
			case (o.GetKind() == "ClusterRole" || o.GetKind() == "Role") && o.GetName() == "sluice-webhook-audit":
				auditRoles++
			}
		}
		c := container(t, find(t, objs, "Deployment", "sluice-webhook"), "webhook")
		for _, a := range c["args"].([]any) {
			if s := a.(string); strings.HasPrefix(s, "--audit-") {
				args = append(args, s)
			}
		}
		slices.Sort(crds)
		return crds, auditRoles, args
	}
	if crds, roles, args := kinds(nil); len(crds) != 0 || roles != 0 || len(args) != 0 {
		t.Fatalf("default values render audit objects: CRDs %v, roles %d, args %v", crds, roles, args)
	}
	on := map[string]any{
		"audit":   map[string]any{"enabled": true, "interval": "2m", "qps": 2.5},
		"webhook": map[string]any{"excludeNamespaces": []any{"legacy"}},
	}
	crds, roles, args := kinds(on)
	if !slices.Equal(crds, []string{"clusterpolicyreports.wgpolicyk8s.io", "policyreports.wgpolicyk8s.io"}) || roles != 2 ||
		!slices.Equal(args, []string{"--audit-interval=2m", "--audit-qps=2.5", "--audit-page-size=100", "--audit-skip-namespaces=kube-system,sluice-system,legacy"}) {
		t.Fatalf("audit.enabled: CRDs %v, roles %d, args %v", crds, roles, args)
	}
	on["audit"].(map[string]any)["installCRDs"] = false
	if crds, _, _ := kinds(on); len(crds) != 0 {
		t.Fatalf("audit.installCRDs=false still installs %v", crds)
	}
	if _, err := chartrender.Render(map[string]any{"audit": map[string]any{"enabled": true, "interval": "often"}}, "sluice-system"); err == nil ||
		!strings.Contains(err.Error(), "interval") {
		t.Fatalf("an interval that is not a duration: %v", err)
	}
}
