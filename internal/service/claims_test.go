package service_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/internal/service"
)

// The console's reads have tenancy probes like every operation's
// (tenancy_test.go): given the owner's task, claim or edge, another
// organization is answered not found.
func init() {
	probes["ListClaims"] = func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.ListClaims(ctx, org, b.task, service.ClaimFilter{}, 0, 0)
		return err
	}
	probes["ClaimView"] = func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.ClaimView(ctx, org, b.claim)
		return err
	}
	probes["ClaimOrigin"] = func(ctx context.Context, b *tenancyBundle, org string) error {
		// the bundle's claim is the hypothesis: quote its page in another
		var claim int64
		if err := b.pool.QueryRow(ctx, `
			WITH c AS (
				INSERT INTO claims (task_id, evidence_no, text, text_hash, kind, origin_fragment_id, page_version_id, quote_start, quote_end)
				SELECT $1, 95, f.text, 'origin-probe', 'extracted', f.id, f.page_version_id, f.start_char, f.end_char
				FROM fragments f JOIN pages p ON p.id = f.page_id WHERE p.url = 'https://a.example.org/'
				ON CONFLICT DO NOTHING RETURNING id)
			SELECT id FROM c UNION ALL SELECT id FROM claims WHERE task_id = $1 AND evidence_no = 95`, b.task).Scan(&claim); err != nil {
			return err
		}
		_, err := b.svc.ClaimOrigin(ctx, org, claim)
		return err
	}
	probes["EdgeSource"] = func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.EdgeSource(ctx, org, b.edge)
		return err
	}
	// the owner's task reaches the edge's page: the owner's review lists
	// its domain, another's does not (not listed: not found)
	probes["SourceReview"] = func(ctx context.Context, b *tenancyBundle, org string) error {
		if _, err := b.pool.Exec(ctx, `INSERT INTO task_pages (task_id, page_id, reason)
			SELECT $1, id, 'url_target' FROM pages WHERE url = 'https://a.example.org/' ON CONFLICT DO NOTHING`, b.task); err != nil {
			return err
		}
		r, err := b.svc.SourceReview(ctx, org, 0)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(r.Domains, func(d service.DomainCount) bool { return d.Domain == "a.example.org" }) {
			return errs.Task(b.task, errs.ErrTaskNotFound)
		}
		return nil
	}
	// the owner changes its view of a domain first: its audit lists the
	// change, another's does not (not listed: not found)
	probes["Audit"] = func(ctx context.Context, b *tenancyBundle, org string) error {
		if org == b.strangerOrg {
			if _, err := b.svc.ChangeDomainView(ctx, b.ownerOrg, "a.example.org", service.DomainViewChange{Action: "set", Level: "LOW",
				Reason: "audit probe", By: "probe"}); err != nil {
				return err
			}
		}
		page, err := b.svc.Audit(ctx, org, 0, "")
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(page.Items, func(e service.AuditEntry) bool { return e.Reason == "audit probe" }) {
			return errs.Task(b.task, errs.ErrTaskNotFound)
		}
		return nil
	}
}

// consoleBundle: organization alpha's task with six claims — E1 the
// hypothesis, E2 quoted from page A (a.example.org, ACADEMIC fleet-wide;
// Japanese and emoji before the quote, an older version of two), E3 from
// page B (b.example.org, LOW in alpha's view), E4 from page C
// (c.example.org, BLOCKED fleet-wide by claims of both organizations), E5
// and E6 more hypotheses — and NLI edges into E1 and E2; beta's task
// reaches page C, with a claim quoted from it and an edge from page B.
type consoleBundle struct {
	svc                     *service.Service
	pool                    *pgxpool.Pool
	task, betaTask          int64
	claims                  map[string]int64 // alpha's by E-number
	betaClaim, betaEdge     int64
	pageA, pageB, pageC     int64
	versionA1, versionA2    int64
	quoteA, introB, sentB   int64 // fragments: E2's quote on A1, B's first and second sentences
	firstA, fragC           int64 // A1's first sentence, C's text
	edges                   map[string]int64
	contentA1, contentB     string
	hypothesis, hypothesis2 string
}

const consoleQuote = "Ice sheets thin fast."

