package monitoring

import (
	dto "github.com/prometheus/client_model/go"
)

// ExportedNames are the metric names of families as a query names them:
// each family's name, and a histogram's _bucket, _sum and _count series
// (a summary's _sum and _count).
func ExportedNames(fams []*dto.MetricFamily) map[string]bool {
	out := map[string]bool{}
	for _, f := range fams {
		name := f.GetName()
		out[name] = true
		switch f.GetType() {
		case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
			out[name+"_bucket"], out[name+"_sum"], out[name+"_count"] = true, true, true
		case dto.MetricType_SUMMARY:
			out[name+"_sum"], out[name+"_count"] = true, true
		}
	}
	return out
}
