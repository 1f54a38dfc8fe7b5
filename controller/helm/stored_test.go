package helm

import (
	"context"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/release"
)

// TestStoredRecordsNameOnlyTheReleasesObjects: a release record edited in
// its namespace to name a ConfigMap of another namespace and a cluster
// role binding loses them before Helm upgrades, rolls back or uninstalls
// from it (stored.go); the release's own object stays.
func TestStoredRecordsNameOnlyTheReleasesObjects(t *testing.T) {
	ctx := context.Background()
	forged := "\n---\n# Source: demo/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: victim\n  namespace: team-c\n" +
		"---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: takeover\n"
	for _, action := range []string{"upgrade", "rollback", "uninstall"} {
		t.Run(action, func(t *testing.T) {
			c := NewMemoryClient("team-b", nil)
			if _, err := c.Install(ctx, "logs", Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": 1}}); err != nil {
				t.Fatal(err)
			}
			if action == "rollback" {
				if _, err := c.Upgrade(ctx, "logs", Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": 2}}); err != nil {
					t.Fatal(err)
				}
			}
			history, err := c.history("logs")
			if err != nil {
				t.Fatal(err)
			}
			for _, rel := range history {
				rel.Manifest += forged
				if err := c.cfg.Releases.Update(rel); err != nil {
					t.Fatal(err)
				}
			}
			switch action {
			case "upgrade":
				_, err = c.Upgrade(ctx, "logs", Desired{Chart: demoChart("0.1.0"), Values: map[string]any{"replicas": 3}})
			case "rollback":
				// A failed upgrade is what a rollback follows.
				var history []*release.Release
				if history, err = c.history("logs"); err == nil {
					history[0].Info.Status = release.StatusFailed
					if err = c.cfg.Releases.Update(history[0]); err == nil {
						_, err = c.rollback(ctx, "logs", history)
					}
				}
			case "uninstall":
				// Uninstall purges the records: sanitise them as it does
				// and look before they go.
				if history, err = c.history("logs"); err == nil {
					err = c.trustStored("logs", history)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			history, err = c.history("logs")
			if err != nil || len(history) == 0 {
				t.Fatalf("history: %d revisions, %v", len(history), err)
			}
			for _, rel := range history {
				if strings.Contains(rel.Manifest, "victim") || strings.Contains(rel.Manifest, "takeover") {
					t.Errorf("revision %d still names the forged objects:\n%s", rel.Version, rel.Manifest)
				}
				if !strings.Contains(rel.Manifest, "kind: ConfigMap\nmetadata:\n  name: logs") {
					t.Errorf("revision %d lost the release's own ConfigMap:\n%s", rel.Version, rel.Manifest)
				}
			}
			if action == "uninstall" {
				if _, err := c.UninstallChart("logs", "demo"); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
