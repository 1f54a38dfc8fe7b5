package buildinfo

import (
	"errors"
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
)

// version and revision are set at link time with -ldflags "-X
// github.com/sluice-data/sluice/internal/buildinfo.version=..." (and
// .revision), as the Makefile does.
var version, revision = "", ""

// Version is the version set at link time, else the module version the Go
// toolchain recorded, else "dev".
func Version() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}

// Revision is the revision set at link time, else the VCS revision the Go
// toolchain recorded (vcs.revision, with "-dirty" when the tree was
// modified), else "unknown" (a build with -buildvcs=false or outside a
// repository).
func Revision() string {
	if revision != "" {
		return revision
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	switch {
	case rev == "":
		return "unknown"
	case dirty:
		return rev + "-dirty"
	}
	return rev
}

// MetricName is the build-info metric's name.
const MetricName = "sluice_build_info"

// Collector returns the gauge sluice_build_info{version, revision,
// goversion, component} = 1 for one component ("controller", "webhook",
// "csi"), to register with the registry its metrics endpoint serves.
func Collector(component string) prometheus.Collector {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: MetricName,
		Help: "1, labelled with the Sluice version, VCS revision and Go version of this component's build.",
		ConstLabels: prometheus.Labels{
			"version": Version(), "revision": Revision(), "goversion": runtime.Version(), "component": component,
		},
	})
	g.Set(1)
	return g
}

// Register registers the component's build-info gauge with reg. A gauge
// already registered for the same component (a second manager in one
// process, as tests run) is left as it is.
func Register(reg prometheus.Registerer, component string) error {
	err := reg.Register(Collector(component))
	if are, ok := errors.AsType[prometheus.AlreadyRegisteredError](err); ok && are.ExistingCollector != nil {
		return nil
	}
	return err
}
