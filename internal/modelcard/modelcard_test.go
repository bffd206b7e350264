package modelcard_test

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/harness/eval"
	"github.com/evidencefleet/evidencefleet/internal/harness/repodata"
	"github.com/evidencefleet/evidencefleet/internal/modelcard"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
)

// TestNLIFiguresAreMeasured recomputes the built-in NLI's accuracy on each
// report part and requires the quoted figure to be that measurement (to the
// three decimals `make eval` prints).
func TestNLIFiguresAreMeasured(t *testing.T) {
	t.Parallel()
	dir := repodata.Path(t, repodata.NLIReport...)
	learned, err := builtin.NewLearnedNLI()
	if err != nil {
		t.Fatal(err)
	}
	nlis := map[string]models.NLI{modelcard.BuiltinLearnedNLI: learned}
	if len(modelcard.NLIReportAccuracy) != len(nlis) {
		t.Fatalf("figures quoted for %d models, want the %d built-in NLIs", len(modelcard.NLIReportAccuracy), len(nlis))
	}
	for model, figures := range modelcard.NLIReportAccuracy {
		for _, m := range figures {
			examples, err := eval.ReadNLIFile(filepath.Join(dir, m.File))
			if err != nil {
				t.Fatal(err)
			}
			scores, err := eval.EvaluateNLI(context.Background(), nlis[model], 0, examples)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(scores.Accuracy-m.Accuracy) > 0.0005 {
				t.Errorf("%s %s: quoted accuracy %.3f, measured %.3f on %d report pairs", model, m.Data, m.Accuracy, scores.Accuracy, scores.N)
			}
		}
	}
}

func TestBanner(t *testing.T) {
	t.Parallel()
	if b := modelcard.Banner([]string{"cross-encoder/nli-deberta-v3-base", "BAAI/bge-reranker-base"}); b != "" {
		t.Errorf("banner for trained models only = %q, want none", b)
	}
	b := modelcard.Banner([]string{"BAAI/bge-m3", builtin.LearnedNLIModel, builtin.HashEmbedderModel, builtin.LearnedNLIModel})
	if b == "" || strings.Contains(b, "\n") {
		t.Fatalf("banner = %q, want one line", b)
	}
	for _, want := range []string{builtin.LearnedNLIModel, builtin.HashEmbedderModel, "deterministic", "SNLI"} {
		if !strings.Contains(b, want) {
			t.Errorf("banner %q does not name %q", b, want)
		}
	}
	if strings.Contains(b, "bge-m3") {
		t.Errorf("banner %q names a trained model", b)
	}
	if strings.Count(b, builtin.LearnedNLIModel) != 1 {
		t.Errorf("banner %q repeats a model", b)
	}
}
