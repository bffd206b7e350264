package service_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/internal/service"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// tenancyBundle is one organization's task with a claim and an NLI edge into
// it, and the operations on its database.
type tenancyBundle struct {
	svc                   *service.Service
	pool                  *pgxpool.Pool
	task, claim, edge     int64
	job                   int64 // a job of the task (its hypothesis's verify_nli)
	ownerOrg, strangerOrg string
}

// newService is the operations on a fresh database, with a River client
// that inserts only.
func newService(t *testing.T) (*service.Service, *pgxpool.Pool) {
	t.Helper()
	pool := pgtest.Pool(t)
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return service.New(store.NewStore(pool), client), pool
}

func setupTenancy(t *testing.T) *tenancyBundle {
	t.Helper()
	ctx := context.Background()
	svc, pool := newService(t)
	b := &tenancyBundle{svc: svc, pool: pool, ownerOrg: "alpha", strangerOrg: "beta"}
	task, err := b.svc.CreateTask(ctx, b.ownerOrg, intake.TaskSpec{Hypothesis: "Glaciers are retreating."})
	if err != nil {
		t.Fatal(err)
	}
	b.task = task.ID
	if _, err := b.svc.CreateTask(ctx, b.strangerOrg, intake.TaskSpec{Hypothesis: "The stranger's own task."}); err != nil {
		t.Fatal(err)
	}
	err = pool.QueryRow(ctx, `
		WITH p AS (INSERT INTO pages (url, domain) VALUES ('https://a.example.org/', 'a.example.org') RETURNING id),
		     v AS (INSERT INTO page_versions (page_id, sha256, content) SELECT id, 'x', 'Glaciers retreat.' FROM p RETURNING id, page_id),
		     f AS (INSERT INTO fragments (page_id, page_version_id, start_char, end_char, text, heading_context)
		           SELECT page_id, id, 0, 17, 'Glaciers retreat.', '' FROM v RETURNING id)
		INSERT INTO edges (source_type, source_id, target_type, target_id, relation, nli_edge_confidence)
		SELECT 'fragment', f.id, 'claim', c.id, 'supports', 0.9 FROM f, claims c WHERE c.task_id = $1
		RETURNING id, target_id`, b.task).Scan(&b.edge, &b.claim)
	if err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT min(id) FROM river_job WHERE args ->> 'task_id' = $1::bigint::text`, b.task).Scan(&b.job); err != nil {
		t.Fatal(err)
	}
	return b
}

// probes call every operation of the service on the owner's task, claim or
// edge, as org. An operation that creates for its caller's organization
// only has nothing to probe, and says so.
var probes = map[string]func(ctx context.Context, b *tenancyBundle, org string) error{
	"Task": func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.Task(ctx, org, b.task)
		return err
	},
	"Graph": func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.Graph(ctx, org, b.task)
		return err
	},
	"Status": func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.Status(ctx, org, b.task)
		return err
	},
	"Materials": func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.Materials(ctx, org, b.task, "")
		return err
	},
	"Models": func(ctx context.Context, b *tenancyBundle, org string) error {
		_, _, err := b.svc.Models(ctx, org, b.task)
		return err
	},
	"AddClaims": func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.AddClaims(ctx, org, b.task, []string{"Ice sheets are thinning."})
		return err
	},
	"AddTargets": func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.AddTargets(ctx, org, b.task, []jobs.Target{{Kind: jobs.TargetURL, Value: "https://a.example.org/"}})
		return err
	},
	"InsertJob": func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.InsertJob(ctx, org, jobs.RerankArgs{TaskID: b.task}, nil, true)
		return err
	},
	"ListTasks": func(ctx context.Context, b *tenancyBundle, org string) error {
		page, err := b.svc.ListTasks(ctx, org, 0, "")
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(page.Tasks, func(t service.TaskSummary) bool { return t.ID == b.task }) {
			return errs.Task(b.task, errs.ErrTaskNotFound) // not listed: not found
		}
		return nil
	},
	"ExportWARC": func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.ExportWARC(ctx, org, b.task, io.Discard, io.Discard, "t.warc.gz")
		return err
	},
	"TaskCosts": func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.TaskCosts(ctx, org, b.task)
		return err
	},
	"ShowTask": func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.ShowTask(ctx, org, b.task)
		return err
	},
	"TaskEvents": func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.TaskEvents(ctx, org, b.task, 0, "")
		return err
	},
	"ListJobs": func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.ListJobs(ctx, org, b.task, "", 0, "")
		return err
	},
	"CancelJob": func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.CancelJob(ctx, org, service.JobCancel{JobID: b.job, Reason: "tenancy"})
		return err
	},
	"RetryJob": func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.RetryJob(ctx, org, b.job)
		return err
	},
	"ClaimFeedback": func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.ClaimFeedback(ctx, org, service.ClaimVerdictFeedback{ClaimID: b.claim, Reject: true, Reason: "r", By: "x"})
		return err
	},
	"CorrectEdge": func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.CorrectEdge(ctx, org, service.EdgeCorrection{EdgeID: b.edge, Relation: "refutes", Reason: "r", By: "x"})
		return err
	},
	"CorrectedPairs": func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.CorrectedPairs(ctx, org, b.task)
		return err
	},
	"EvidenceList": func(ctx context.Context, b *tenancyBundle, org string) error {
		for _, f := range []service.EvidenceFilter{{TaskID: b.task}, {ClaimID: b.claim}} {
			if _, err := b.svc.EvidenceList(ctx, org, f, 0, ""); err != nil {
				return err
			}
		}
		return nil
	},
	"CiteCheck": func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.CiteCheck(ctx, org, b.task, "Glaciers retreat [E1].")
		return err
	},
	"Export": func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.Export(ctx, org, b.task, 0, 0)
		return err
	},
	// the owner's probe resumes the task it paused, for the probes after it
	"RecheckTask": func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.RecheckTask(ctx, org, b.task, nil, true)
		return err
	},
	"PauseTask": func(ctx context.Context, b *tenancyBundle, org string) error {
		if _, err := b.svc.PauseTask(ctx, org, b.task); err != nil {
			return err
		}
		_, err := b.svc.ResumeTask(ctx, org, b.task)
		return err
	},
	"ResumeTask": func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.ResumeTask(ctx, org, b.task)
		return err
	},
	// a budget changes only while paused: the owner's probe pauses first
	"SetBudget": func(ctx context.Context, b *tenancyBundle, org string) error {
		if _, err := b.svc.PauseTask(ctx, org, b.task); err != nil {
			return err
		}
		if _, err := b.svc.SetBudget(ctx, org, b.task, "deep"); err != nil {
			return err
		}
		_, err := b.svc.ResumeTask(ctx, org, b.task)
		return err
	},
	"LinkClaims": func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.LinkClaims(ctx, org, b.task, "E2", "E1", "depends_on", 0.5, "x", "r")
		if errors.Is(err, errs.ErrClaimNotFound) && org == b.ownerOrg {
			return errors.New("the owner's task has no E2 (AddClaims runs first)")
		}
		return err
	},
	"AcceptClaimLink": func(ctx context.Context, b *tenancyBundle, org string) error {
		if err := b.proposal(ctx, org, 90); err != nil {
			return err
		}
		_, err := b.svc.AcceptClaimLink(ctx, org, b.task, "E1", "E90", "x")
		return err
	},
	"RejectClaimLink": func(ctx context.Context, b *tenancyBundle, org string) error {
		if err := b.proposal(ctx, org, 91); err != nil {
			return err
		}
		return b.svc.RejectClaimLink(ctx, org, b.task, "E1", "E91", "x")
	},
	"ClaimLinks": func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.ClaimLinks(ctx, org, b.task)
		return err
	},
	// last: the owner's probe stops the task
	"StopTask": func(ctx context.Context, b *tenancyBundle, org string) error {
		_, err := b.svc.StopTask(ctx, org, b.task, "")
		return err
	},
}

// proposal gives the owner's task a claim E<no> and the proposed link E1 →
// E<no>, before the stranger's call (the first of each probe's two).
func (b *tenancyBundle) proposal(ctx context.Context, org string, no int32) error {
	if org != b.strangerOrg {
		return nil
	}
	q := store.New(b.pool)
	text := fmt.Sprintf("Sub-claim %d.", no)
	if _, err := q.InsertHypotheses(ctx, store.InsertHypothesesParams{TaskID: b.task, EvidenceNos: []int32{no},
		Texts: []string{text}, TextHashes: []string{store.TextHash(text)}}); err != nil {
		return err
	}
	_, err := q.ProposeClaimLinks(ctx, b.task, []store.NewClaimLink{{TaskID: b.task, From: 1, To: no, Relation: "depends_on", Weight: 1, By: "llm:test"}})
	return err
}

// creators act for their caller's organization only: nothing of another's
// is read or changed. DomainView and ChangeDomainView read and change the
// caller's own view of a shared domain (store's TestOrgViewDomainChange
// and api's TestDomainViewIsTheOrganizations show another's is untouched).
var creators = []string{"CreateTask", "CreateTaskOnce", "DomainView", "ChangeDomainView"}

// TestOtherOrganizationsRowsAreNotFound: every operation of the service,
// given another organization's task, claim or edge, answers "not found"
// exactly as for a missing one and changes nothing; the owner's calls
// succeed. A new operation without a probe here fails the test.
func TestOtherOrganizationsRowsAreNotFound(t *testing.T) {
	t.Parallel()
	typ := reflect.TypeOf(&service.Service{})
	for i := range typ.NumMethod() {
		if name := typ.Method(i).Name; probes[name] == nil && !slices.Contains(creators, name) {
			t.Errorf("operation %s has no tenancy probe: add one to probes (or to creators, if it only creates for its caller)", name)
		}
	}
	b := setupTenancy(t)
	ctx := context.Background()
	names := make([]string, 0, len(probes))
	for name := range probes {
		if name != "StopTask" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	names = append(names, "StopTask")
	notFound := []error{errs.ErrTaskNotFound, errs.ErrClaimNotFound, errs.ErrEdgeNotFound, errs.ErrPageNotFound, service.ErrJobNotFound}
	for _, name := range names {
		err := probes[name](ctx, b, b.strangerOrg)
		if !slices.ContainsFunc(notFound, func(nf error) bool { return errors.Is(err, nf) }) {
			t.Errorf("%s as another organization: %v, want not found", name, err)
		}
		if err := probes[name](ctx, b, b.ownerOrg); err != nil {
			t.Errorf("%s as the owner: %v", name, err)
		}
	}
}

// TestNotFoundSaysNothingMore: another organization's task and a task that
// does not exist give the same error text.
func TestNotFoundSaysNothingMore(t *testing.T) {
	t.Parallel()
	b := setupTenancy(t)
	ctx := context.Background()
	_, other := b.svc.Graph(ctx, b.strangerOrg, b.task)
	_, missing := b.svc.Graph(ctx, b.strangerOrg, b.task+1000)
	if other == nil || missing == nil {
		t.Fatalf("errors %v and %v, want both not found", other, missing)
	}
	want := func(id int64) string { return errs.Task(id, errs.ErrTaskNotFound).Error() }
	if other.Error() != want(b.task) || missing.Error() != want(b.task+1000) {
		t.Errorf("another's: %q, missing: %q; want the same message", other, missing)
	}
}

// TestBlockCauseShowsOwnClaimsOnly: a block caused by claims of two
// organizations shows each only its own claims and edges in status.
func TestBlockCauseShowsOwnClaimsOnly(t *testing.T) {
	t.Parallel()
	b := setupTenancy(t)
	ctx := context.Background()
	pool := b.pool
	var strangerClaim int64
	if err := pool.QueryRow(ctx, `SELECT c.id FROM claims c JOIN tasks t ON t.id = c.task_id WHERE t.organization_id = $1`, b.strangerOrg).Scan(&strangerClaim); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO task_pages (task_id, page_id, reason) SELECT $1, id, 'url_target' FROM pages WHERE url = 'https://a.example.org/'`,
		b.task); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO domains (domain, trust_level, blocked_at, block_reason, block_claim_ids, block_edge_ids)
		VALUES ('a.example.org', 'BLOCKED', now(), 'high_rejection_rate', ARRAY[$1::bigint, $2::bigint], ARRAY[$3::bigint, 999999])`,
		b.claim, strangerClaim, b.edge); err != nil {
		t.Fatal(err)
	}
	st, err := b.svc.Status(ctx, b.ownerOrg, b.task)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Blocked) != 1 || !slices.Equal(st.Blocked[0].CauseClaimIds, []int64{b.claim}) || !slices.Equal(st.Blocked[0].CauseEdgeIds, []int64{b.edge}) {
		t.Errorf("blocked domains %+v, want a.example.org with the owner's claim %d and edge %d only", st.Blocked, b.claim, b.edge)
	}
}
