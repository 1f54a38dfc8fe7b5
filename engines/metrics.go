package engines

import (
	"io"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// ParseFamilies reads a Prometheus page in the text exposition format into
// its metric families, by name.
func ParseFamilies(r io.Reader) (map[string]*dto.MetricFamily, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(r)
}

// SampleValue is a Prometheus sample's value, whatever its type (engines
// type the same figure as gauge, counter or untyped across releases);
// summaries and histograms count as 0.
func SampleValue(m *dto.Metric) float64 {
	switch {
	case m.GetCounter() != nil:
		return m.GetCounter().GetValue()
	case m.GetGauge() != nil:
		return m.GetGauge().GetValue()
	case m.GetUntyped() != nil:
		return m.GetUntyped().GetValue()
	}
	return 0
}

// SumFamily adds a metric family's samples; a missing (nil) family is 0.
func SumFamily(mf *dto.MetricFamily) float64 {
	var s float64
	for _, m := range mf.GetMetric() {
		s += SampleValue(m)
	}
	return s
}
