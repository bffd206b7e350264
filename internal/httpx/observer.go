package httpx

// Observer is told what the clients of remote services do, for metrics:
// internal/metrics implements it (the evidencefleet_model_* series), so
// that this package and the model clients know no Prometheus. A nil
// Observer in Options records nothing.
type Observer interface {
	// PrepareModel makes the series of backend and capability exist at zero.
	PrepareModel(backend, capability string)
	// ModelRequest records one HTTP attempt: outcome "ok" or "error", and
	// its latency up to the answer's headers.
	ModelRequest(backend, capability, outcome string, seconds float64)
	// ModelError counts one failure by kind: "timeout", "connection",
	// "rate_limited", "server_error", "rejected", "bad_response",
	// "circuit_open" or "canceled".
	ModelError(backend, capability, kind string)
	// ModelBatch records the number of inputs of one request.
	ModelBatch(backend, capability string, n int)
	// ModelTokens counts the tokens a backend reported (typ "prompt" or
	// "completion").
	ModelTokens(backend, capability, typ string, n int)
}

// NoObserver records nothing; Client.Observer returns it for a nil
// Options.Observer.
var NoObserver Observer = noObserver{}

type noObserver struct{}

func (noObserver) PrepareModel(string, string)                  {}
func (noObserver) ModelRequest(string, string, string, float64) {}
func (noObserver) ModelError(string, string, string)            {}
func (noObserver) ModelBatch(string, string, int)               {}
func (noObserver) ModelTokens(string, string, string, int)      {}
