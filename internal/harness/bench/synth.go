package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/eval"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/store"
)

// sentencePool is real English text to build synthetic graphs from, so that
// term frequencies (and so full-text recall costs) look like real pages:
// the premises and hypotheses of the NLI samples and the Climate-FEVER
// claims and evidence sentences bundled under testdata/ (both NLI parts:
// the pool is text, not a measure of accuracy).
type sentencePool struct {
	claims    []string // claim-like sentences (Climate-FEVER claims, NLI hypotheses)
	sentences []string // every sentence
}

func loadPool(dataDir string) (*sentencePool, error) {
	p := &sentencePool{}
	seen := map[string]bool{}
	add := func(s string, claim bool) {
		s = strings.TrimSpace(s)
		if len(strings.Fields(s)) < 4 || seen[s] {
			return
		}
		seen[s] = true
		p.sentences = append(p.sentences, s)
		if claim {
			p.claims = append(p.claims, s)
		}
	}
	records, err := corpus.ReadClimateFever(ClimateFeverFile(dataDir))
	if err != nil {
		return nil, fmt.Errorf("sentence pool: %w", err)
	}
	for _, r := range records {
		add(r.Claim, true)
		for _, e := range r.Evidences {
			add(e.Evidence, false)
		}
	}
	var files []string
	for _, part := range []string{"tune", "report"} {
		fs, err := eval.NLIDataFiles(filepath.Join(dataDir, "nli", part))
		if err != nil {
			return nil, fmt.Errorf("sentence pool: %w", err)
		}
		files = append(files, fs...)
	}
	for _, f := range files {
		exs, err := eval.ReadNLIFile(f)
		if err != nil {
			return nil, fmt.Errorf("sentence pool: %w", err)
		}
		for _, e := range exs {
			add(e.Premise, false)
			add(e.Hypothesis, true)
		}
	}
	if len(p.claims) < 100 {
		return nil, fmt.Errorf("sentence pool: only %d claim-like sentences in %s", len(p.claims), dataDir)
	}
	return p, nil
}

// claim returns the i-th distinct claim text: pool claims first, then pairs
// of them.
func (p *sentencePool) claim(i int) string {
	n := len(p.claims)
	if i < n {
		return p.claims[i]
	}
	return p.claims[i%n] + " " + p.claims[(i/n+i)%n]
}

// variant is the r-th rewrite of a claim as evidence text: as is, a word
// dropped, a negation added, or a word replaced, followed by another
// sentence of the pool. The rewrites give the NLI a mix of supports,
// refutes and neutral.
func (p *sentencePool) variant(claim string, r int, rng *rand.Rand) string {
	words := strings.Fields(claim)
	switch r % 4 {
	case 1:
		i := rng.IntN(len(words))
		words = append(words[:i:i], words[i+1:]...)
	case 2:
		i := min(2, len(words))
		words = append(words[:i:i], append([]string{"not"}, words[i:]...)...)
	case 3:
		other := strings.Fields(p.sentences[rng.IntN(len(p.sentences))])
		words[rng.IntN(len(words))] = other[rng.IntN(len(other))]
	}
	return strings.Join(words, " ") + " " + p.sentences[rng.IntN(len(p.sentences))]
}

// filler is text unrelated to any particular claim.
func (p *sentencePool) filler(rng *rand.Rand) string {
	return p.sentences[rng.IntN(len(p.sentences))] + " " + p.sentences[rng.IntN(len(p.sentences))]
}

// synthTask is a task loaded by loadTask.
type synthTask struct {
	ID        int64
	ClaimIDs  []int64
	Fragments int
	Pages     int
}

// taskSpec shapes a synthetic task.
type taskSpec struct {
	Claims       int // hypothesis claims (0: none, a task holding pages only)
	Fragments    int // fragments on the task's pages
	Related      int // fragments written for each claim (rewrites of it); the rest is filler
	Domains      int // distinct domains of the pages
	FragsPerPage int
	DomainPrefix string // domains are <prefix><n>.example
	Seed         uint64
}