func setupConsole(t *testing.T) *consoleBundle {
	t.Helper()
	ctx := context.Background()
	svc, pool := newService(t)
	b := &consoleBundle{svc: svc, pool: pool, claims: map[string]int64{}, edges: map[string]int64{},
		hypothesis: "Sea level rise is accelerating.", hypothesis2: "The beta organization's hypothesis."}
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := pool.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	id := func(sql string, args ...any) int64 {
		t.Helper()
		var id int64
		if err := pool.QueryRow(ctx, sql, args...).Scan(&id); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return id
	}
	task, err := svc.CreateTask(ctx, "alpha", intake.TaskSpec{Hypothesis: b.hypothesis})
	if err != nil {
		t.Fatal(err)
	}
	beta, err := svc.CreateTask(ctx, "beta", intake.TaskSpec{Hypothesis: b.hypothesis2})
	if err != nil {
		t.Fatal(err)
	}
	b.task, b.betaTask = task.ID, beta.ID
	b.claims["E1"] = id(`SELECT id FROM claims WHERE task_id = $1`, b.task)

	// page A: more than ContextRunes characters of Japanese and emoji on
	// both sides of the quote; a newer version fetched since
	pre := strings.Repeat("氷河が後退している。🌊", 160) // 11 characters each
	b.contentA1 = pre + consoleQuote + strings.Repeat(" 海面が上昇🧊", 300)
	exec(`INSERT INTO domains (domain, trust_level) VALUES ('a.example.org', 'ACADEMIC'), ('b.example.org', 'UNVERIFIED')`)
	exec(`INSERT INTO org_domain_levels (organization_id, domain, trust_level, level_source) VALUES ('alpha', 'b.example.org', 'LOW', 'reviewer')`)
	b.pageA = id(`INSERT INTO pages (url, domain, title) VALUES ('https://a.example.org/ice', 'a.example.org', 'Ice') RETURNING id`)
	b.versionA1 = id(`INSERT INTO page_versions (page_id, sha256, content, fetched_at) VALUES ($1, 'a1', $2, now() - interval '2 days') RETURNING id`,
		b.pageA, b.contentA1)
	b.versionA2 = id(`INSERT INTO page_versions (page_id, sha256, content) VALUES ($1, 'a2', $2) RETURNING id`,
		b.pageA, "A newer version. "+consoleQuote+" Updated.")
	b.contentB = "Ünïcödé intro 🚀. The ice sheets grow. End."
	b.pageB = id(`INSERT INTO pages (url, domain) VALUES ('https://b.example.org/1', 'b.example.org') RETURNING id`)
	versionB := id(`INSERT INTO page_versions (page_id, sha256, content) VALUES ($1, 'b', $2) RETURNING id`, b.pageB, b.contentB)
	b.pageC = id(`INSERT INTO pages (url, domain) VALUES ('https://c.example.org/1', 'c.example.org') RETURNING id`)
	versionC := id(`INSERT INTO page_versions (page_id, sha256, content) VALUES ($1, 'c', 'Blocked source text.') RETURNING id`, b.pageC)
	for _, p := range []struct{ page, version int64 }{{b.pageA, b.versionA1}, {b.pageB, versionB}, {b.pageC, versionC}} {
		exec(`INSERT INTO task_pages (task_id, page_id, page_version_id, reason) VALUES ($1, $2, $3, 'url_target')`, b.task, p.page, p.version)
	}
	exec(`INSERT INTO task_pages (task_id, page_id, page_version_id, reason) VALUES ($1, $2, $3, 'url_target')`, b.betaTask, b.pageC, versionC)

	// a fragment of a version at [start, end), in characters, its text
	// the version's there
	fragment := func(page, version int64, start, end int) int64 {
		t.Helper()
		return id(`INSERT INTO fragments (page_id, page_version_id, start_char, end_char, text)
			SELECT $1, id, $3, $4, substring(content FROM $3 + 1 FOR $4 - $3) FROM page_versions WHERE id = $2 RETURNING id`,
			page, version, start, end)
	}
	preRunes := len([]rune(pre))
	b.quoteA = fragment(b.pageA, b.versionA1, preRunes, preRunes+len(consoleQuote))
	b.firstA = fragment(b.pageA, b.versionA1, 0, 10)
	b.introB = fragment(b.pageB, versionB, 0, 16)
	b.sentB = fragment(b.pageB, versionB, 17, 37)
	b.fragC = fragment(b.pageC, versionC, 0, 20)

	// claims: the next E-number of the task, quoting a fragment (0: a
	// hypothesis), with a verdict and a status
	claim := func(task int64, fragment int64, text, verdict, verification string) (int64, string) {
		t.Helper()
		no := id(`UPDATE tasks SET next_evidence_no = next_evidence_no + 1 WHERE id = $1 RETURNING next_evidence_no - 1`, task)
		var c int64
		if fragment == 0 {
			c = id(`INSERT INTO claims (task_id, evidence_no, text, text_hash, kind, verdict, verification_status)
				VALUES ($1, $2, $3, md5($3), 'hypothesis', $4, $5) RETURNING id`, task, no, text, verdict, verification)
		} else {
			c = id(`INSERT INTO claims (task_id, evidence_no, text, text_hash, kind, origin_fragment_id, page_version_id, quote_start, quote_end,
				llm_claim_confidence, extractor_model, verdict, verification_status)
				SELECT $1, $2, $3, md5($3), 'extracted', f.id, f.page_version_id, f.start_char, f.end_char, 0.75, 'extractor-test', $5, $6
				FROM fragments f WHERE f.id = $4 RETURNING id`, task, no, text, fragment, verdict, verification)
		}
		return c, fmt.Sprintf("E%d", no)
	}
	for _, c := range []struct {
		fragment              int64
		text                  string
		verdict, verification string
	}{
		{b.quoteA, "Ice sheets are thinning fast.", "supported", "verified"},
		{b.sentB, "The ice sheets grow.", "likely_false", "rejected"},
		{b.fragC, "A blocked source says so.", "unverified", "pending"},
		{0, "A second hypothesis.", "unverified", "pending"},
		{0, "A third hypothesis.", "unverified", "pending"},
	} {
		id, no := claim(b.task, c.fragment, c.text, c.verdict, c.verification)
		b.claims[no] = id
	}
	b.betaClaim, _ = claim(b.betaTask, b.fragC, "Beta's quote of C.", "unverified", "pending")

	edge := func(name string, fragment, claim int64, relation string, confidence any) {
		t.Helper()
		b.edges[name] = id(`INSERT INTO edges (source_type, source_id, target_type, target_id, relation, nli_edge_confidence, nli_model)
			VALUES ('fragment', $1, 'claim', $2, $3, $4, 'nli-test') RETURNING id`, fragment, claim, relation, confidence)
	}
	edge("A→E1", b.quoteA, b.claims["E1"], "supports", 0.95)
	edge("B→E2", b.sentB, b.claims["E2"], "refutes", 0.9)
	edge("A1→E2", b.firstA, b.claims["E2"], "supports", 0.6)
	edge("C→E2", b.fragC, b.claims["E2"], "supports", 0.8)
	edge("Bintro→E2", b.introB, b.claims["E2"], "neutral", nil)
	edge("A→E2", b.quoteA, b.claims["E2"], "neutral", 0.3)
	edge("beta", b.sentB, b.betaClaim, "supports", 0.7)
	b.betaEdge = b.edges["beta"]

	// C is blocked fleet-wide for claims and edges of both organizations;
	// d.example.org, which only a failed target of alpha's names, too
	exec(`INSERT INTO domains (domain, trust_level, blocked_at, block_reason, level_set_by, block_claim_ids, block_edge_ids)
		VALUES ('c.example.org', 'BLOCKED', now(), 'high_rejection_rate', 'source verification', $1, $2),
		       ('d.example.org', 'BLOCKED', now(), 'manual', 'an operator', '{}', '{}')`,
		[]int64{b.claims["E4"], b.betaClaim}, []int64{b.edges["C→E2"], b.betaEdge, 999999})
	exec(`INSERT INTO targets (task_id, kind, value, status, error) VALUES ($1, 'url', 'https://d.example.org/x', 'failed', 'blocked_domain')`, b.task)
	return b
}

