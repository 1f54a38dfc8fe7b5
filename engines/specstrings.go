package engines

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// The checks below refuse spec strings that no engine could pass on
// unchanged: the charts render every value as data (quoted or
// structured), so these are not what keeps a manifest whole, but a line
// break or a flag-like option name in an image, a path or a command-line
// argument is never what the user meant, and refusing it names the field.

// CheckPullPolicy refuses an imagePullPolicy other than Always,
// IfNotPresent and Never; "" (the default) passes. field names it in the
// error, e.g. spec.fuse.imagePullPolicy.
func CheckPullPolicy(field, p string) error {
	switch corev1.PullPolicy(p) {
	case "", corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
		return nil
	}
	return Invalid("%s: %q is not Always, IfNotPresent or Never", field, p)
}

// CheckLine refuses a string with a control character (a line break, a
// tab, NUL...) or a Unicode line or paragraph separator.
func CheckLine(field, s string) error {
	if i := strings.IndexFunc(s, notOnOneLine); i >= 0 {
		return Invalid("%s: %q holds the control character %U at byte %d", field, s, []rune(s[i:])[0], i)
	}
	return nil
}

func notOnOneLine(r rune) bool {
	return unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp)
}

// CheckVersion checks an image, its tag and its pull policy; field is the
// struct holding them, e.g. spec.juicefsVersion.
func CheckVersion(field string, v datav1alpha1.VersionSpec) error {
	if err := CheckLine(field+".image", v.Image); err != nil {
		return err
	}
	if err := CheckLine(field+".imageTag", v.ImageTag); err != nil {
		return err
	}
	return CheckPullPolicy(field+".imagePullPolicy", v.ImagePullPolicy)
}

// CheckOptions checks options that become command-line arguments: a name
// is not empty and does not start with "-" (it would read as a flag of its
// own), and neither names nor values hold control characters. field names
// the map, e.g. spec.worker.options.
func CheckOptions(field string, opts map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		if k == "" || strings.HasPrefix(k, "-") {
			return Invalid("%s: option name %q may not be empty or start with -", field, k)
		}
		if err := CheckLine(fmt.Sprintf("%s[%q]", field, k), k); err != nil {
			return err
		}
		if err := CheckLine(fmt.Sprintf("%s[%q]", field, k), opts[k]); err != nil {
			return err
		}
	}
	return nil
}
