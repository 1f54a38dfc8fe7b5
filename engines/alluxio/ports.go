package alluxio

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/sluice-data/sluice/engines"
)

// Alluxio's default ports. The master's web port serves the Prometheus page
// the controller scrapes; spec.master.ports.web moves it, and the container
// port named "metrics" follows.
const (
	MasterRPCPort = 19998
	MasterWebPort = 19999
	// MetricsPort is the default port of the leading master's metrics page
	// (the master web port).
	MetricsPort = MasterWebPort
)

// portDef is one port a component listens on: its name in the runtime's
// ports map, its default, and the property that sets it.
type portDef struct {
	name     string
	def      int
	property string
}

var (
	masterPortDefs = []portDef{
		{"rpc", MasterRPCPort, "alluxio.master.rpc.port"},
		{"web", MasterWebPort, "alluxio.master.web.port"},
		{"embedded", 19200, "alluxio.master.embedded.journal.port"},
	}
	jobMasterPortDefs = []portDef{
		{"rpc", 20001, "alluxio.job.master.rpc.port"},
		{"web", 20002, "alluxio.job.master.web.port"},
		{"embedded", 20003, "alluxio.job.master.embedded.journal.port"},
	}
	workerPortDefs = []portDef{
		{"rpc", 29999, "alluxio.worker.rpc.port"},
		{"web", 30000, "alluxio.worker.web.port"},
	}
	jobWorkerPortDefs = []portDef{
		{"rpc", 30001, "alluxio.job.worker.rpc.port"},
		{"data", 30002, "alluxio.job.worker.data.port"},
		{"web", 30003, "alluxio.job.worker.web.port"},
	}
)

// resolvePorts applies a component's ports map (spec.<component>.ports) to
// its defaults and returns the ports by name, adding the properties that
// set them to props. field names the map in errors.
func resolvePorts(field string, defs []portDef, override map[string]int, props map[string]string) (map[string]int, error) {
	known := make([]string, len(defs))
	for i, d := range defs {
		known[i] = d.name
	}
	for _, name := range slices.Sorted(maps.Keys(override)) {
		if !slices.Contains(known, name) {
			return nil, engines.Invalid("%s: unknown port %q (Alluxio's are %s)", field, name, strings.Join(known, ", "))
		}
		if p := override[name]; p < 1 || p > 65535 {
			return nil, engines.Invalid("%s.%s: %d is not a port number", field, name, p)
		}
	}
	out := map[string]int{}
	for _, d := range defs {
		p := d.def
		if v, ok := override[d.name]; ok {
			p = v
		}
		out[d.name] = p
		props[d.property] = strconv.Itoa(p)
	}
	return out, nil
}