func TestListClaims(t *testing.T) {
	t.Parallel()
	b := setupConsole(t)
	ctx := context.Background()
	list := func(t *testing.T, f service.ClaimFilter, limit int) ([]service.ClaimRow, int) {
		t.Helper()
		var all []service.ClaimRow
		after, total := 0, -1
		for pages := 0; ; pages++ {
			if pages > 20 {
				t.Fatal("NextAfter does not end")
			}
			page, err := b.svc.ListClaims(ctx, "alpha", b.task, f, after, limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Items) > limit || total >= 0 && page.Total != total {
				t.Fatalf("page after E%d: %d items (limit %d), total %d (was %d)", after, len(page.Items), limit, page.Total, total)
			}
			all, total = append(all, page.Items...), page.Total
			if page.NextAfter == 0 {
				break
			}
			after = page.NextAfter
		}
		return all, total
	}
	nos := func(rows []service.ClaimRow) []string {
		var out []string
		for _, r := range rows {
			out = append(out, r.EvidenceNo)
		}
		return out
	}

	t.Run("all, two at a time, in E-number order", func(t *testing.T) {
		t.Parallel()
		all, total := list(t, service.ClaimFilter{}, 2)
		if want := []string{"E1", "E2", "E3", "E4", "E5", "E6"}; !slices.Equal(nos(all), want) || total != 6 {
			t.Fatalf("claims %v (total %d), want %v", nos(all), total, want)
		}
		byNo := map[string]service.ClaimRow{}
		for _, r := range all {
			byNo[r.EvidenceNo] = r
		}
		if e1 := byNo["E1"]; e1.Kind != "hypothesis" || e1.Text != b.hypothesis || e1.Domain != "" || e1.OriginLevel != "" || e1.ID != b.claims["E1"] {
			t.Errorf("E1 %+v, want the hypothesis with no domain", e1)
		}
		if e2 := byNo["E2"]; e2.Domain != "a.example.org" || e2.OriginLevel != "ACADEMIC" || e2.Verdict != "supported" || e2.Verification != "verified" ||
			e2.Confidence != 0.5 || e2.Alpha != 1 || e2.Beta != 1 || e2.Belief != 0.5 || e2.PropagatedBelief != 0.5 {
			t.Errorf("E2 %+v, want a.example.org at ACADEMIC, supported, verified, with the schema's default posterior", e2)
		}
		if e3 := byNo["E3"]; e3.Domain != "b.example.org" || e3.OriginLevel != "LOW" {
			t.Errorf("E3 from %s at %s, want b.example.org at LOW (alpha's view)", e3.Domain, e3.OriginLevel)
		}
		if e4 := byNo["E4"]; e4.OriginLevel != "BLOCKED" {
			t.Errorf("E4 at %s, want BLOCKED", e4.OriginLevel)
		}
	})
	t.Run("filters", func(t *testing.T) {
		t.Parallel()
		for _, c := range []struct {
			f    service.ClaimFilter
			want []string
		}{
			{service.ClaimFilter{Verdict: "supported"}, []string{"E2"}},
			{service.ClaimFilter{Verdict: "unverified"}, []string{"E1", "E4", "E5", "E6"}},
			{service.ClaimFilter{Verification: "rejected"}, []string{"E3"}},
			{service.ClaimFilter{Verdict: "unverified", Verification: "pending"}, []string{"E1", "E4", "E5", "E6"}},
			{service.ClaimFilter{Verdict: "supported", Verification: "pending"}, nil},
			{service.ClaimFilter{Verdict: "contested"}, nil},
		} {
			got, total := list(t, c.f, 3)
			if !slices.Equal(nos(got), c.want) || total != len(c.want) {
				t.Errorf("filter %+v: %v (total %d), want %v", c.f, nos(got), total, c.want)
			}
		}
	})
	t.Run("a page from after an E-number", func(t *testing.T) {
		t.Parallel()
		page, err := b.svc.ListClaims(ctx, "alpha", b.task, service.ClaimFilter{Verdict: "unverified"}, 1, 2)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(nos(page.Items), []string{"E4", "E5"}) || page.NextAfter != 5 || page.Total != 4 {
			t.Errorf("unverified after E1, two: %v, next %d, total %d; want E4 E5, next 5, total 4", nos(page.Items), page.NextAfter, page.Total)
		}
	})
	t.Run("bad input names the field", func(t *testing.T) {
		t.Parallel()
		for _, c := range []struct {
			f            service.ClaimFilter
			after, limit int
			field        string
		}{
			{service.ClaimFilter{Verdict: "true"}, 0, 0, "verdict"},
			{service.ClaimFilter{Verification: "approved"}, 0, 0, "verification_status"},
			{service.ClaimFilter{}, -1, 0, "after"},
			{service.ClaimFilter{}, 0, -1, "limit"},
			{service.ClaimFilter{}, 0, service.MaxClaimLimit + 1, "limit"},
		} {
			_, err := b.svc.ListClaims(ctx, "alpha", b.task, c.f, c.after, c.limit)
			if !errors.Is(err, errs.ErrBadInput) || !strings.Contains(err.Error(), c.field) {
				t.Errorf("ListClaims(%+v, after %d, limit %d) = %v, want bad input naming %s", c.f, c.after, c.limit, err, c.field)
			}
		}
	})
	t.Run("another organization's task is not found", func(t *testing.T) {
		t.Parallel()
		_, err := b.svc.ListClaims(ctx, "beta", b.task, service.ClaimFilter{}, 0, 0)
		if !errors.Is(err, errs.ErrTaskNotFound) || !strings.Contains(err.Error(), fmt.Sprint(b.task)) {
			t.Errorf("beta listing alpha's task: %v, want task %d not found", err, b.task)
		}
	})
}

