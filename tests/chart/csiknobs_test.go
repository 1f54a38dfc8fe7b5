package chart_test

import (
	"flag"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/sluice-data/sluice/csi"
	"github.com/sluice-data/sluice/webhook"
)

// parsedArgs parses a container's args (after the subcommand) with the
// flags of cmd, as the root command would (logging flags included).
func parsedArgs(t *testing.T, cmd *cobra.Command, args []string) *cobra.Command {
	t.Helper()
	zapFlags := flag.NewFlagSet("zap", flag.ContinueOnError)
	(&zap.Options{}).BindFlags(zapFlags)
	cmd.Flags().AddGoFlagSet(zapFlags)
	if err := cmd.Flags().Parse(args[1:]); err != nil {
		t.Fatalf("sluice %s: %v", strings.Join(args, " "), err)
	}
	return cmd
}

// hostPaths are the hostPath volumes of a workload, name -> path.
func hostPaths(o *unstructured.Unstructured) map[string]string {
	vols, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "volumes")
	out := map[string]string{}
	for _, v := range vols {
		if p, ok, _ := unstructured.NestedString(v.(map[string]any), "hostPath", "path"); ok {
			out[v.(map[string]any)["name"].(string)] = p
		}
	}
	return out
}

// TestServerlessAndCSIKnobsReachTheirFlags (issue 32, point 9): the
// values csi.nodePublishMethod, csi.updatedb and webhook.disableInjection
// become flags `sluice csi` and `sluice webhook` accept, with the values
// set; updatedb mounts the node's /etc, and only then. By default none of
// them is passed (bind publish, updatedb.conf untouched, injection on).
func TestServerlessAndCSIKnobsReachTheirFlags(t *testing.T) {
	objs := render(t, parseValues(t, `{csi: {nodePublishMethod: symlink, updatedb: {enabled: true, pruneFs: [fuse.juicefs, ossfs]}}, webhook: {disableInjection: true}}`))
	ds := find(t, objs, "DaemonSet", "sluice-csi")
	cmd := parsedArgs(t, csi.NewCommand(nil), strs(t, container(t, ds, "plugin"), "args"))
	prune, _ := cmd.Flags().GetStringSlice("prune-fs")
	for flagName, want := range map[string]string{"node-publish-method": "symlink", "updatedb-conf": "/host-etc/updatedb.conf"} {
		if got, _ := cmd.Flags().GetString(flagName); got != want {
			t.Errorf("sluice csi --%s=%q, want %q", flagName, got, want)
		}
	}
	if !slices.Equal(prune, []string{"fuse.juicefs", "ossfs"}) {
		t.Errorf("sluice csi --prune-fs=%v", prune)
	}
	if p := hostPaths(ds)["host-etc"]; p != "/etc" {
		t.Errorf("with updatedb, the host's /etc is not mounted: %v", hostPaths(ds))
	}
	wcmd := parsedArgs(t, webhook.NewCommand(nil), strs(t, container(t, find(t, objs, "Deployment", "sluice-webhook"), "webhook"), "args"))
	if off, _ := wcmd.Flags().GetBool("disable-injection"); !off {
		t.Error("webhook.disableInjection did not reach --disable-injection")
	}

	defaults := render(t, nil)
	ds = find(t, defaults, "DaemonSet", "sluice-csi")
	for _, a := range strs(t, container(t, ds, "plugin"), "args") {
		if strings.HasPrefix(a, "--node-publish-method") || strings.HasPrefix(a, "--updatedb-conf") || strings.HasPrefix(a, "--prune-fs") {
			t.Errorf("by default the plugin gets %s", a)
		}
	}
	if _, ok := hostPaths(ds)["host-etc"]; ok {
		t.Error("by default the host's /etc is mounted into the plugin")
	}
	for _, a := range strs(t, container(t, find(t, defaults, "Deployment", "sluice-webhook"), "webhook"), "args") {
		if strings.HasPrefix(a, "--disable-injection") {
			t.Errorf("by default the webhook gets %s", a)
		}
	}

	for values, path := range map[string]string{
		`csi: {nodePublishMethod: copy}`:                     "/csi/nodePublishMethod",
		`csi: {updatedb: {pruneFs: ["fuse.a,fuse.b"]}}`:      "/csi/updatedb/pruneFs/0",
		`webhook: {disableInjection: "yes"}`:                 "/webhook/disableInjection",
		`csi: {updatedb: {enabled: true, prunePaths: [/x]}}`: "prunePaths",
	} {
		if _, err := dryRun(loadChart(t), parseValues(t, values), namespace); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("values %s: %v, want the schema to refuse %s", values, err, path)
		}
	}
}
