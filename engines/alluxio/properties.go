package alluxio

import (
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/sluice-data/sluice/engines"
)

// propertyKey is what Sluice accepts as an alluxio-site property or mount
// option name: Alluxio's dotted names, which need no escaping in a
// .properties file and no quoting in a shell word.
var propertyKey = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// checkKeys rejects property names that cannot be written as they are;
// field names the map in the error, e.g. spec.master.properties.
func checkKeys(field string, m map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !propertyKey.MatchString(k) {
			return engines.Invalid("%s: %q is not a property name (letters, digits, '.', '_' and '-' only)", field, k)
		}
	}
	return nil
}

// escaped returns the properties with their values escaped for a Java
// .properties file, ready to be written as "key=value" lines.
func escaped(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = escapeValue(v)
	}
	return out
}

// escapeValue escapes a .properties value: backslashes, line breaks, tabs
// and a leading space, which the format would otherwise eat.
func escapeValue(v string) string {
	v = strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\r", `\r`, "\t", `\t`, "\f", `\f`).Replace(v)
	if strings.HasPrefix(v, " ") {
		v = `\` + v
	}
	return v
}
