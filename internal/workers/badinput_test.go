package workers_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// URLs of the bad-input replay archive.
const (
	badInputGoodA   = "https://en.wikipedia.org/wiki/Sea_ice"
	badInputGoodB   = "https://www.example-science.org/arctic/melt"
	badInputEmpty   = "https://blank.example.net/empty"
	badInputNoBody  = "https://blank.example.net/zero-bytes"
	badInputImage   = "https://img.example.net/chart.png"
	badInputMissing = "https://missing.example.org/not-archived"
)

// badInputBundle is a TxFleet with a replay archive holding two
// readable pages, two HTML pages without text and an image, plus one task.
type badInputBundle struct {
	ctx  context.Context
	f    *testfleet.TxFleet
	task int64
}

func setupBadInput(t *testing.T) *badInputBundle {
	t.Helper()
	// A minimal PNG header: the body does not matter, the content type does.
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00")
	pages := []corpus.Page{
		testfleet.Page(badInputGoodA, "Sea ice",
			"Arctic sea ice has declined in recent decades in area and volume due to climate change.",
			"The loss of sea ice reduces the ability of polar bears to hunt seals on the ice."),
		testfleet.Page(badInputGoodB, "Arctic melt",
			"Scientists report that Arctic sea ice is melting earlier each year because of warming temperatures.",
			"Polar bear populations are declining as the sea ice retreats further north every summer."),
		{URL: badInputEmpty, ContentType: "text/html; charset=utf-8",
			Body: []byte("<!doctype html><html><head><title>Nothing here</title></head><body></body></html>")},
		{URL: badInputNoBody, ContentType: "text/html; charset=utf-8", Body: []byte{}},
		{URL: badInputImage, ContentType: "image/png", Body: png},
	}
	f := testfleet.InTx(t, testfleet.Options{Pages: pages})
	task := f.CreateTask(t, "Arctic sea ice is declining because of climate change.")
	return &badInputBundle{ctx: context.Background(), f: f, task: task}
}

// targetArgs is a well-formed target_queue args object as another service writes it.
func targetArgs(task int64, url string) string {
	return fmt.Sprintf(`{"task_id":%d,"target":{"kind":"url","value":%q}}`, task, url)
}

// jobAttempts returns a job's attempt counter and the number of errors River recorded.
func (b *badInputBundle) jobAttempts(t *testing.T, id int64) (attempt, errs int) {
	t.Helper()
	err := b.f.Tx.QueryRow(b.ctx, `SELECT attempt, COALESCE(array_length(errors, 1), 0) FROM river_job WHERE id = $1`, id).
		Scan(&attempt, &errs)
	if err != nil {
		t.Fatalf("read job %d: %v", id, err)
	}
	return attempt, errs
}

// target returns the status and error of the task's URL target.
func (b *badInputBundle) target(t *testing.T, url string) (status, errMsg string) {
	t.Helper()
	err := b.f.Tx.QueryRow(b.ctx, `SELECT status, COALESCE(error, '') FROM targets WHERE task_id = $1 AND kind = 'url' AND value = $2`,
		b.task, url).Scan(&status, &errMsg)
	if err != nil {
		t.Fatalf("read target %s: %v", url, err)
	}
	return status, errMsg
}

// targetJobID finds the task's target_queue job for a URL.
func (b *badInputBundle) targetJobID(t *testing.T, url string) int64 {
	t.Helper()
	var id int64
	err := b.f.Tx.QueryRow(b.ctx, `SELECT id FROM river_job WHERE kind = 'target_queue'
		AND args ->> 'task_id' = $1::text AND args -> 'target' ->> 'value' = $2`, fmt.Sprint(b.task), url).Scan(&id)
	if err != nil {
		t.Fatalf("find target_queue job for %s: %v", url, err)
	}
	return id
}

