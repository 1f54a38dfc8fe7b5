package juicefs_test

import (
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/juicefs"
)

// TestPullPolicyCannotStartAnotherObject is the audit's proof test (H1): a
// pull policy carrying a YAML document separator and a kube-system
// ConfigMap must be refused by Values, naming the field, instead of
// rendering a second object.
func TestPullPolicyCannotStartAnotherObject(t *testing.T) {
	ds, rt := sample()
	rt.Spec.Fuse.ImagePullPolicy = "IfNotPresent\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: pwned, namespace: kube-system}"
	_, err := juicefs.Engine{}.Values(ds, rt)
	enginetest.WantInvalid(t, err, "spec.fuse.imagePullPolicy")
}

// TestOptionValueIsOneArgument: an option value that a shell would split
// into two commands reaches juicefs as one argument, after the kubelet's
// expansion, in the worker and in FUSE, and no other argument (FUSE's
// constant unmount script included) holds it.
func TestOptionValueIsOneArgument(t *testing.T) {
	ds, rt := sample()
	rt.Spec.Worker.Options = map[string]string{"custom-labels": "a; touch /tmp/pwned"}
	rt.Spec.Fuse.Options = map[string]string{"custom-labels": "a; touch /tmp/pwned"}
	out := render(t, ds, rt)
	worker := enginetest.Decode[appsv1.StatefulSet](t, out, "templates/worker-statefulset.yaml").Spec.Template.Spec.Containers[0]
	fuse := enginetest.Decode[appsv1.DaemonSet](t, out, "templates/fuse-daemonset.yaml").Spec.Template.Spec.Containers[0]
	for _, c := range []struct {
		name string
		argv []string
	}{{"worker", argv(worker)}, {"FUSE", argv(fuse)}} {
		i := slices.Index(c.argv, "--custom-labels=a; touch /tmp/pwned")
		holding := slices.DeleteFunc(slices.Clone(c.argv), func(a string) bool { return !strings.Contains(a, "touch") })
		if i < 1 || len(holding) != 1 || slices.Index(c.argv, "juicefs") > i {
			t.Errorf("%s argv %q: want \"--custom-labels=a; touch /tmp/pwned\" as one argument of juicefs, and in no other argument", c.name, c.argv)
		}
	}
}
