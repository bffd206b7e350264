package service_test

import (
	"context"
	"errors"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/service"
)

// checkSpan compares a span's text and context with its version's
// content, cut in characters by Go and by Postgres' substring.
func (b *consoleBundle) checkSpan(t *testing.T, sc service.SpanContext) {
	t.Helper()
	var content, pgText string
	if err := b.pool.QueryRow(context.Background(), `SELECT content, substring(content FROM $2 + 1 FOR $3 - $2) FROM page_versions WHERE id = $1`,
		sc.PageVersionID, sc.StartChar, sc.EndChar).Scan(&content, &pgText); err != nil {
		t.Fatal(err)
	}
	runes := []rune(content)
	start, end := int(sc.StartChar), int(sc.EndChar)
	from, to := max(start-service.ContextRunes, 0), min(end+service.ContextRunes, len(runes))
	if sc.Text != pgText || sc.Text != string(runes[start:end]) {
		t.Errorf("text %q, the version has %q at [%d, %d)", sc.Text, pgText, start, end)
	}
	if sc.Before != string(runes[from:start]) || int(sc.BeforeStart) != from {
		t.Errorf("before from %d: %q, want %d characters from %d", sc.BeforeStart, sc.Before, start-from, from)
	}
	if sc.After != string(runes[end:to]) {
		t.Errorf("after: %d characters, want %d", len([]rune(sc.After)), to-end)
	}
	if sc.VersionRunes != len(runes) {
		t.Errorf("version of %d characters, it has %d", sc.VersionRunes, len(runes))
	}
}

func TestClaimOrigin(t *testing.T) {
	t.Parallel()
	b := setupConsole(t)
	ctx := context.Background()
	t.Run("the quote inside the cited version, bounded context", func(t *testing.T) {
		t.Parallel()
		sc, err := b.svc.ClaimOrigin(ctx, "alpha", b.claims["E2"])
		if err != nil {
			t.Fatal(err)
		}
		b.checkSpan(t, sc)
		if sc.Text != consoleQuote || len([]rune(sc.Before)) != service.ContextRunes || len([]rune(sc.After)) != service.ContextRunes {
			t.Errorf("text %q with %d characters before and %d after, want the quote with %d each side",
				sc.Text, len([]rune(sc.Before)), len([]rune(sc.After)), service.ContextRunes)
		}
		if len(sc.Before) == service.ContextRunes {
			t.Error("the context was cut in bytes, not characters")
		}
		if sc.PageVersionID != b.versionA1 || sc.NewestVersionID != b.versionA2 || sc.PageID != b.pageA {
			t.Errorf("version %d (newest %d) of page %d, want the cited %d, newest %d", sc.PageVersionID, sc.NewestVersionID, sc.PageID, b.versionA1, b.versionA2)
		}
		if sc.ClaimID != b.claims["E2"] || sc.EvidenceNo != "E2" || sc.TaskID != b.task || sc.EdgeID != 0 || sc.Relation != "origin" ||
			sc.Model != "extractor-test" || sc.Confidence == nil || *sc.Confidence != 0.75 {
			t.Errorf("source %+v, want E2's origin by its extractor", sc)
		}
		if sc.URL != "https://a.example.org/ice" || sc.Domain != "a.example.org" || sc.Title != "Ice" || sc.Level != "ACADEMIC" || sc.FetchedAt.IsZero() {
			t.Errorf("page %s %s %q at %s, fetched %s", sc.URL, sc.Domain, sc.Title, sc.Level, sc.FetchedAt)
		}
	})
	t.Run("a short version is shown whole", func(t *testing.T) {
		t.Parallel()
		sc, err := b.svc.ClaimOrigin(ctx, "alpha", b.claims["E3"])
		if err != nil {
			t.Fatal(err)
		}
		b.checkSpan(t, sc)
		if sc.Before+sc.Text+sc.After != b.contentB || sc.BeforeStart != 0 || sc.NewestVersionID != sc.PageVersionID || sc.Level != "LOW" {
			t.Errorf("%q + %q + %q from %d (newest %d), want the whole of page B", sc.Before, sc.Text, sc.After, sc.BeforeStart, sc.NewestVersionID)
		}
	})
	t.Run("a hypothesis has no source span", func(t *testing.T) {
		t.Parallel()
		_, err := b.svc.ClaimOrigin(ctx, "alpha", b.claims["E1"])
		if !errors.Is(err, service.ErrNoSourceSpan) || !errors.Is(err, errs.ErrClaimNotFound) {
			t.Errorf("origin of the hypothesis: %v, want ErrNoSourceSpan", err)
		}
	})
	t.Run("another organization's claim is not found", func(t *testing.T) {
		t.Parallel()
		for _, c := range []int64{b.claims["E2"], b.claims["E1"]} {
			_, err := b.svc.ClaimOrigin(ctx, "beta", c)
			if !errors.Is(err, errs.ErrClaimNotFound) || errors.Is(err, service.ErrNoSourceSpan) {
				t.Errorf("beta asking for claim %d's origin: %v, want only not found", c, err)
			}
		}
	})
}

func TestEdgeSource(t *testing.T) {
	t.Parallel()
	b := setupConsole(t)
	ctx := context.Background()
	t.Run("an edge's premise inside its version", func(t *testing.T) {
		t.Parallel()
		sc, err := b.svc.EdgeSource(ctx, "alpha", b.edges["A→E2"])
		if err != nil {
			t.Fatal(err)
		}
		b.checkSpan(t, sc)
		if sc.EdgeID != b.edges["A→E2"] || sc.Relation != "neutral" || sc.ClaimID != b.claims["E2"] || sc.EvidenceNo != "E2" || sc.TaskID != b.task ||
			sc.Model != "nli-test" || *sc.Confidence != 0.3 || sc.Text != consoleQuote || sc.PageVersionID != b.versionA1 || sc.NewestVersionID != b.versionA2 {
			t.Errorf("edge source %+v", sc)
		}
	})
	t.Run("from the start of a version", func(t *testing.T) {
		t.Parallel()
		sc, err := b.svc.EdgeSource(ctx, "alpha", b.edges["A1→E2"])
		if err != nil {
			t.Fatal(err)
		}
		b.checkSpan(t, sc)
		if sc.Before != "" || sc.BeforeStart != 0 || sc.Text != "氷河が後退している。" || sc.Relation != "supports" {
			t.Errorf("%q before %q (from %d), %s", sc.Before, sc.Text, sc.BeforeStart, sc.Relation)
		}
	})
	t.Run("another organization's edge, or no NLI edge, is not found", func(t *testing.T) {
		t.Parallel()
		var origin int64
		if err := b.pool.QueryRow(ctx, `INSERT INTO edges (source_type, source_id, target_type, target_id, relation)
			VALUES ('fragment', $1, 'claim', $2, 'origin') RETURNING id`, b.quoteA, b.claims["E2"]).Scan(&origin); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			org  string
			edge int64
		}{{"beta", b.edges["A→E2"]}, {"alpha", b.betaEdge}, {"alpha", origin}, {"alpha", 1 << 40}} {
			if _, err := b.svc.EdgeSource(ctx, c.org, c.edge); !errors.Is(err, errs.ErrEdgeNotFound) {
				t.Errorf("%s asking for edge %d: %v, want not found", c.org, c.edge, err)
			}
		}
	})
}
