package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/models"
)

// nliDataDir is the report part of the bundled NLI samples relative to this
// package (testdata/nli/ATTRIBUTION.md).
const nliDataDir = "../../../testdata/nli/report"

// TestRunEndToEnd runs the whole evaluation on the first 10 Climate-FEVER
// claims and 30 rows per NLI file against a real Postgres and checks that
// the tables add up (not the scores themselves, which depend on the models).
func TestRunEndToEnd(t *testing.T) {
	t.Parallel()
	const claims, rows = 10, 30
	dbURL := pgtest.URL(t)
	cfg, err := config.Load() // DATABASE_URL, set for pgtest, satisfies Load; Run uses cfg.DatabaseURL
	if err != nil {
		t.Fatal(err)
	}
	cfg.DatabaseURL = dbURL
	rep, err := Run(context.Background(), Options{
		Config: cfg, ClaimsFile: climateFeverFile, Limit: claims,
		NLIDir: nliDataDir, NLILimit: rows, Timeout: 5 * time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Models.NLI == "" || rep.Models.Embed == "" || rep.Models.LLM == "" {
		t.Errorf("model ids missing: %+v", rep.Models)
	}

	files, err := NLIDataFiles(nliDataDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.NLI) != len(files) {
		t.Fatalf("%d NLI results for %d files", len(rep.NLI), len(files))
	}
	for _, f := range rep.NLI {
		if f.Scores.N != rows || f.Scores.MatrixSum() != rows {
			t.Errorf("%s: N %d, matrix sum %d, want %d", f.File, f.Scores.N, f.Scores.MatrixSum(), rows)
		}
		if f.Model != rep.Models.NLI {
			t.Errorf("%s: model %q, want the configured %q", f.File, f.Model, rep.Models.NLI)
		}
		if sep := f.Scores.Separation; sep == nil || sep.Supports.Positives+sep.Refutes.Positives+sep.Supports.Negatives != rows {
			t.Errorf("%s: separation %+v, want the built-in's ranking of all %d pairs", f.File, sep, rows)
		}
	}

	cf := rep.ClimateFever
	if cf == nil {
		t.Fatal("no Climate-FEVER result")
	}
	records, err := corpus.ReadClimateFever(climateFeverFile)
	if err != nil {
		t.Fatal(err)
	}
	records = records[:claims]
	evidence := 0
	for _, r := range records {
		evidence += len(r.Evidences)
	}
	if cf.Claims != claims || cf.ClaimScores.N != claims || cf.ClaimScores.MatrixSum() != claims {
		t.Errorf("claims %d, verdict N %d, matrix sum %d; want %d", cf.Claims, cf.ClaimScores.N, cf.ClaimScores.MatrixSum(), claims)
	}
	nv := 0
	for _, n := range cf.Verdicts {
		nv += n
	}
	if nv != claims {
		t.Errorf("verdict counts add up to %d, want %d", nv, claims)
	}
	if cf.GoldPairs+cf.SkippedEvidence != evidence {
		t.Errorf("gold pairs %d + skipped %d != %d evidence entries", cf.GoldPairs, cf.SkippedEvidence, evidence)
	}
	if !(cf.Judged <= cf.Located && cf.Located <= cf.GoldPairs && cf.Straddling <= cf.Located) {
		t.Errorf("coverage out of bounds: judged %d, located %d (straddling %d), gold %d", cf.Judged, cf.Located, cf.Straddling, cf.GoldPairs)
	}
	var byLabel Reach
	for _, r := range cf.JudgedByLabel {
		byLabel.Judged += r.Judged
		byLabel.Of += r.Of
	}
	if byLabel.Judged != cf.Judged || byLabel.Of != cf.GoldPairs {
		t.Errorf("judged by gold label %+v, want %d of %d in all", cf.JudgedByLabel, cf.Judged, cf.GoldPairs)
	}
	if cf.PairScores.N != cf.Judged || cf.PairScores.MatrixSum() != cf.Judged {
		t.Errorf("pair N %d, matrix sum %d, want judged %d", cf.PairScores.N, cf.PairScores.MatrixSum(), cf.Judged)
	}
	if cf.Articles == 0 || cf.Pages != cf.Articles || len(cf.FailedTargets) != 0 {
		t.Errorf("pages %d of %d articles, failed targets %v", cf.Pages, cf.Articles, cf.FailedTargets)
	}
	if got := cf.Jobs["target_queue"]["completed"]; got != cf.Articles {
		t.Errorf("%d target_queue jobs completed, want one per article (%d)", got, cf.Articles)
	}
	completed := 0
	for _, kind := range FleetKinds { // jobs of other queues wait for workers that serve them
		for state, n := range cf.Jobs[kind] {
			if state == "completed" {
				completed += n
			} else {
				t.Errorf("%d %s jobs %s after the run", n, kind, state)
			}
		}
	}
	if completed != cf.JobsCompleted || cf.WallSeconds <= 0 || cf.JobsPerSecond <= 0 {
		t.Errorf("jobs completed %d (counted %d), wall %.2fs, %.2f jobs/s", cf.JobsCompleted, completed, cf.WallSeconds, cf.JobsPerSecond)
	}
	timed := 0
	for _, k := range cf.Timings {
		timed += k.Jobs
	}
	if timed != cf.JobsCompleted {
		t.Errorf("timings cover %d jobs, %d completed", timed, cf.JobsCompleted)
	}
	if len(cf.Workers) != len(FleetQueues) || cf.CPUs <= 0 {
		t.Errorf("workers %v on %d CPUs, want the queues %v", cf.Workers, cf.CPUs, FleetQueues)
	}
	if cf.Fragments < cf.Pages {
		t.Errorf("%d fragments for %d pages", cf.Fragments, cf.Pages)
	}
	// Given pages: every gold article is a page of the task, fetched once, never searched.
	if r := cf.Retrieval; cf.Mode != ModeGiven || r.Searches != 0 || r.Fetches != int64(cf.Articles) || r.InOwnSearch != -1 ||
		r.ClaimsWithArticle != claims || r.InTask != claims || r.Judged > r.InTask {
		t.Errorf("given mode %q retrieval %+v, want 0 searches, %d fetches, every claim's gold article in the task", cf.Mode, r, cf.Articles)
	}
	byRel := 0
	for _, n := range cf.EdgesByRelation {
		byRel += n
	}
	if byRel != cf.Edges || cf.Edges < cf.Judged {
		t.Errorf("edges %d, by relation %d, judged gold pairs %d", cf.Edges, byRel, cf.Judged)
	}
	if cf.Edges > 0 && !reflect.DeepEqual(cf.NLIModelsSeen, []string{rep.Models.NLI}) {
		t.Errorf("NLI models in the graph %v, want only the configured %q", cf.NLIModelsSeen, rep.Models.NLI)
	}
	// Fragments are embedded as passages of the configured model (models.PassageModel).
	if want := rep.Models.Embed + "+" + models.PassageFormat; !reflect.DeepEqual(cf.EmbedModelsSeen, []string{want}) {
		t.Errorf("embedding models in the graph %v, want only the configured %q", cf.EmbedModelsSeen, want)
	}

	// The gold pairs alone: judged and ranked, by the judge and by relatedness.
	if s := rep.ClimateFeverSentences; s == nil || s.N != evidence || s.Separation == nil || rep.ClimateFeverRelatedness == nil ||
		rep.ClimateFeverRelatedness.Supports.Positives != s.Separation.Supports.Positives {
		t.Errorf("gold pairs alone %+v, relatedness %+v; want all %d judged and ranked both ways", s, rep.ClimateFeverRelatedness, evidence)
	}

	var text bytes.Buffer
	if err := WriteText(&text, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range append([]string{"== NLI pairs", "== Climate-FEVER end to end", "Claim verdicts vs gold", "coverage:", "P(supports), gold supports against", "the embedder's cosine alone",
		rep.Models.NLI, rep.Models.Embed, rep.Models.LLM}, ClaimClasses...) {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, rep) {
		t.Errorf("JSON round trip changed the report:\n%s", b)
	}
}
