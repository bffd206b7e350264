package workers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/crawl"
	"github.com/evidencefleet/evidencefleet/internal/evidence"
	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
	"github.com/evidencefleet/evidencefleet/store"
)

// Pages on three domains about one topic; sentences adapted from Wikipedia
// (CC BY-SA) articles on polar bears and sea ice.
func polarPages() []corpus.Page {
	return []corpus.Page{
		testfleet.Page("https://en.wikipedia.org/wiki/Polar_bear", "Polar bear",
			"The polar bear is a large bear native to the Arctic and nearby areas. It is closely related to the brown bear, and the two species can interbreed.",
			"Because of expected habitat loss caused by climate change, the polar bear is classified as a vulnerable species. The loss of sea ice reduces the ability of polar bears to hunt seals.",
			"Polar bear populations are declining because the sea ice in the Arctic is melting earlier each year."),
		testfleet.Page("https://www.example-science.org/arctic/sea-ice", "Arctic sea ice",
			"Arctic sea ice has declined in recent decades in area and volume due to climate change. The decline of sea ice is driving polar bear populations toward extinction.",
			"Scientists estimate that two thirds of polar bears could disappear by 2050 as the sea ice melts."),
		testfleet.Page("https://news.example-daily.com/polar-bears-thriving", "Polar bears thriving",
			"Some commentators argue that polar bear populations are not declining and that the sea ice is not melting in the Arctic.",
			"Hunting quotas were introduced in the 1970s, and several subpopulations have grown since then."),
	}
}

// A page whose text mixes scripts, accents and emoji: offsets are characters,
// and Postgres' substring must agree with them.
func unicodePage() corpus.Page {
	return testfleet.Page("https://ja.example.org/wiki/ホッキョクグマ", "ホッキョクグマ — Ours polaire 🐻‍❄️",
		"ホッキョクグマは北極圏に生息するクマ科の動物である。海氷の減少により、その個体数は減少していると考えられている。",
		"L’ours polaire 🐻‍❄️ dépend de la banquise arctique; la fonte précoce de la glace réduit la période de chasse des phoques.",
		"Polar bears (Ursus maritimus) rely on sea ice — “the platform from which they hunt seals” — and its decline affects them.")
}

