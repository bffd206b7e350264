package service

import (
	"context"
	"fmt"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/cost"
	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/ident"
	"github.com/evidencefleet/evidencefleet/internal/verification"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// Status is the output of `enqueue status`.
type Status struct {
	TaskID int64 `json:"task_id"`
	// TaskStatus is active while work remains, completed when no job of
	// the task is left to run (recorded by the settle sweep, reopened by
	// new work), paused (no job of it starts until it is resumed), or
	// stopped.
	TaskStatus  string     `json:"task_status"`
	CompletedAt *time.Time `json:"completed_at,omitempty"`
	PausedAt    *time.Time `json:"paused_at,omitempty"`

	Jobs     map[string]map[string]int `json:"jobs"` // kind → state → count
	Pending  int                       `json:"pending"`
	Finished int                       `json:"finished"`
	Verdicts map[string]int            `json:"claims_by_verdict"`
	Targets  map[string]int            `json:"targets_by_status"`
	Problems []JobProblem              `json:"job_problems"`
	Failed   []FailedTarget            `json:"failed_targets"`
	// Blocked are the BLOCKED domains among the task's pages and targets,
	// Flagged those source verification shows to a person.
	Blocked []BlockedDomain `json:"blocked_domains"`
	Flagged []FlaggedDomain `json:"flagged_domains"`
	Models  []ModelUse      `json:"models"`           // the models behind the judgements so far
	Notice  string          `json:"notice,omitempty"` // baseline banner (internal/modelcard)
	Costs   Costs           `json:"costs"`
	// Rechecks is what the rechecks of the task's cited sources found.
	Rechecks RecheckSummary `json:"rechecks"`
}

// Costs are what the task's jobs spent outside the fleet so far, per stage
// and in total: model calls with the tokens the servers reported, web
// searches, academic API calls, page fetches and their bytes (what counts:
// internal/cost). Every attempt counts, failed ones too; an attempt whose
// worker process was killed does not.
type Costs struct {
	Stages []StageCost `json:"stages"` // by stage
	Total  cost.Counts `json:"total"`
}

// StageCost is what the task's jobs of one stage (job kind) spent.
type StageCost struct {
	Stage string `json:"stage"`
	cost.Counts
}

// BlockedDomain is a block with its cause and how to undo it.
type BlockedDomain struct {
	Domain             string    `json:"domain"`
	Scope              string    `json:"scope"` // whose block: fleet or organization
	BlockedAt          time.Time `json:"blocked_at"`
	BlockReason        string    `json:"block_reason"`
	Reason             string    `json:"reason"`
	SetBy              string    `json:"set_by"`
	OriginalTrustLevel string    `json:"original_trust_level"`
	// CauseClaimIds and CauseEdgeIds are the caller's own claims and edges
	// among the block's cause.
	CauseClaimIds []int64 `json:"cause_claim_ids"`
	CauseEdgeIds  []int64 `json:"cause_edge_ids"`
	Cause         string  `json:"cause"`
	CauseChangeID any     `json:"cause_change_id"` // the domain level change behind it, or null
	verification.Restore
}

// FlaggedDomain is a domain source verification shows to a person, and why.
type FlaggedDomain struct {
	Domain     string    `json:"domain"`
	TrustLevel string    `json:"trust_level"`
	FlaggedAt  time.Time `json:"flagged_at"`
	FlagReason string    `json:"flag_reason"`
	Scope      string    `json:"scope"`
}

type JobProblem struct {
	ID      int64  `json:"id"`
	Kind    string `json:"kind"`
	State   string `json:"state"`
	Attempt int16  `json:"attempt"`
	Error   string `json:"error"`
	Failure string `json:"failure,omitempty"` // the fleet's reason (errs.ErrorTable), "" when none was recorded
}

// NotDone reports whether the job ended without doing its work
// (errs.EndedUndone: a stopped task's jobs and failed targets did theirs).
func (p JobProblem) NotDone() bool { return errs.EndedUndone(p.State, errs.Failure(p.Failure)) }

type FailedTarget struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
	Error string `json:"error"`
}

var pendingStates = map[string]bool{"available": true, "pending": true, "running": true, "retryable": true, "scheduled": true}

// NotDone lists the task's jobs that ended without doing their work.
func (s *Status) NotDone() []JobProblem {
	var out []JobProblem
	for _, p := range s.Problems {
		if p.NotDone() {
			out = append(out, p)
		}
	}
	return out
}

