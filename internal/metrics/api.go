package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The API process's collectors (worker api): requests by operation and
// status, their latency, and the event streams it holds open.
type apiMetrics struct {
	requests *prometheus.CounterVec
	seconds  *prometheus.HistogramVec
	streams  prometheus.Gauge
}

func (m *Metrics) newAPIMetrics() {
	m.api.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "api_requests_total",
		Help: "Requests the API answered, by operation (the OpenAPI operation id; mcp, riverui) and HTTP status code.",
	}, []string{"operation", "code"})
	m.api.seconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Name: "api_request_seconds",
		Help:    "Time to answer an API request, by operation (event streams left out: they last until the task ends).",
		Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10},
	}, []string{"operation"})
	m.api.streams = prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: namespace, Name: "api_event_streams",
		Help: "Task event streams this API process holds open.",
	})
	m.Registry.MustRegister(m.api.requests, m.api.seconds, m.api.streams)
}

// APIRequest counts one answered API request; took is left out of the
// latency when negative (an event stream).
func (m *Metrics) APIRequest(operation string, code int, took time.Duration) {
	if m == nil {
		return
	}
	m.api.requests.WithLabelValues(operation, strconv.Itoa(code)).Inc()
	if took >= 0 {
		m.api.seconds.WithLabelValues(operation).Observe(took.Seconds())
	}
}

// APIStreams moves the count of open event streams by delta.
func (m *Metrics) APIStreams(delta int) {
	if m != nil {
		m.api.streams.Add(float64(delta))
	}
}

// InstrumentAPI counts and times the requests h answers under one
// operation name (client_golang's handler instrumentation, which reads
// the status h writes and keeps its writer's flushing).
func (m *Metrics) InstrumentAPI(operation string, h http.Handler) http.Handler {
	if m == nil {
		return h
	}
	l := prometheus.Labels{"operation": operation}
	return promhttp.InstrumentHandlerDuration(m.api.seconds.MustCurryWith(l),
		promhttp.InstrumentHandlerCounter(m.api.requests.MustCurryWith(l), h))
}
