package metrics

import "fmt"

// Sum adds up the series of the metric name (full name, with the
// evidencefleet_ prefix) whose labels include want: counter and gauge values,
// or a histogram's sample count. An absent metric sums to 0. Tests and the
// eval harness read metrics through it.
func (m *Metrics) Sum(name string, want map[string]string) (float64, error) {
	if m == nil {
		return 0, nil
	}
	fams, err := m.Registry.Gather()
	if err != nil {
		return 0, fmt.Errorf("gather metrics: %w", err)
	}
	total := 0.0
	for _, fam := range fams {
		if fam.GetName() != name {
			continue
		}
	series:
		for _, mt := range fam.GetMetric() {
			got := make(map[string]string, len(mt.GetLabel()))
			for _, l := range mt.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			for k, v := range want {
				if got[k] != v {
					continue series
				}
			}
			switch {
			case mt.GetCounter() != nil:
				total += mt.GetCounter().GetValue()
			case mt.GetGauge() != nil:
				total += mt.GetGauge().GetValue()
			case mt.GetHistogram() != nil:
				total += float64(mt.GetHistogram().GetSampleCount())
			}
		}
	}
	return total, nil
}