// Status is where the organization's task stands: its jobs, verdicts,
// targets, problems, failed targets, blocked and flagged domains, the
// models behind its judgements and what its jobs spent.
func (s *Service) Status(ctx context.Context, org string, taskID int64) (*Status, error) {
	task, err := s.Task(ctx, org, taskID)
	if err != nil {
		return nil, err
	}
	st := s.st
	out := &Status{TaskID: taskID, TaskStatus: task.Status, CompletedAt: task.CompletedAt, PausedAt: task.PausedAt, Jobs: map[string]map[string]int{}, Verdicts: map[string]int{}, Targets: map[string]int{},
		Problems: []JobProblem{}, Failed: []FailedTarget{}}
	counts, err := st.TaskJobCounts(ctx, fmt.Sprint(taskID))
	if err != nil {
		return nil, fmt.Errorf("job counts: %w", err)
	}
	for _, c := range counts {
		if out.Jobs[c.Kind] == nil {
			out.Jobs[c.Kind] = map[string]int{}
		}
		out.Jobs[c.Kind][c.State] = int(c.N)
		if pendingStates[c.State] {
			out.Pending += int(c.N)
		} else {
			out.Finished += int(c.N)
		}
	}
	verdicts, err := st.TaskVerdictCounts(ctx, taskID)
	if err != nil {
		return nil, fmt.Errorf("verdicts: %w", err)
	}
	for _, v := range verdicts {
		out.Verdicts[v.Verdict] = int(v.N)
	}
	targets, err := st.TaskTargetCounts(ctx, taskID)
	if err != nil {
		return nil, fmt.Errorf("targets: %w", err)
	}
	for _, t := range targets {
		out.Targets[t.Status] = int(t.N)
	}
	problems, err := st.TaskJobProblems(ctx, fmt.Sprint(taskID))
	if err != nil {
		return nil, fmt.Errorf("job problems: %w", err)
	}
	for _, p := range problems {
		out.Problems = append(out.Problems, JobProblem{ID: p.ID, Kind: p.Kind, State: p.State, Attempt: p.Attempt, Error: p.LastError, Failure: p.Failure})
	}
	failed, err := st.TaskFailedTargets(ctx, taskID)
	if err != nil {
		return nil, fmt.Errorf("failed targets: %w", err)
	}
	for _, f := range failed {
		out.Failed = append(out.Failed, FailedTarget{Kind: f.Kind, Value: f.Value, Error: f.Error})
	}
	domains, err := taskDomains(ctx, st, taskID, failed)
	if err != nil {
		return nil, err
	}
	if out.Blocked, out.Flagged, err = blockedDomains(ctx, st, org, domains); err != nil {
		return nil, err
	}
	if out.Models, out.Notice, err = s.models(ctx, taskID); err != nil {
		return nil, err
	}
	if out.Costs, err = taskCosts(ctx, st, taskID); err != nil {
		return nil, err
	}
	if out.Rechecks, err = rechecks(ctx, st, taskID); err != nil {
		return nil, err
	}
	return out, nil
}

// taskCosts reads the task's spending per stage and adds it up.
func taskCosts(ctx context.Context, st *store.Store, taskID int64) (Costs, error) {
	rows, err := st.TaskCosts(ctx, taskID)
	if err != nil {
		return Costs{}, fmt.Errorf("costs: %w", err)
	}
	out := Costs{Stages: make([]StageCost, len(rows))}
	for i, r := range rows {
		c := cost.Counts{ModelCalls: r.ModelCalls, TokensIn: r.TokensIn, TokensOut: r.TokensOut, Searches: r.Searches,
			AcademicCalls: r.AcademicCalls, Fetches: r.Fetches, FetchBytes: r.FetchBytes}
		out.Stages[i] = StageCost{Stage: r.Stage, Counts: c}
		out.Total = out.Total.Plus(c)
	}
	return out, nil
}

// taskDomains are the domains of the task's pages and of its failed URL
// targets.
func taskDomains(ctx context.Context, st *store.Store, taskID int64, failed []store.TaskFailedTargetsRow) ([]string, error) {
	domains, err := st.TaskPageDomains(ctx, taskID)
	if err != nil {
		return nil, fmt.Errorf("task domains: %w", err)
	}
	for _, f := range failed {
		if f.Kind == jobs.TargetURL {
			domains = appendURLDomain(domains, f.Value)
		}
	}
	return domains, nil
}

// appendURLDomain appends the domain of a URL target's value, if it has one.
func appendURLDomain(domains []string, url string) []string {
	if d := ident.Domain(url); d != "" {
		return append(domains, d)
	}
	return domains
}

// blockedDomains are the BLOCKED domains among these, and the flagged
// ones, in the organization's view (the fleet's blocks and its own), each
// block's cause cut to the organization's own claims and edges.
func blockedDomains(ctx context.Context, st *store.Store, org string, domains []string) ([]BlockedDomain, []FlaggedDomain, error) {
	rows, err := st.BlockedDomainsAmong(ctx, store.BlockedDomainsAmongParams{OrganizationID: org, Domains: domains})
	if err != nil {
		return nil, nil, fmt.Errorf("blocked domains: %w", err)
	}
	blocked := make([]BlockedDomain, len(rows))
	for i, r := range rows {
		// a block's cause names claims and edges of every organization:
		// the caller sees its own only
		if r.CauseClaimIds, err = st.OrgClaimIDs(ctx, store.OrgClaimIDsParams{Ids: r.CauseClaimIds, OrganizationID: org}); err != nil {
			return nil, nil, fmt.Errorf("blocked domains: %w", err)
		}
		if r.CauseEdgeIds, err = st.OrgEdgeIDs(ctx, store.OrgEdgeIDsParams{Ids: r.CauseEdgeIds, OrganizationID: org}); err != nil {
			return nil, nil, fmt.Errorf("blocked domains: %w", err)
		}
		blocked[i] = BlockedDomain{Domain: r.Domain, Scope: r.Scope, BlockedAt: r.BlockedAt, BlockReason: r.BlockReason, Reason: r.Reason,
			SetBy: r.SetBy, OriginalTrustLevel: r.OriginalTrustLevel, CauseClaimIds: orEmpty(r.CauseClaimIds),
			CauseEdgeIds: orEmpty(r.CauseEdgeIds), Cause: r.Cause, CauseChangeID: r.CauseChangeID,
			Restore: verification.RestoreFor(r.Domain, r.BlockReason)}
	}
	flags, err := st.FlaggedDomainsAmong(ctx, store.FlaggedDomainsAmongParams{OrganizationID: org, Domains: domains})
	if err != nil {
		return nil, nil, fmt.Errorf("flagged domains: %w", err)
	}
	flagged := make([]FlaggedDomain, len(flags))
	for i, r := range flags {
		flagged[i] = FlaggedDomain{Domain: r.Domain, TrustLevel: r.TrustLevel, FlaggedAt: r.FlaggedAt, FlagReason: r.FlagReason, Scope: r.Scope}
	}
	return blocked, flagged, nil
}

func orEmpty(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}
