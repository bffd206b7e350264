package workers_test

import (
	"context"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
	"github.com/evidencefleet/evidencefleet/internal/workers"
)

// TestVerifyStoresHeldBackJudgementsAsNeutral: the built-in NLI calls a
// sentence that reports the claim as someone's assertion support, and holds
// it back (models.Judgement.HoldBack): the edge is stored neutral with the
// model's label kept, while the same words stated count as support.
func TestVerifyStoresHeldBackJudgementsAsNeutral(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tx := pgtest.Tx(t)
	const claim = "Volcanoes are melting the West Antarctic ice sheet."
	task := fixture.Task(t, tx, claim)
	fixture.Claim(t, tx, task, claim)
	embedder := builtin.NewHashEmbedder(256)
	for url, text := range map[string]string{
		"https://skeptics.example.net/volcanoes": "Critics claim that volcanoes are melting the West Antarctic ice sheet.",
		"https://science.example.org/antarctica": "Volcanoes are melting the West Antarctic ice sheet from below.",
	} {
		p := fixture.PageOf(t, tx, task, url, text)
		vecs, err := embedder.Embed(ctx, []string{text})
		if err != nil {
			t.Fatal(err)
		}
		fixture.Embed(t, tx, p.Fragments[0], models.PassageModel(embedder), vecs[0])
	}
	nli, err := builtin.NewLearnedNLI()
	if err != nil {
		t.Fatal(err)
	}
	workVerify(t, tx, task, embedder, nli, workers.VerifyConfigFrom(config.Defaults(), builtin.HashEmbedderMinSimilarity))
	edge := func(domain string) (relation, label string) {
		t.Helper()
		err := tx.QueryRow(ctx, `SELECT e.relation, e.nli_label FROM edges e JOIN fragments f ON f.id = e.source_id
			JOIN pages p ON p.id = f.page_id WHERE p.domain = $1 AND e.relation IN `+nliRelations, domain).Scan(&relation, &label)
		if err != nil {
			t.Fatalf("the edge from %s: %v", domain, err)
		}
		return relation, label
	}
	if rel, label := edge("skeptics.example.net"); rel != models.Neutral || label != models.Supports {
		t.Errorf("reported claim: relation %s, label %s; want neutral, the model's supports kept", rel, label)
	}
	if rel, label := edge("science.example.org"); rel != models.Supports || label != models.Supports {
		t.Errorf("stated claim: relation %s, label %s; want supports", rel, label)
	}
}
