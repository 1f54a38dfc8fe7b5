package juicefs

import (
	"fmt"
	"io"
	"math"

	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// The file-system figures a JuiceFS community-edition client exports
// (juicefs.com/docs/community/reference/p8s_metrics, "File system"): the
// volume's used space and inodes, as its metadata engine counts them.
const (
	metricUsedSpace  = "juicefs_used_space"
	metricUsedInodes = "juicefs_used_inodes"
)

// ParseUsage reads the volume's usage from a JuiceFS client's /metrics
// page: Bytes is juicefs_used_space, what Fluid reads as the mount's used
// space (`df`), and Files is juicefs_used_inodes, the volume's inodes
// (files, directories and links; Fluid counts the regular files with
// `ls -lR`). ok is false when the page has neither family (an
// enterprise-edition client, whose page names them otherwise); each
// client reports the same volume, so of several series the largest is
// taken.
func ParseUsage(r io.Reader) (u engines.UFSUsage, ok bool, err error) {
	families, err := engines.ParseFamilies(r)
	if err != nil {
		return u, false, fmt.Errorf("parsing JuiceFS metrics: %w", err)
	}
	space, inodes := families[metricUsedSpace], families[metricUsedInodes]
	if space == nil || inodes == nil {
		return u, false, nil
	}
	largest := func(name string) (int64, error) {
		var top float64
		for _, m := range families[name].GetMetric() {
			top = max(top, engines.SampleValue(m))
		}
		if math.IsNaN(top) || math.IsInf(top, 0) || top > math.MaxInt64 {
			return 0, fmt.Errorf("parsing JuiceFS metrics: %s is %v, not a count", name, top)
		}
		return int64(top), nil
	}
	if u.Bytes, err = largest(metricUsedSpace); err != nil {
		return u, false, err
	}
	if u.Files, err = largest(metricUsedInodes); err != nil {
		return u, false, err
	}
	return u, true, nil
}

// UFSMetadata implements engines.Engine: the volume's usage is read from
// the workers' metrics pages (they run from the start, where FUSE clients
// run only on the nodes of Pods using the Dataset), as Fluid reads it in a
// worker. Metadata sync is on unless the runtime's metadataSyncPolicy sets
// autoSync false (Fluid's default); with disablePrometheus no page is
// served, and a metadata Job counts the usage through the Dataset's mount.
func (Engine) UFSMetadata(rt client.Object) engines.MetadataSource {
	j, ok := rt.(*datav1alpha1.JuiceFSRuntime)
	if !ok {
		return engines.MetadataSource{}
	}
	src := engines.MetadataSource{Sync: j.Spec.Management.MetadataSyncPolicy.AutoSyncOr(true)}
	if !j.Spec.DisablePrometheus {
		src.Pages = &engines.UsagePages{
			Selector: map[string]string{"app.kubernetes.io/instance": rt.GetName(), "app.kubernetes.io/name": "juicefs", "role": "juicefs-worker"},
			PortName: "metrics", Paths: []string{"/metrics"}, Parse: ParseUsage,
		}
	}
	return src
}
