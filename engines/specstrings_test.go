package engines_test

import (
	"errors"
	"strings"
	"testing"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

func TestSpecStringChecks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		err   error
		field string // "" when the check passes
	}{
		{"pull policies Kubernetes knows", errors.Join(engines.CheckPullPolicy("p", "Always"), engines.CheckPullPolicy("p", "IfNotPresent"),
			engines.CheckPullPolicy("p", "Never"), engines.CheckPullPolicy("p", "")), ""},
		{"another pull policy", engines.CheckPullPolicy("spec.fuse.imagePullPolicy", "always"), "spec.fuse.imagePullPolicy"},
		{"a pull policy with a document after it", engines.CheckPullPolicy("p", "Always\n---\nkind: Secret"), "p"},
		{"one line", engines.CheckLine("f", `a b "c" $(d) {{ e }} é`), ""},
		{"a line break", engines.CheckLine("spec.x", "a\nb"), "spec.x"},
		{"a carriage return", engines.CheckLine("f", "a\rb"), "f"},
		{"NUL", engines.CheckLine("f", "a\x00"), "f"},
		{"DEL", engines.CheckLine("f", "a\x7f"), "f"},
		{"NEL", engines.CheckLine("f", "a\u0085"), "f"},
		{"a line separator", engines.CheckLine("f", "a\u2028b"), "f"},
		{"a version", engines.CheckVersion("spec.v", datav1alpha1.VersionSpec{Image: "r/i", ImageTag: "1", ImagePullPolicy: "Always"}), ""},
		{"a version's image", engines.CheckVersion("spec.v", datav1alpha1.VersionSpec{Image: "r/i\n"}), "spec.v.image"},
		{"a version's tag", engines.CheckVersion("spec.v", datav1alpha1.VersionSpec{ImageTag: "1\t"}), "spec.v.imageTag"},
		{"a version's policy", engines.CheckVersion("spec.v", datav1alpha1.VersionSpec{ImagePullPolicy: "Sometimes"}), "spec.v.imagePullPolicy"},
		{"options", engines.CheckOptions("o", map[string]string{"a": "b; c", "d": ""}), ""},
		{"an empty option name", engines.CheckOptions("spec.o", map[string]string{"": "b"}), "spec.o"},
		{"a flag as option name", engines.CheckOptions("spec.o", map[string]string{"-x": "b"}), `spec.o: option name "-x"`},
		{"a line break in an option name", engines.CheckOptions("spec.o", map[string]string{"a\n": "b"}), "spec.o"},
		{"a line break in an option value", engines.CheckOptions("spec.o", map[string]string{"a": "b\n"}), `spec.o["a"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.field == "" {
				if tc.err != nil {
					t.Fatalf("refused: %v", tc.err)
				}
				return
			}
			var e *engines.Error
			if !errors.As(tc.err, &e) || e.Reason != engines.ReasonInvalidSpec || !strings.Contains(e.Error(), tc.field) {
				t.Fatalf("error %v, want InvalidSpec naming %s", tc.err, tc.field)
			}
		})
	}
}
