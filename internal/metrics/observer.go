package metrics

import "github.com/evidencefleet/evidencefleet/internal/httpx"

// Metrics is the httpx.Observer of the model and API clients: their
// attempts, errors, batch sizes and tokens become the evidencefleet_model_*
// series (ModelRequest, ModelError, ModelBatch, ModelTokens, PrepareModel).
var _ httpx.Observer = (*Metrics)(nil)