// requireExtracted checks the URL was stored as a page of the task with a
// version, fragments and extracted claims, and its target marked extracted.
func (b *badInputBundle) requireExtracted(t *testing.T, url string) {
	t.Helper()
	if status, errMsg := b.target(t, url); status != "extracted" || errMsg != "" {
		t.Errorf("target %s: status %q error %q, want extracted without error", url, status, errMsg)
	}
	var versions, fragments, claims int
	err := b.f.Tx.QueryRow(b.ctx, `
		SELECT (SELECT count(*) FROM page_versions v WHERE v.page_id = p.id),
		       (SELECT count(*) FROM fragments fr WHERE fr.page_id = p.id),
		       (SELECT count(*) FROM claims c JOIN page_versions v ON v.id = c.page_version_id
		         WHERE v.page_id = p.id AND c.task_id = tp.task_id AND c.kind = 'extracted')
		FROM pages p JOIN task_pages tp ON tp.page_id = p.id AND tp.task_id = $1
		WHERE p.url = $2`, b.task, url).Scan(&versions, &fragments, &claims)
	if err != nil {
		t.Fatalf("page %s is not a stored page of task %d: %v\n%s", url, b.task, err, testfleet.JobDump(t, b.f.Tx))
	}
	if versions != 1 || fragments == 0 || claims == 0 {
		t.Errorf("page %s: %d versions, %d fragments, %d extracted claims; want 1 version and some fragments and claims",
			url, versions, fragments, claims)
	}
}

func TestRawInsertedTargetQueueJobIsProcessed(t *testing.T) {
	t.Parallel()
	b := setupBadInput(t)
	// Not normalised on purpose: the worker normalises like the CLI does.
	id := testfleet.InsertRawJob(t, b.f.Tx, jobs.KindTargetQueue, jobs.QueueTarget,
		targetArgs(b.task, "HTTPS://EN.Wikipedia.org/wiki/Sea_ice#History"))
	b.f.Drain(t)

	state, lastErr, output := testfleet.JobRow(t, b.f.Tx, id)
	if state != "completed" {
		t.Fatalf("job %d: state %s (error %q), want completed\n%s", id, state, lastErr, testfleet.JobDump(t, b.f.Tx))
	}
	if attempt, errs := b.jobAttempts(t, id); attempt != 1 || errs != 0 {
		t.Errorf("job %d: attempt %d with %d errors, want 1 attempt without errors", id, attempt, errs)
	}
	if !strings.Contains(string(output), `"page_id"`) || !strings.Contains(string(output), `"claims_new"`) {
		t.Errorf("job output %s lacks page_id/claims_new", output)
	}
	b.requireExtracted(t, badInputGoodA)

	// The follow-ups ran for the task: its fragments are embedded and the
	// hypothesis was verified against the page.
	var notEmbedded, verified int
	if err := b.f.Tx.QueryRow(b.ctx, `SELECT count(*) FROM fragments WHERE embedding IS NULL`).Scan(&notEmbedded); err != nil {
		t.Fatal(err)
	}
	if err := b.f.Tx.QueryRow(b.ctx, `SELECT count(*) FROM river_job WHERE kind = 'verify_nli' AND state = 'completed'
		AND args ->> 'task_id' = $1::text`, fmt.Sprint(b.task)).Scan(&verified); err != nil {
		t.Fatal(err)
	}
	if notEmbedded != 0 || verified == 0 {
		t.Errorf("after the raw job: %d fragments without embedding, %d completed verify_nli jobs; want 0 and >0", notEmbedded, verified)
	}
}