func TestClaimView(t *testing.T) {
	t.Parallel()
	b := setupConsole(t)
	ctx := context.Background()
	t.Run("a claim with its evidence by relation, strongest first", func(t *testing.T) {
		t.Parallel()
		v, err := b.svc.ClaimView(ctx, "alpha", b.claims["E2"])
		if err != nil {
			t.Fatal(err)
		}
		if v.Claim.EvidenceNo != "E2" || v.TaskID != b.task || v.Hypothesis != b.hypothesis || v.Claim.Domain != "a.example.org" {
			t.Errorf("view %+v, want E2 of task %d under its hypothesis", v.Claim, b.task)
		}
		ids := func(rows []service.EvidenceRow) []int64 {
			var out []int64
			for _, r := range rows {
				out = append(out, r.EdgeID)
			}
			return out
		}
		if got, want := ids(v.Supporting), []int64{b.edges["C→E2"], b.edges["A1→E2"]}; !slices.Equal(got, want) {
			t.Errorf("supporting %v, want %v (0.8 before 0.6)", got, want)
		}
		if got, want := ids(v.Refuting), []int64{b.edges["B→E2"]}; !slices.Equal(got, want) {
			t.Errorf("refuting %v, want %v", got, want)
		}
		if got, want := ids(v.Neutral), []int64{b.edges["A→E2"], b.edges["Bintro→E2"]}; !slices.Equal(got, want) {
			t.Errorf("neutral %v, want %v (no confidence last)", got, want)
		}
		r := v.Refuting[0]
		if r.Text != "The ice sheets grow." || r.PageID != b.pageB || r.Domain != "b.example.org" || r.Level != "LOW" || r.URL != "https://b.example.org/1" ||
			r.Confidence == nil || *r.Confidence != 0.9 || r.Model != "nli-test" || r.CorrectedBy != "" || r.StartChar != 17 || r.EndChar != 37 {
			t.Errorf("refuting edge %+v", r)
		}
		if s := v.Supporting[0]; s.Level != "BLOCKED" || s.Text != "Blocked source text." {
			t.Errorf("supporting edge from C %+v, want its text at BLOCKED", s)
		}
		if n := v.Neutral[0]; n.Text != consoleQuote || n.PageVersionID != b.versionA1 {
			t.Errorf("neutral edge from A %+v, want the quote on the older version %d", n, b.versionA1)
		}
	})
	t.Run("a person's correction shows who made it", func(t *testing.T) {
		t.Parallel()
		if _, err := b.svc.CorrectEdge(ctx, "alpha", service.EdgeCorrection{EdgeID: b.edges["A→E1"], Relation: "refutes", Reason: "misread", By: "rev-a"}); err != nil {
			t.Fatal(err)
		}
		v, err := b.svc.ClaimView(ctx, "alpha", b.claims["E1"])
		if err != nil {
			t.Fatal(err)
		}
		if len(v.Supporting) != 0 || len(v.Refuting) != 1 || v.Refuting[0].CorrectedBy != "rev-a" || *v.Refuting[0].Confidence != 1 {
			t.Errorf("E1's evidence after the correction: %+v", v)
		}
		if v.Claim.Domain != "" || v.Claim.OriginLevel != "" || v.Claim.Kind != "hypothesis" {
			t.Errorf("the hypothesis %+v, want no domain", v.Claim)
		}
	})
	t.Run("another organization's claim is not found", func(t *testing.T) {
		t.Parallel()
		_, other := b.svc.ClaimView(ctx, "beta", b.claims["E2"])
		_, missing := b.svc.ClaimView(ctx, "beta", b.claims["E2"]+10000)
		if !errors.Is(other, errs.ErrClaimNotFound) || !errors.Is(missing, errs.ErrClaimNotFound) ||
			strings.Replace(other.Error(), fmt.Sprint(b.claims["E2"]), "N", 1) != strings.Replace(missing.Error(), fmt.Sprint(b.claims["E2"]+10000), "N", 1) {
			t.Errorf("beta reading alpha's claim: %v; a missing claim: %v; want the same not found", other, missing)
		}
		if _, err := b.svc.ClaimView(ctx, "alpha", b.betaClaim); !errors.Is(err, errs.ErrClaimNotFound) {
			t.Errorf("alpha reading beta's claim: %v, want not found", err)
		}
	})
}
