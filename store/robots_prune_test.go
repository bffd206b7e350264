package store_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestOrphanSweepKeepsTheRobotsCapturesPagesNeed: the orphan sweep deletes
// a robots.txt capture no page capture needs (none of its origin's pages
// was captured at or after it and before the origin's next one), a recent
// one never, and one whose page version went with the same sweep; the
// export still finds the one a kept page needs.
func TestOrphanSweepKeepsTheRobotsCapturesPagesNeed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tx := pgtest.Tx(t)
	q := store.New(tx)
	now := time.Now().UTC().Truncate(time.Microsecond)
	t0 := now.Add(-10 * 24 * time.Hour)
	robots := func(origin string, at time.Time) store.CaptureWrite {
		return store.CaptureWrite{URL: origin + "/robots.txt", CapturedAt: at, Status: 200,
			Header: "Content-Type: text/plain\r\n", Body: []byte("User-agent: *\nAllow: /\n")}
	}
	// write stores a page fetched at `at` with the robots.txt captures its
	// fetch read, as target_queue does.
	write := func(url string, at time.Time, read ...store.CaptureWrite) store.PageStored {
		t.Helper()
		content := "Glaciers lost 3 percent of their ice in 2022, " + url
		sum := sha256.Sum256([]byte(content))
		st, err := q.StorePage(ctx, store.PageWrite{URL: url, FinalURL: url, Title: url, Fetched: true, Status: 200,
			ContentType: "text/html", FetchedAt: at, SHA256: hex.EncodeToString(sum[:]), Content: content,
			Fragments: []store.FragmentSpan{{Start: 0, End: len(content), Text: content}},
			Capture:   &store.CaptureWrite{URL: url, CapturedAt: at, Status: 200, Header: "Content-Type: text/html\r\n", Body: []byte(content)},
			Robots:    read})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	const a, b = "https://a.example", "https://b.example"
	task := fixture.Task(t, tx, "glaciers")
	kept := write(a+"/glaciers", t0.Add(2*time.Hour), robots(a, t0), robots(a, t0.Add(time.Hour)))
	if _, err := tx.Exec(ctx, `INSERT INTO task_pages (task_id, page_id, page_version_id, reason, depth) VALUES ($1, $2, $3, 'url_target', 0)`,
		task, kept.PageID, kept.VersionID); err != nil {
		t.Fatal(err)
	}
	write(a+"/later", now.Add(-time.Minute), robots(a, t0.Add(5*time.Hour)), robots(a, now.Add(-time.Hour)))
	write(b+"/orphan", t0.Add(2*time.Hour), robots(b, t0.Add(time.Hour))) // no task reaches it
	// a/later's version is no task's either: the sweep takes it, and with
	// it the page capture that needed the robots.txt of an hour ago, which
	// stays for being recent.

	res, err := q.Cleanup(ctx, store.CleanupRequest{Mode: "orphans", Orphans: true, RobotsKeptSince: now.Add(-48 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := tx.Query(ctx, `SELECT origin || ' ' || (captured_at - $1::timestamptz)::text FROM robots_captures WHERE origin = ANY($2) ORDER BY 1`,
		t0, []string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		left = append(left, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{a + " 01:00:00", a + " 9 days 23:00:00"}
	if !slices.Equal(left, want) {
		t.Errorf("robots.txt captures left %q, want %q: the one the kept page was fetched under and the recent one", left, want)
	}
	if res.RobotsCaptures != 3 {
		t.Errorf("sweep counted %d robots.txt captures deleted, want 3 (a's superseded and unneeded ones, b's whose page went)", res.RobotsCaptures)
	}
	got, err := q.RobotsCapturesBefore(ctx, store.RobotsCapturesBeforeParams{Origins: []string{a}, Ats: []time.Time{t0.Add(2 * time.Hour)}})
	if err != nil || len(got) != 1 || !got[0].CapturedAt.Equal(t0.Add(time.Hour)) {
		t.Errorf("the kept page's robots.txt for the export: %+v (%v), want the capture of t0+1h", got, err)
	}

	// Without a time, nothing is pruned.
	write(b+"/again", t0.Add(3*time.Hour), robots(b, t0.Add(3*time.Hour)))
	res, err = q.Cleanup(ctx, store.CleanupRequest{Mode: "orphans", Orphans: true})
	if err != nil || res.RobotsCaptures != 0 {
		t.Errorf("a sweep without RobotsKeptSince deleted %d robots.txt captures (%v), want 0", res.RobotsCaptures, err)
	}
}