func TestMalformedRawJobsAreCancelledAfterOneAttemptWithTheReason(t *testing.T) {
	t.Parallel()
	b := setupBadInput(t)
	const missingTask = 987654
	cases := []struct {
		name      string
		kind      string
		queue     string
		args      string
		wantError []string // substrings of the error River recorded
	}{
		{"target_queue unknown field", jobs.KindTargetQueue, jobs.QueueTarget,
			fmt.Sprintf(`{"task_id":%d,"target":{"kind":"url","value":%q},"priority":"high"}`, b.task, badInputGoodB),
			[]string{`field "priority"`, "unknown field"}},
		{"target_queue string task_id", jobs.KindTargetQueue, jobs.QueueTarget,
			fmt.Sprintf(`{"task_id":"%d","target":{"kind":"url","value":%q}}`, b.task, badInputGoodB),
			[]string{`field "task_id"`, "expected an integer, got string"}},
		{"target_queue target as array", jobs.KindTargetQueue, jobs.QueueTarget,
			fmt.Sprintf(`{"task_id":%d,"target":[%q]}`, b.task, badInputGoodB),
			[]string{`field "target"`, "expected an object, got array"}},
		{"target_queue missing task_id", jobs.KindTargetQueue, jobs.QueueTarget,
			fmt.Sprintf(`{"target":{"kind":"url","value":%q}}`, badInputGoodB),
			[]string{`field "task_id"`, "required"}},
		{"target_queue negative task_id", jobs.KindTargetQueue, jobs.QueueTarget,
			targetArgs(-1, badInputGoodB),
			[]string{`field "task_id"`, "positive"}},
		{"target_queue ftp URL", jobs.KindTargetQueue, jobs.QueueTarget,
			targetArgs(b.task, "ftp://example.com/file"),
			[]string{`field "target.value"`, "invalid URL", "scheme"}},
		{"target_queue URL with credentials", jobs.KindTargetQueue, jobs.QueueTarget,
			targetArgs(b.task, "http://user:pw@example.com/"),
			[]string{`field "target.value"`, "userinfo"}},
		{"target_queue unknown target kind", jobs.KindTargetQueue, jobs.QueueTarget,
			fmt.Sprintf(`{"task_id":%d,"target":{"kind":"isbn","value":"978-3-16-148410-0"}}`, b.task),
			[]string{`field "target.kind"`, `"isbn"`}},
		{"target_queue task does not exist", jobs.KindTargetQueue, jobs.QueueTarget,
			targetArgs(missingTask, badInputGoodB),
			[]string{fmt.Sprintf("task %d does not exist", missingTask)}},
		{"target_queue args not an object", jobs.KindTargetQueue, jobs.QueueTarget,
			`[1,2]`, []string{"expected a JSON object, got array"}},
		{"target_queue null args", jobs.KindTargetQueue, jobs.QueueTarget,
			`null`, []string{"expected a JSON object, got null"}},
		{"embed unknown field", jobs.KindEmbed, jobs.QueueEmbed,
			`{"bogus":1}`, []string{`field "bogus"`, "unknown field"}},
		{"embed neither fragments nor version", jobs.KindEmbed, jobs.QueueEmbed,
			fmt.Sprintf(`{"task_id":%d}`, b.task), []string{`field "fragment_ids"`, "required"}},
		{"embed object for fragment_ids", jobs.KindEmbed, jobs.QueueEmbed,
			`{"fragment_ids":{"1":1}}`, []string{`field "fragment_ids"`, "expected an array"}},
		{"verify_nli string task_id", jobs.KindVerifyNLI, jobs.QueueNLI,
			fmt.Sprintf(`{"task_id":"%d"}`, b.task), []string{`field "task_id"`, "expected an integer"}},
		{"verify_nli negative claim id", jobs.KindVerifyNLI, jobs.QueueNLI,
			fmt.Sprintf(`{"task_id":%d,"claim_ids":[-4]}`, b.task), []string{`field "claim_ids[0]"`}},
		{"verify_nli task does not exist", jobs.KindVerifyNLI, jobs.QueueNLI,
			fmt.Sprintf(`{"task_id":%d}`, missingTask+1), []string{fmt.Sprintf("task %d does not exist", missingTask+1)}},
	}

	// The good job goes in between the bad ones, as in a shared queue.
	ids := make([]int64, len(cases))
	var good int64
	for i, tc := range cases {
		if i == len(cases)/2 {
			good = testfleet.InsertRawJob(t, b.f.Tx, jobs.KindTargetQueue, jobs.QueueTarget, targetArgs(b.task, badInputGoodA))
		}
		ids[i] = testfleet.InsertRawJob(t, b.f.Tx, tc.kind, tc.queue, tc.args)
	}
	b.f.Drain(t)
	dump := testfleet.JobDump(t, b.f.Tx)

	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			state, lastErr, _ := testfleet.JobRow(t, b.f.Tx, ids[i])
			if state != "cancelled" {
				t.Errorf("job %d (%s): state %s, want cancelled\n%s", ids[i], tc.args, state, dump)
			}
			if attempt, errs := b.jobAttempts(t, ids[i]); attempt != 1 || errs != 1 {
				t.Errorf("job %d: attempt %d with %d recorded errors, want exactly 1 attempt and 1 error", ids[i], attempt, errs)
			}
			for _, w := range tc.wantError {
				if !strings.Contains(lastErr, w) {
					t.Errorf("job %d: error %q does not contain %q", ids[i], lastErr, w)
				}
			}
		})
	}

	state, lastErr, _ := testfleet.JobRow(t, b.f.Tx, good)
	if state != "completed" {
		t.Fatalf("good job %d next to the bad ones: state %s (error %q), want completed\n%s", good, state, lastErr, dump)
	}
	b.requireExtracted(t, badInputGoodA)

	// The bad jobs left nothing behind: no page, target or claim for them.
	var pages, strayTargets int
	if err := b.f.Tx.QueryRow(b.ctx, `SELECT count(*) FROM pages`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if err := b.f.Tx.QueryRow(b.ctx, `SELECT count(*) FROM targets WHERE value <> $1`, badInputGoodA).Scan(&strayTargets); err != nil {
		t.Fatal(err)
	}
	if pages != 1 || strayTargets != 0 {
		t.Errorf("after the bad jobs: %d pages and %d other targets, want only the good page and its target", pages, strayTargets)
	}
}

