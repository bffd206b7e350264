package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"net/http"
	"os/signal"
	"syscall"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/models"
)

// The verify section runs the fleet with three NLI models: the built-in,
// and an instant one that answers at once, in the worker's process
// (instantNLI) and over HTTP in TEI's wire format from a child process of
// its own (RunInstantServer). The instant runs are the fleet's own cost per
// claim and per edge; the difference to the built-in run is the model's.

// nliEnv names the model a "fleet" child judges with: instantInProcess, or
// unset for the configured one.
const nliEnv = "FLEETBENCH_NLI"

// instantInProcess is nliEnv's value for instantNLI.
const instantInProcess = "instant"

// instantModel is the model id the instant NLI stores on its edges.
const instantModel = "bench-instant"

// instantNLI is a models.NLI that does no work: a pair's label is a hash of
// its texts (about a third each of supports, refutes and neutral, with
// confidences from 0.55 to 0.94), so that edges, posteriors and belief do
// what they do with a real model.
type instantNLI struct{}

var _ models.NLI = instantNLI{}

func (instantNLI) Model() string { return instantModel }

func (instantNLI) Judge(_ context.Context, pairs []models.Pair) ([]models.Judgement, error) {
	out := make([]models.Judgement, len(pairs))
	for i, p := range pairs {
		out[i] = instantJudgement(p)
	}
	return out, nil
}

// instantJudgement is the instant model's answer for p.
func instantJudgement(p models.Pair) models.Judgement {
	h := fnv.New64a()
	_, _ = io.WriteString(h, p.Premise)
	_, _ = h.Write([]byte{0})
	_, _ = io.WriteString(h, p.Hypothesis)
	v := h.Sum64()
	top := 0.55 + float64(v>>8%40)/100
	rest := (1 - top) / 2
	j := models.Judgement{Confidence: top, Distribution: models.Distribution{Supports: rest, Refutes: rest, Neutral: rest}}
	switch v % 3 {
	case 0:
		j.Label, j.Distribution.Supports = models.Supports, top
	case 1:
		j.Label, j.Distribution.Refutes = models.Refutes, top
	default:
		j.Label, j.Distribution.Neutral = models.Neutral, top
	}
	return j
}

// teiPrediction is one label of TEI's POST /predict answer.
type teiPrediction struct {
	Label string  `json:"label"`
	Score float64 `json:"score"`
}

// maxPredictBody bounds a /predict request the instant server reads.
const maxPredictBody = 64 << 20

// instantHandler answers TEI's POST /predict for a batch of (premise,
// hypothesis) pairs with the instant model's distribution, as an MNLI
// cross-encoder's three labels.
func instantHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /predict", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Inputs [][2]string `json:"inputs"`
		}
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxPredictBody)).Decode(&req); err != nil {
			http.Error(w, fmt.Sprintf(`{"error":%q,"error_type":"Validation"}`, err.Error()), http.StatusUnprocessableEntity)
			return
		}
		out := make([][]teiPrediction, len(req.Inputs))
		for i, in := range req.Inputs {
			d := instantJudgement(models.Pair{Premise: in[0], Hypothesis: in[1]}).Distribution
			out[i] = []teiPrediction{{"entailment", d.Supports}, {"neutral", d.Neutral}, {"contradiction", d.Refutes}}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	})
	return mux
}

// instantServerMode is the child mode of the instant NLI server.
const instantServerMode = "instant-server"

// runInstantServer serves instantHandler on addr until SIGTERM, printing
// readyLine once it listens (a child of the harness, so that its CPU time
// is its own).
func runInstantServer(addr string, stdout io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("instant server: %w", err)
	}
	srv := &http.Server{Handler: instantHandler(), ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintln(stdout, readyLine)
	select {
	case err := <-served:
		return fmt.Errorf("instant server: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return json.NewEncoder(stdout).Encode(childReport{})
}

// freeAddr is a loopback address with a port free a moment ago.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
