package httpx

import (
	"sync"
	"testing"
)

// recorder is an Observer that keeps what it is told, as series named like
// internal/metrics names them, so tests can sum them by label.
type recorder struct {
	mu     sync.Mutex
	series []sample
}

type sample struct {
	name   string
	labels map[string]string
	value  float64
}

func (r *recorder) add(name string, value float64, labels ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := make(map[string]string, len(labels)/2)
	for i := 0; i+1 < len(labels); i += 2 {
		m[labels[i]] = labels[i+1]
	}
	r.series = append(r.series, sample{name, m, value})
}

func (r *recorder) PrepareModel(string, string) {}

func (r *recorder) ModelRequest(backend, capability, outcome string, _ float64) {
	r.add("evidencefleet_model_requests_total", 1, "backend", backend, "capability", capability, "outcome", outcome)
}

func (r *recorder) ModelError(backend, capability, kind string) {
	r.add("evidencefleet_model_errors_total", 1, "backend", backend, "capability", capability, "kind", kind)
}

// ModelBatch counts samples, as metrics.Sum does for a histogram.
func (r *recorder) ModelBatch(backend, capability string, _ int) {
	r.add("evidencefleet_model_batch_size", 1, "backend", backend, "capability", capability)
}

func (r *recorder) ModelTokens(backend, capability, typ string, n int) {
	r.add("evidencefleet_model_tokens_total", float64(n), "backend", backend, "capability", capability, "type", typ)
}

// counter sums name over the samples whose labels include want.
func counter(t *testing.T, r *recorder, name string, want map[string]string) float64 {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	sum := 0.0
next:
	for _, s := range r.series {
		if s.name != name {
			continue
		}
		for k, v := range want {
			if s.labels[k] != v {
				continue next
			}
		}
		sum += s.value
	}
	return sum
}