func TestUnreadableTargetsFailButTheTaskGoesOn(t *testing.T) {
	t.Parallel()
	b := setupBadInput(t)
	b.f.AddTargets(t, b.task, badInputGoodA, badInputMissing, badInputEmpty, badInputNoBody, badInputImage, badInputGoodB)
	b.f.Drain(t)
	dump := testfleet.JobDump(t, b.f.Tx)

	cases := []struct {
		name      string
		url       string
		wantError []string // substrings of targets.error and of the job's error
	}{
		{"not in the replay archive (404)", badInputMissing, []string{"permanent fetch error", "http_status", "404"}},
		{"HTML with an empty body", badInputEmpty, []string{"no readable text"}},
		{"zero-byte HTML response", badInputNoBody, []string{"no readable text"}},
		{"image/png", badInputImage, []string{"permanent fetch error", "unsupported_content_type", "image/png"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, errMsg := b.target(t, tc.url)
			if status != "failed" {
				t.Errorf("target %s: status %q, want failed\n%s", tc.url, status, dump)
			}
			id := b.targetJobID(t, tc.url)
			state, lastErr, _ := testfleet.JobRow(t, b.f.Tx, id)
			if state != "cancelled" {
				t.Errorf("job %d for %s: state %s, want cancelled (a permanent failure is not retried)", id, tc.url, state)
			}
			if attempt, errs := b.jobAttempts(t, id); attempt != 1 || errs != 1 {
				t.Errorf("job %d for %s: attempt %d with %d errors, want a single attempt", id, tc.url, attempt, errs)
			}
			for _, w := range tc.wantError {
				if !strings.Contains(errMsg, w) {
					t.Errorf("targets.error %q for %s does not contain %q", errMsg, tc.url, w)
				}
				if !strings.Contains(lastErr, w) {
					t.Errorf("job error %q for %s does not contain %q", lastErr, tc.url, w)
				}
			}
			var events int
			if err := b.f.Tx.QueryRow(b.ctx, `SELECT count(*) FROM event_log WHERE task_id = $1 AND event_type = 'target_failed'
				AND payload -> 'target' ->> 'value' = $2 AND payload ->> 'error' = $3`, b.task, tc.url, errMsg).Scan(&events); err != nil {
				t.Fatal(err)
			}
			if events != 1 {
				t.Errorf("%d target_failed events for %s with the target's error, want 1", events, tc.url)
			}
		})
	}

	// The failed targets do not hold the task up: the readable ones were
	// extracted, their fragments embedded and the claims verified.
	b.requireExtracted(t, badInputGoodA)
	b.requireExtracted(t, badInputGoodB)
	var nliEdges int
	if err := b.f.Tx.QueryRow(b.ctx, `SELECT count(*) FROM edges e JOIN claims c ON c.id = e.target_id
		WHERE e.target_type = 'claim' AND c.task_id = $1 AND e.relation IN ('supports','refutes','neutral')`, b.task).Scan(&nliEdges); err != nil {
		t.Fatal(err)
	}
	if nliEdges == 0 {
		t.Errorf("no NLI edges for the task: verification did not run over the extracted pages\n%s", dump)
	}
	var nonTerminal int
	if err := b.f.Tx.QueryRow(b.ctx, `SELECT count(*) FROM river_job WHERE state NOT IN ('completed','cancelled')`).Scan(&nonTerminal); err != nil {
		t.Fatal(err)
	}
	if nonTerminal != 0 {
		t.Errorf("%d jobs neither completed nor cancelled\n%s", nonTerminal, dump)
	}
}