// TestPipelineBuildsAConsistentGraph works a task's every job (fetch,
// extraction, embedding, verification, ranking) and checks the graph's
// invariants. It needs no running client: the fleet tests
// (internal/fleet) run the same pipeline in concurrent processes.
func TestPipelineBuildsAConsistentGraph(t *testing.T) {
	t.Parallel()
	f := testfleet.InTx(t, testfleet.Options{Pages: append(polarPages(), unicodePage())})
	task := f.CreateTask(t, "Polar bear populations are declining because the Arctic sea ice is melting.")
	f.AddTargets(t, task, "https://en.wikipedia.org/wiki/Polar_bear", "https://www.example-science.org/arctic/sea-ice",
		"https://news.example-daily.com/polar-bears-thriving", unicodePage().URL)
	f.Drain(t)

	ctx := context.Background()
	counts := map[string]int{}
	rows, err := f.Tx.Query(ctx, `SELECT relation, count(*) FROM edges GROUP BY relation`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var rel string
		var n int
		if err := rows.Scan(&rel, &n); err != nil {
			t.Fatal(err)
		}
		counts[rel] = n
	}
	t.Logf("edges by relation: %v", counts)
	if counts["origin"] == 0 || counts["supports"] == 0 || counts["neutral"] == 0 {
		t.Errorf("want origin, supports and neutral edges, got %v", counts)
	}

	invariants := []struct {
		name string
		sql  string // counts violations
	}{
		{"every job completed", `SELECT count(*) FROM river_job WHERE state <> 'completed'`},
		{"every target extracted", `SELECT count(*) FROM targets WHERE status <> 'extracted'`},
		{"fragment text is its span of the version (characters)", `SELECT count(*) FROM fragments f JOIN page_versions v ON v.id = f.page_version_id
			WHERE f.text <> substring(v.content FROM f.start_char + 1 FOR f.end_char - f.start_char)`},
		{"fragments belong to their version's page", `SELECT count(*) FROM fragments f JOIN page_versions v ON v.id = f.page_version_id WHERE v.page_id <> f.page_id`},
		{"extracted claim quote is verbatim in its version", `SELECT count(*) FROM claims c JOIN page_versions v ON v.id = c.page_version_id
			WHERE c.kind = 'extracted' AND c.text <> substring(v.content FROM c.quote_start + 1 FOR c.quote_end - c.quote_start)`},
		{"quote lies inside its origin fragment", `SELECT count(*) FROM claims c JOIN fragments f ON f.id = c.origin_fragment_id
			WHERE c.quote_start < f.start_char OR c.quote_end > f.end_char OR f.page_version_id <> c.page_version_id`},
		{"one origin edge per extracted claim", `SELECT count(*) FROM claims c WHERE c.kind = 'extracted' AND
			(SELECT count(*) FROM edges e WHERE e.relation = 'origin' AND e.target_id = c.id AND e.source_id = c.origin_fragment_id) <> 1`},
		{"no duplicate NLI pair", `SELECT count(*) FROM (SELECT 1 FROM edges WHERE relation IN ('supports','refutes','neutral')
			GROUP BY source_id, target_id HAVING count(*) > 1) d`},
		{"E-numbers gapless from 1", `SELECT count(*) FROM (SELECT task_id, max(evidence_no) AS m, count(*) AS n FROM claims GROUP BY task_id) x WHERE m <> n`},
		{"task counter after last E-number", `SELECT count(*) FROM tasks t WHERE next_evidence_no <> 1 + (SELECT COALESCE(max(evidence_no), 0) FROM claims c WHERE c.task_id = t.id)`},
		{"every fragment embedded", fmt.Sprintf(`SELECT count(*) FROM fragments WHERE embedding IS NULL OR length(embedding) <> 4 * %d`, builtin.EmbedderDim)},
		{"page of every version is linked to the task", `SELECT count(*) FROM pages p WHERE NOT EXISTS (SELECT 1 FROM task_pages tp WHERE tp.page_id = p.id)`},
	}
	for _, inv := range invariants {
		if n := queryInt(t, f.Tx, inv.sql); n != 0 {
			t.Errorf("%s: %d violations", inv.name, n)
		}
	}
	// The non-ASCII page was fragmented and its offsets hold (checked above).
	if n := queryInt(t, f.Tx, `SELECT count(*) FROM fragments f JOIN pages p ON p.id = f.page_id WHERE p.domain = 'ja.example.org'`); n == 0 {
		t.Error("the non-ASCII page has no fragments")
	}
	// Cached posteriors equal a recomputation from the edges.
	rows, err = f.Tx.Query(ctx, `SELECT id, alpha, beta, confidence, verdict FROM claims ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	type cachedRow struct {
		id                int64
		alpha, beta, conf float64
		verdict           string
	}
	var cached []cachedRow
	var ids []int64
	for rows.Next() {
		var c cachedRow
		if err := rows.Scan(&c.id, &c.alpha, &c.beta, &c.conf, &c.verdict); err != nil {
			t.Fatal(err)
		}
		cached = append(cached, c)
		ids = append(ids, c.id)
	}
	tallies, err := f.Store.ClaimTallies(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	for i, tl := range tallies {
		want := evidence.Compute(store.TallyFromRow(tl))
		c := cached[i]
		if c.alpha != want.Alpha || c.beta != want.Beta || c.conf != want.Confidence || c.verdict != want.Verdict {
			t.Errorf("claim %d cached (%v, %v, %v, %s) != recomputed (%v, %v, %v, %s)", c.id, c.alpha, c.beta, c.conf, c.verdict,
				want.Alpha, want.Beta, want.Confidence, want.Verdict)
		}
	}
}

func TestDemoCorpusYieldsSupportsAndRefutes(t *testing.T) {
	t.Parallel()
	archive := "../../testdata/replay/demo"
	demo, err := crawl.OpenArchive(archive)
	if err != nil {
		t.Fatalf("demo corpus: %v", err)
	}
	raw, err := os.ReadFile(archive + "/claims.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var claims []string
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var c corpus.ClaimLine
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		claims = append(claims, c.Claim)
	}
	f := testfleet.InTx(t, testfleet.Options{Adjust: func(c *config.Config) { c.ReplayDir = archive }})
	// As `make run` does: the demo hypothesis plus the corpus' Climate-FEVER claims.
	task := f.CreateTask(t, "Sea level rise is accelerating.", claims...)
	var urls []string
	for _, e := range demo.Entries() {
		urls = append(urls, e.URL)
	}
	f.AddTargets(t, task, urls...)
	f.Drain(t)
	for _, rel := range []string{"supports", "refutes"} {
		if n := queryInt(t, f.Tx, `SELECT count(*) FROM edges WHERE relation = $1`, rel); n == 0 {
			t.Errorf("the demo corpus produced no %s edge", rel)
		}
	}
}

// TestPageVersionsKeepTheirCapture: each page version a fetch made keeps
// the response it came in (page_captures): the URL, the status, the
// headers the capture keeps and the body exactly as the server sent it; a
// second fetch of the same text adds no capture.
func TestPageVersionsKeepTheirCapture(t *testing.T) {
	t.Parallel()
	pages := testfleet.GlacierPages()
	pages[0].Headers = map[string]string{"Set-Cookie": "session=secret", "X-Served-By": "replay"}
	f := testfleet.InTx(t, testfleet.Options{Pages: pages})
	task := f.CreateTask(t, testfleet.GlacierHypothesis)
	f.AddTargets(t, task, testfleet.GlacierWiki, testfleet.GlacierScience)
	f.Drain(t)
	other := f.CreateTask(t, "Glaciers in the Alps are retreating.")
	f.AddTargets(t, other, testfleet.GlacierWiki)
	f.Drain(t)
	if n := queryInt(t, f.Tx, `SELECT count(*) FROM page_captures`); n != 2 {
		t.Errorf("%d captures, want one for each of the 2 page versions", n)
	}
	var url, headers string
	var status int
	var body []byte
	if err := f.Tx.QueryRow(context.Background(), `
		SELECT c.url, c.status, c.headers, c.body FROM page_captures c
		JOIN page_versions pv ON pv.id = c.page_version_id JOIN pages p ON p.id = pv.page_id
		WHERE p.url = $1`, testfleet.GlacierWiki).Scan(&url, &status, &headers, &body); err != nil {
		t.Fatal(err)
	}
	if url != testfleet.GlacierWiki || status != 200 || !bytes.Equal(body, pages[0].Body) {
		t.Errorf("the capture of %s: %s %d, %d bytes; want its URL, 200 and the %d bytes served", testfleet.GlacierWiki, url, status, len(body), len(pages[0].Body))
	}
	if !strings.Contains(headers, "Content-Type: text/html") || !strings.Contains(headers, "X-Served-By: replay\r\n") || strings.Contains(headers, "Set-Cookie") {
		t.Errorf("the capture's headers %q: want Content-Type and X-Served-By, no Set-Cookie", headers)
	}
}
