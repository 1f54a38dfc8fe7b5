package guards

import (
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/registry"
)

// optionTierPaths are the host directories a runtime's options name for
// its cache (audit N5: JuiceFS's cache-dir in spec.worker.options and
// spec.fuse.options), each at its option's field, judged like hostPath
// tier paths. The other engines refuse the properties that would place
// a cache (their field tables), and ThinRuntime options name no node
// directory.
func optionTierPaths(obj client.Object) []Value {
	var out []Value
	for _, c := range registry.OptionCaches(obj) {
		for _, d := range c.HostDirs {
			out = append(out, Value{Path: c.DirField, Value: d, HostPath: true})
		}
	}
	return out
}

// tierPaths splits a level's path as the runtime's engine does: on ','
// and, for JuiceFS (whose --cache-dir separates directories with ':'), on
// ':' too, so that every directory the engine mounts is judged on its own.
func tierPaths(obj client.Object, path string) []string {
	if _, ok := obj.(*datav1alpha1.JuiceFSRuntime); ok {
		path = strings.ReplaceAll(path, ":", ",")
	}
	return datav1alpha1.SplitList(path)
}
