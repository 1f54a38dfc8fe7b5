package chart_test

import (
	"errors"
	"flag"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/sluice-data/sluice/controller"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/registry"
	"github.com/sluice-data/sluice/policies"
)

// mirrorValues are an air-gapped install's values: every default image
// from a mirror, one engine image overridden.
const mirrorValues = `imageRegistry: mirror.example.com:5000/hub
engines: {images: {jindo-fuse: "registry.example.com/jindo/fuse:7"}}
policies: {profile: fluid-compatible}
`

// TestImagesFromAMirror: with imageRegistry, every image the chart runs
// comes from the mirror; the controller is given the registry and the
// engine override as flags it accepts (and its engines run them); and
// the policy ConfigMap admits the mirrored and overridden default images
// wherever the profile's own are admitted, in data the webhook loads.
func TestImagesFromAMirror(t *testing.T) {
	objs := render(t, parseValues(t, mirrorValues))
	var images []string
	for _, o := range objs {
		for _, f := range [][]string{{"spec", "template", "spec", "containers"}, {"spec", "template", "spec", "initContainers"}} {
			cs, _, _ := unstructuredSlice(o.Object, f...)
			for _, c := range cs {
				images = append(images, c["image"].(string))
			}
		}
	}
	if len(images) < 4 {
		t.Fatalf("only %d containers rendered", len(images))
	}
	for _, img := range images {
		if !strings.HasPrefix(img, "mirror.example.com:5000/hub/") {
			t.Errorf("image %s is not from the mirror", img)
		}
	}
	for _, want := range []string{"mirror.example.com:5000/hub/sluice-data/sluice:", "mirror.example.com:5000/hub/sig-storage/csi-node-driver-registrar:"} {
		if !slices.ContainsFunc(images, func(s string) bool { return strings.HasPrefix(s, want) }) {
			t.Errorf("no image %s...: %v", want, images)
		}
	}

	args := strs(t, container(t, find(t, objs, "Deployment", "sluice-controller"), "controller"), "args")
	var got engines.Images
	noCluster := errors.New("no cluster in this test")
	cmd := controller.NewCommand(func() (*rest.Config, error) { return nil, noCluster }, func(_ string, images engines.Images) ([]engines.Engine, error) {
		got = images
		return nil, registry.CheckImages(images)
	})
	zapFlags := flag.NewFlagSet("zap", flag.ContinueOnError)
	(&zap.Options{}).BindFlags(zapFlags)
	cmd.Flags().AddGoFlagSet(zapFlags)
	cmd.SetArgs(args[1:])
	// RunE builds the engines before it connects: with no cluster it
	// fails after them, so the images it was given can be read.
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	if err := cmd.Execute(); !errors.Is(err, noCluster) {
		t.Fatalf("sluice controller %s: %v, images %+v", strings.Join(args[1:], " "), err, got)
	}
	if got.Registry != "mirror.example.com:5000/hub" || got.Overrides["jindo-fuse"] != "registry.example.com/jindo/fuse:7" || len(got.Overrides) != 1 {
		t.Errorf("the controller was given images %+v", got)
	}

	cm := find(t, objs, "ConfigMap", "sluice-policies")
	var typed corev1.ConfigMap
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(cm.Object, &typed); err != nil {
		t.Fatal(err)
	}
	base, err := policies.DefaultData("fluid-compatible")
	if err != nil {
		t.Fatal(err)
	}
	data, skipped := policies.OverlayData(base, []corev1.ConfigMap{typed})
	if len(skipped) > 0 {
		t.Fatalf("the webhook would skip the policy ConfigMap: %v", skipped)
	}
	prefixes := guardPrefixes(t, data)
	defaults := guardPrefixes(t, base)
	for _, p := range defaults {
		if !slices.Contains(prefixes, p) {
			t.Errorf("the profile's prefix %s is no longer admitted", p)
		}
	}
	for _, d := range registry.DefaultImages() {
		repo, _ := got.Resolve(d)
		if !admitted(prefixes, repo) {
			t.Errorf("default image %s (%s) is not admitted by %v", d.Name, repo, prefixes)
		}
	}
	if admitted(prefixes, "mirror.example.com:5000/hub/someone/else") {
		t.Errorf("the mirror is admitted whole: %v", prefixes)
	}
}

// TestEngineImageNamesAreTheEngines: the schema's names of engine images
// are the engines' default images, and a wrong name or reference fails
// the install naming the value.
func TestEngineImageNamesAreTheEngines(t *testing.T) {
	var names []string
	for _, d := range registry.DefaultImages() {
		names = append(names, d.Name)
	}
	for _, n := range names {
		if _, err := dryRun(loadChart(t), parseValues(t, "engines: {images: {"+n+": registry.example.com/x:1}}"), namespace); err != nil {
			t.Errorf("engines.images.%s: %v", n, err)
		}
	}
	for values, want := range map[string]string{
		// (the schema library names the instance location of a
		// propertyNames error unreliably; the name is in the message)
		`engines: {images: {juicefs-ee: registry.example.com/x:1}}`: "invalid propertyName 'juicefs-ee'",
		`engines: {images: {juicefs: "registry.example.com/x y"}}`:  "/engines/images/juicefs",
		`imageRegistry: "https://mirror.example.com"`:               "/imageRegistry",
	} {
		_, err := dryRun(loadChart(t), parseValues(t, values), namespace)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error naming %s", values, err, want)
		}
	}
}

// admitted says whether a repository is equal to or under a prefix, as
// the guards judge it (policies/validating/guards.rego).
func admitted(prefixes []string, repo string) bool {
	for _, p := range prefixes {
		p = strings.TrimSuffix(p, "/")
		if repo == p || strings.HasPrefix(repo, p+"/") {
			return true
		}
	}
	return false
}

func guardPrefixes(t *testing.T, data map[string]any) []string {
	t.Helper()
	v, ok := data["validating"].(map[string]any)["guards"].(map[string]any)["*"].(map[string]any)["imagePrefixes"].([]any)
	if !ok {
		t.Fatalf("no validating.guards.*.imagePrefixes in %v", data["validating"])
	}
	var out []string
	for _, p := range v {
		out = append(out, p.(string))
	}
	return out
}

func unstructuredSlice(obj map[string]any, fields ...string) ([]map[string]any, bool, error) {
	var cur any = obj
	for _, f := range fields {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false, nil
		}
		cur = m[f]
	}
	list, _ := cur.([]any)
	var out []map[string]any
	for _, x := range list {
		if m, ok := x.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out, len(list) > 0, nil
}
