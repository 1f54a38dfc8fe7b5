package helm

import (
	"context"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// chartOf is a chart of the templates (file name: text), which render as
// they are.
func chartOf(version string, templates map[string]string) *chart.Chart {
	c := &chart.Chart{Metadata: &chart.Metadata{APIVersion: "v2", Name: "guarded", Version: version}}
	for name, text := range templates {
		c.Templates = append(c.Templates, &chart.File{Name: "templates/" + name, Data: []byte(text)})
	}
	return c
}

const (
	ownConfigMap     = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: own\n  namespace: team-a\n"
	defaultedWorkers = "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: workers\nspec:\n  serviceName: workers\n"
)

// TestGuardRefusesObjectsOutsideTheRelease installs charts through the
// Helm SDK (in-memory storage) and checks that a release holding an object
// in another namespace, a cluster-scoped object or an object of a kind no
// engine chart creates is refused as a whole before anything is created,
// while the kinds engine charts render, in the release's namespace or in
// none, install.
func TestGuardRefusesObjectsOutsideTheRelease(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		templates map[string]string
		refused   string // "" when the release installs
	}{
		{"engine kinds in the release's namespace or none", map[string]string{"cm.yaml": ownConfigMap, "sts.yaml": defaultedWorkers,
			"more.yaml": "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: team-a}\n" +
				"---\n# only a comment\n---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\n---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\n"}, ""},
		{"a kube-system object", map[string]string{"cm.yaml": ownConfigMap,
			"pwned.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: pwned, namespace: kube-system}\n"}, `ConfigMap "pwned" is in namespace "kube-system"`},
		{"a kube-system object after a document separator in a value", map[string]string{
			"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: own\ndata:\n  policy: IfNotPresent\n---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: x, namespace: kube-system}\n"},
			`DaemonSet.apps "x" is in namespace "kube-system"`},
		{"a cluster-scoped object", map[string]string{"cm.yaml": ownConfigMap,
			"crb.yaml": "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: pwned}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}\n"},
			`ClusterRoleBinding.rbac.authorization.k8s.io "pwned" is not of a kind engine charts create`},
		{"a hostPath PersistentVolume", map[string]string{"pv.yaml": "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: root, namespace: team-a}\nspec: {hostPath: {path: /}}\n"},
			`PersistentVolume "root" is not of a kind`},
		{"a kind engine charts never create, in the namespace", map[string]string{"sa.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: token, namespace: team-a}\ntype: kubernetes.io/service-account-token\n"},
			`Secret "token" is not of a kind`},
		{"a List hiding objects", map[string]string{"list.yaml": "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: x, namespace: kube-system}\n"},
			`List "" is not of a kind`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewMemoryClient("team-a", nil)
			_, err := c.Install(ctx, "r", Desired{Chart: chartOf("0.1.0", tc.templates)})
			if tc.refused == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.refused) {
				t.Fatalf("install error %v, want one saying %s", err, tc.refused)
			}
			if rel, err := c.Latest("r"); err != nil || rel != nil {
				t.Errorf("a refused install left release %+v (%v)", rel, err)
			}
		})
	}
}

// TestGuardRefusesAnUpgrade: an upgrade that would add an object outside
// the release is refused and the deployed revision stays.
func TestGuardRefusesAnUpgrade(t *testing.T) {
	ctx := context.Background()
	c := NewMemoryClient("team-a", nil)
	if _, err := c.Install(ctx, "r", Desired{Chart: chartOf("0.1.0", map[string]string{"cm.yaml": ownConfigMap})}); err != nil {
		t.Fatal(err)
	}
	bad := chartOf("0.2.0", map[string]string{"cm.yaml": ownConfigMap, "x.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: kube-system}\n"})
	if _, err := c.Upgrade(ctx, "r", Desired{Chart: bad}); err == nil || !strings.Contains(err.Error(), "kube-system") {
		t.Fatalf("upgrade error %v, want the kube-system object refused", err)
	}
	if rel, _ := c.Latest("r"); rel == nil || rel.Version != 1 || rel.Info.Status != release.StatusDeployed {
		t.Fatalf("after a refused upgrade the latest revision is %+v, want revision 1 deployed", rel)
	}
}

// TestGuardKindsAreConfigurable: AllowedKinds replaces EngineKinds.
func TestGuardKindsAreConfigurable(t *testing.T) {
	c := NewMemoryClient("team-a", nil)
	c.AllowedKinds = []schema.GroupKind{{Kind: "ConfigMap"}}
	_, err := c.Install(context.Background(), "r", Desired{Chart: chartOf("0.1.0", map[string]string{"cm.yaml": ownConfigMap, "sts.yaml": defaultedWorkers})})
	if err == nil || !strings.Contains(err.Error(), `StatefulSet.apps "workers" is not of a kind engine charts create (ConfigMap)`) {
		t.Fatalf("install error %v, want the StatefulSet refused", err)
	}
}

// TestHooksDoNotRun: hooks bypass post-renderers, so releases run none; a
// hook in another namespace is recorded but never created.
func TestHooksDoNotRun(t *testing.T) {
	hook := "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: h\n  namespace: kube-system\n  annotations: {\"helm.sh/hook\": pre-install}\n"
	c := NewMemoryClient("team-a", nil)
	rel, err := c.Install(context.Background(), "r", Desired{Chart: chartOf("0.1.0", map[string]string{"cm.yaml": ownConfigMap, "hook.yaml": hook})})
	if err != nil {
		t.Fatal(err)
	}
	if len(rel.Hooks) != 1 || rel.Hooks[0].LastRun.Phase != "" {
		t.Fatalf("hooks %+v: want the one hook recorded and never run", rel.Hooks)
	}
}