// loadTask writes a task with its claims, pages, page versions and embedded
// fragments in bulk (COPY), the way target_queue and embed jobs would have
// left them, then VACUUMs and ANALYZEs the tables as autovacuum would have
// by the time a live graph is verified: fresh rows have no hint bits and
// no visibility map, and a run that happens to come before autovacuum
// reaches them pays for setting them (runs of one load differed by half).
func loadTask(ctx context.Context, pool *pgxpool.Pool, emb models.Embedder, p *sentencePool, spec taskSpec) (synthTask, error) {
	rng := rand.New(rand.NewPCG(spec.Seed, 0x5eed))
	var t synthTask
	if spec.FragsPerPage <= 0 {
		spec.FragsPerPage = 20
	}
	if spec.Domains <= 0 {
		spec.Domains = 1
	}
	// Fragment texts per domain.
	byDomain := make([][]string, spec.Domains)
	claimTexts := make([]string, spec.Claims)
	for i := range claimTexts {
		claimTexts[i] = p.claim(i)
	}
	for k := 0; k < spec.Fragments; k++ {
		if spec.Claims > 0 && k < spec.Claims*spec.Related {
			i, r := k%spec.Claims, k/spec.Claims
			// A claim's rewrites sit in at most six domains (max_domains).
			d := (i*7 + r%6) % spec.Domains
			byDomain[d] = append(byDomain[d], p.variant(claimTexts[i], r, rng))
			continue
		}
		d := rng.IntN(spec.Domains)
		byDomain[d] = append(byDomain[d], p.filler(rng))
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return t, err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	hyp := "synthetic benchmark task"
	if spec.Claims > 0 {
		hyp = claimTexts[0]
	}
	if err := tx.QueryRow(ctx, `INSERT INTO tasks (hypothesis, next_evidence_no) VALUES ($1, $2) RETURNING id`,
		hyp, spec.Claims+1).Scan(&t.ID); err != nil {
		return t, fmt.Errorf("synthetic task: %w", err)
	}
	if spec.Claims > 0 {
		rows := make([][]any, spec.Claims)
		for i, c := range claimTexts {
			rows[i] = []any{t.ID, int32(i + 1), c, store.TextHash(c), "hypothesis"}
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"claims"}, []string{"task_id", "evidence_no", "text", "text_hash", "kind"},
			pgx.CopyFromRows(rows)); err != nil {
			return t, fmt.Errorf("synthetic claims: %w", err)
		}
		r, err := tx.Query(ctx, `SELECT id FROM claims WHERE task_id = $1 ORDER BY evidence_no`, t.ID)
		if err == nil {
			t.ClaimIDs, err = pgx.CollectRows(r, pgx.RowTo[int64])
		}
		if err != nil {
			return t, fmt.Errorf("synthetic claims: %w", err)
		}
	}
	var domains []string
	for d := range byDomain {
		domains = append(domains, fmt.Sprintf("%s%d.example", spec.DomainPrefix, d))
	}
	levels := []string{"ACADEMIC", "TRUSTED", "LOW", "UNVERIFIED", "GOVERNMENT"}
	for i, d := range domains {
		if _, err := tx.Exec(ctx, `INSERT INTO domains (domain, trust_level) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
			d, levels[i%len(levels)]); err != nil {
			return t, fmt.Errorf("synthetic domains: %w", err)
		}
	}
	for d, texts := range byDomain {
		for start := 0; start < len(texts); start += spec.FragsPerPage {
			if err := loadPage(ctx, tx, emb, t.ID, domains[d], t.Pages, texts[start:min(start+spec.FragsPerPage, len(texts))]); err != nil {
				return t, err
			}
			t.Pages++
			t.Fragments += min(spec.FragsPerPage, len(texts)-start)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return t, fmt.Errorf("synthetic task: commit: %w", err)
	}
	if err := vacuum(ctx, pool, "tasks, claims, pages, page_versions, fragments, task_pages, domains, edges"); err != nil {
		return t, err
	}
	return t, nil
}

// vacuum VACUUMs and ANALYZEs tables as autovacuum would have by the time
// the measured work reads them, with every commit flushed first and its
// own commits synchronous. The scratch server commits asynchronously
// (scripts/with-postgres.sh), and Postgres sets no hint bit on a tuple
// whose inserting commit (or any later commit of its group in the commit
// log) is not yet on disk, nor marks its page all-visible: the load's
// VACUUM left most pages out of the visibility map, so the runs' index-only
// scans read the heap and their first readers wrote the hint bits.
func vacuum(ctx context.Context, pool *pgxpool.Pool, tables string) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("vacuum %s: %w", tables, err)
	}
	defer conn.Release()
	for _, q := range []string{"SET synchronous_commit = on", "SELECT txid_current()", "VACUUM ANALYZE " + tables, "RESET synchronous_commit"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			_ = conn.Conn().Close(ctx) // not back into the pool with the setting
			return fmt.Errorf("vacuum %s: %s: %w", tables, q, err)
		}
	}
	return nil
}

// loadPage writes one page of the task: its version is the fragments'
// texts joined by blank lines, with exact character offsets.
func loadPage(ctx context.Context, tx pgx.Tx, emb models.Embedder, taskID int64, domain string, n int, texts []string) error {
	url := fmt.Sprintf("https://%s/t%d/p%d", domain, taskID, n)
	var pageID, versionID int64
	content := strings.Join(texts, "\n\n")
	sum := sha256.Sum256([]byte(content))
	err := tx.QueryRow(ctx, `
		WITH p AS (INSERT INTO pages (url, domain, title, fetched_at, http_status) VALUES ($1, $2, $1, now(), 200) RETURNING id),
		     v AS (INSERT INTO page_versions (page_id, sha256, content) SELECT id, $3, $4 FROM p RETURNING id, page_id),
		     tp AS (INSERT INTO task_pages (task_id, page_id, page_version_id, reason) SELECT $5, page_id, id, 'url_target' FROM v)
		SELECT page_id, id FROM v`, url, domain, hex.EncodeToString(sum[:]), content, taskID).Scan(&pageID, &versionID)
	if err != nil {
		return fmt.Errorf("synthetic page %s: %w", url, err)
	}
	vecs, err := emb.Embed(ctx, append(texts, url)) // the title is the URL
	if err != nil {
		return fmt.Errorf("embed synthetic fragments: %w", err)
	}
	title := vecs[len(texts)]
	for i := range texts {
		vecs[i] = models.PassageVector(vecs[i], title)
	}
	rows := make([][]any, len(texts))
	offset := 0
	for i, text := range texts {
		n := utf8.RuneCountInString(text)
		rows[i] = []any{pageID, versionID, int32(offset), int32(offset + n), text, store.EncodeVector(vecs[i]), models.PassageModel(emb)}
		offset += n + 2 // the blank line
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"fragments"},
		[]string{"page_id", "page_version_id", "start_char", "end_char", "text", "embedding", "embed_model"},
		pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("synthetic fragments of %s: %w", url, err)
	}
	return nil
}

// ClimateFeverFile is the Climate-FEVER dev sample under a data directory
// laid out as the repository's testdata/.
func ClimateFeverFile(dataDir string) string {
	return filepath.Join(dataDir, "climate-fever", "climate-fever-dev.jsonl")
}
