package tei

import (
	"context"
	"encoding/json"
	"math"
	"strings"

	"github.com/evidencefleet/evidencefleet/internal/httpx"
	"github.com/evidencefleet/evidencefleet/internal/models"
)

// NLI is a models.NLI backed by TEI's POST /predict with an NLI cross-encoder
// (premise, hypothesis) → {entailment, neutral, contradiction}.
type NLI struct {
	e        endpoint
	labels   map[string]string // lower-cased model label → relation
	required []string          // relations every answer must contain
	invT     float64           // 1/Temperature
	// labelBytes is the longest label's length: with len(labels) it bounds
	// an answer (httpx.PredictionsBound).
	labelBytes int
}

var _ models.NLI = (*NLI)(nil)

// DefaultLabelMap maps the labels of the usual MNLI-trained cross-encoders.
func DefaultLabelMap() map[string]string {
	return map[string]string{"entailment": models.Supports, "contradiction": models.Refutes, "neutral": models.Neutral}
}

// relations in tie-break order: on equal probabilities the more cautious
// relation wins.
var relations = []string{models.Neutral, models.Supports, models.Refutes}

// NewNLI validates o and returns an NLI for {BaseURL}/predict.
func NewNLI(o Options) (*NLI, error) {
	e, err := newEndpoint(o, "/predict", "nli")
	if err != nil {
		return nil, err
	}
	t := o.Temperature
	if t == 0 {
		t = 1
	}
	if !(t > 0) || math.IsInf(t, 0) {
		return nil, e.badOption("Temperature %v must be a positive finite number", o.Temperature)
	}
	src := o.LabelMap
	if len(src) == 0 {
		src = DefaultLabelMap()
	}
	n := &NLI{e: e, labels: map[string]string{}, invT: 1 / t}
	seen := map[string]bool{}
	for label, rel := range src {
		if rel != models.Supports && rel != models.Refutes && rel != models.Neutral {
			return nil, e.badOption("LabelMap[%q] = %q: want %q, %q or %q", label, rel, models.Supports, models.Refutes, models.Neutral)
		}
		key := strings.ToLower(strings.TrimSpace(label))
		if prev, dup := n.labels[key]; dup && prev != rel {
			return nil, e.badOption("LabelMap maps %q to both %q and %q (labels match case-insensitively)", key, prev, rel)
		}
		n.labels[key] = rel
		n.labelBytes = max(n.labelBytes, len(label))
		seen[rel] = true
	}
	for _, r := range relations {
		if seen[r] {
			n.required = append(n.required, r)
		}
	}
	if len(n.required) < 2 {
		return nil, e.badOption("LabelMap maps every label to %q: an NLI needs at least two relations", n.required[0])
	}
	return n, nil
}

// Model returns "tei:<model>".
func (n *NLI) Model() string { return n.e.model }

// predictRequest is TEI's PredictRequest with a batch of pairs.
type predictRequest struct {
	Inputs    [][2]string `json:"inputs"`
	RawScores bool        `json:"raw_scores"`
	Truncate  bool        `json:"truncate"`
}

// prediction is one of TEI's Prediction objects; pointers detect missing or
// null fields.
type prediction struct {
	Label *string  `json:"label"`
	Score *float64 `json:"score"`
}

// Judge returns one Judgement per pair, in order, in batches of BatchSize.
// Label is the relation with the highest (calibrated) probability and
// Confidence that probability. No request is made for an empty slice.
func (n *NLI) Judge(ctx context.Context, pairs []models.Pair) ([]models.Judgement, error) {
	out := make([]models.Judgement, 0, len(pairs))
	err := chunks(len(pairs), n.e.batch, func(lo, hi int) error {
		req := predictRequest{Inputs: make([][2]string, 0, hi-lo), RawScores: false, Truncate: true}
		for _, p := range pairs[lo:hi] {
			req.Inputs = append(req.Inputs, [2]string{p.Premise, p.Hypothesis})
		}
		var raw json.RawMessage
		bound := httpx.PredictionsBound(hi-lo, len(n.labels), n.labelBytes)
		if err := n.e.http.PostJSON(ctx, n.e.url, n.e.header, req, bound, &raw, hi-lo); err != nil {
			return err
		}
		preds, err := n.decode(raw, hi-lo)
		if err != nil {
			return err
		}
		for i, p := range preds {
			j, err := n.judge(p)
			if err != nil {
				return n.e.bad("pair %d: %v", lo+i, err)
			}
			out = append(out, j)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// decode reads TEI's PredictResponse for a batch of n pairs. TEI answers a
// batch (even of one pair) with one list of predictions per pair; a bare
// list of predictions, TEI's answer to a single unbatched input, is accepted
// when n is 1.
func (n *NLI) decode(raw json.RawMessage, want int) ([][]prediction, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || items == nil {
		return nil, n.e.bad("want a JSON array of prediction lists, got %s", snippet(raw))
	}
	if len(items) > 0 && firstByte(items[0]) == '{' {
		var flat []prediction
		if err := json.Unmarshal(raw, &flat); err != nil {
			return nil, n.e.bad("decoding predictions: %v", err)
		}
		if want != 1 {
			return nil, n.e.bad("a single prediction list for %d pairs", want)
		}
		return [][]prediction{flat}, nil
	}
	var batch [][]prediction
	if err := json.Unmarshal(raw, &batch); err != nil {
		return nil, n.e.bad("decoding prediction lists: %v: %s", err, snippet(raw))
	}
	if len(batch) != want {
		return nil, n.e.bad("%d prediction lists for %d pairs", len(batch), want)
	}
	return batch, nil
}

// judge turns one pair's predictions into a Judgement.
func (n *NLI) judge(preds []prediction) (models.Judgement, error) {
	p := map[string]float64{}
	seen := map[string]bool{}
	for _, pr := range preds {
		if pr.Label == nil {
			return models.Judgement{}, errf("a prediction has no label")
		}
		label := strings.ToLower(strings.TrimSpace(*pr.Label))
		if pr.Score == nil {
			return models.Judgement{}, errf("label %q has no score", *pr.Label)
		}
		s := *pr.Score
		if !(s >= 0 && s <= 1) {
			return models.Judgement{}, errf("label %q has score %v outside [0,1]", *pr.Label, s)
		}
		if seen[label] {
			return models.Judgement{}, errf("label %q appears twice", *pr.Label)
		}
		seen[label] = true
		rel, ok := n.labels[label]
		if !ok {
			return models.Judgement{}, errf("unknown label %q (set a LabelMap for this model)", *pr.Label)
		}
		p[rel] += s
	}
	for _, r := range n.required {
		if _, ok := p[r]; !ok {
			return models.Judgement{}, errf("no label for %q among %d predictions", r, len(preds))
		}
	}
	var sum float64
	for r, v := range p {
		if n.invT != 1 {
			v = math.Pow(v, n.invT)
			p[r] = v
		}
		sum += v
	}
	if !(sum > 0) || math.IsInf(sum, 0) {
		return models.Judgement{}, errf("probabilities sum to %v", sum)
	}
	best, bestP := "", -1.0
	for _, r := range relations {
		if v, ok := p[r]; ok && v/sum > bestP {
			best, bestP = r, v/sum
		}
	}
	d := models.Distribution{Supports: p[models.Supports] / sum, Refutes: p[models.Refutes] / sum, Neutral: p[models.Neutral] / sum}
	return models.Judgement{Label: best, Confidence: min(1, bestP), Distribution: d}, nil
}
