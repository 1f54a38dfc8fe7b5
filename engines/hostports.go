package engines

import (
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// HostPortOf is the port the controller recorded for name in rt's
// status.hostPorts, or def when it recorded none (a runtime rendered
// without the controller's allocation, as in the engines' own tests).
func HostPortOf(rt datav1alpha1.RuntimeObject, name string, def int) int {
	if p, ok := rt.GetRuntimeStatus().HostPorts[name]; ok && p > 0 {
		return int(p)
	}
	return def
}
