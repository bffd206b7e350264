// Package planner runs the self-directed retrieval of tasks whose
// retrieval is self_directed (ARCHITECTURE.md §5.9): when such a task's
// work is done (no job left to run), the planner takes its next step in
// the seed's fixed stages — stage 0 searches for the hypothesis, stage 1
// for the claims EVOI target selection picks, stage 2 escalates the claims
// whose sufficiency stays below S_min; at 3 it only releases fetches, and
// 4 is done — and before each step releases deferred result pages to the
// claims whose fetch budget still allows one. With an LLM, stage 0 first
// splits the hypothesis into sub-claims (split.go), proposed as claim links
// a person accepts; the sub-claims then compete in stage 1 like any claim.
// Every decision is recorded as a task event with its numbers
// (hypothesis_split, target_selection, urls_registered, fetches_released,
// escalation, budget_exhausted, retrieval_done). The decisions are internal/retrieval's;
// this package reads the graph and writes what they decide.
package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/internal/cost"
	"github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/retrieval"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// Limits are a budget class's spending limits of a task's self-directed
// retrieval, on top of the stage 1 floor and ceiling (retrieval.Budgets).
type Limits struct {
	Searches int   // query targets the planner adds
	Fetches  int   // result pages fetched for its queries
	Tokens   int64 // model tokens the task has spent (task_costs), all stages
	Steps    int   // queries per claim: the hard step cap
}

// DefaultLimits are the limits of each budget class.
var DefaultLimits = map[string]Limits{
	"minimal":  {Searches: 4, Fetches: 16, Tokens: 200_000, Steps: 2},
	"standard": {Searches: 12, Fetches: 60, Tokens: 2_000_000, Steps: 4},
	"deep":     {Searches: 90, Fetches: 400, Tokens: 20_000_000, Steps: 6},
}

// Planner plans the self-directed tasks of one database.
type Planner struct {
	Store  *store.Store
	Client *river.Client[pgx.Tx]
	Logger *slog.Logger
	// QueriesPerClaim bounds the queries of one claim in one stage (2).
	QueriesPerClaim int
	Params          retrieval.Params
	Weights         retrieval.Weights
	Fetch           retrieval.FetchParams
	Limits          map[string]Limits
	// NoSearch says the fleet has no search backend: a self-directed task
	// then records why it searches nothing and is done.
	NoSearch bool
	// LLM, when set, splits a task's hypothesis into sub-claims at stage 0
	// (hypothesis claims of the task, with proposed links E1 depends_on
	// each); nil: no split (the fleet has no LLM backend).
	LLM models.LLM
}

// New returns a planner with the default numbers.
func New(st *store.Store, client *river.Client[pgx.Tx], log *slog.Logger) *Planner {
	return &Planner{Store: st, Client: client, Logger: log, QueriesPerClaim: 2, Params: retrieval.DefaultParams,
		Weights: retrieval.DefaultWeights, Fetch: retrieval.DefaultFetch, Limits: DefaultLimits}
}

// Event types of the task's retrieval.
const (
	EventTargetSelection = "target_selection"
	EventURLsRegistered  = "urls_registered"
	EventFetchesReleased = "fetches_released"
	EventEscalation      = "escalation"
	EventBudgetExhausted = "budget_exhausted"
	EventDone            = "retrieval_done"
	EventHypothesisSplit = "hypothesis_split"
)

// Sweep takes one step of every plannable task (locked, SKIP LOCKED, each in
// its own transaction) and returns the tasks it stepped. Safe in many
// processes at once. With an LLM, a task at stage 0 is first read and
// released, its hypothesis split by the model with no row lock held, and
// then locked again — stepped only if it is still plannable at stage 0.
func (p *Planner) Sweep(ctx context.Context, batch int) ([]int64, error) {
	var stepped []int64
	for after := int64(0); ; {
		var n int
		var pending *store.LockPlannableTasksRow
		err := p.Store.InTx(ctx, func(tx pgx.Tx, q *store.Queries) error {
			tasks, err := q.LockPlannableTasks(ctx, store.LockPlannableTasksParams{After: after, MaxRows: 1})
			if err != nil || len(tasks) == 0 {
				return err
			}
			n = 1
			after = tasks[0].ID
			if p.splits(tasks[0]) {
				pending = &tasks[0]
				return nil
			}
			if err := p.step(ctx, tx, q, tasks[0], nil); err != nil {
				return fmt.Errorf("task %d: %w", tasks[0].ID, err)
			}
			stepped = append(stepped, tasks[0].ID)
			return nil
		})
		if err == nil && pending != nil {
			var ok bool
			ok, err = p.splitAndStep(ctx, *pending)
			if ok {
				stepped = append(stepped, pending.ID)
			}
		}
		if err != nil {
			return stepped, fmt.Errorf("plan retrieval: %w", err)
		}
		if n == 0 || len(stepped) >= batch {
			return stepped, nil
		}
	}
}

// splits says whether the task's hypothesis is split before its step: an
// LLM is configured and the task is at stage 0 with something to search.
func (p *Planner) splits(task store.LockPlannableTasksRow) bool {
	return p.LLM != nil && task.RetrievalStage == 0 && !p.NoSearch
}

// split is a model's answer to SplitHypothesis.
type split struct {
	subClaims []string
	err       error
}

// splitAndStep asks the LLM for the task's sub-claims (no transaction
// open), records what the call spent, then locks the task again and takes
// its stage 0 step with them, unless another process stepped it meanwhile
// (false). A failed call does not stop retrieval: the step records the
// error and searches for the hypothesis alone.
func (p *Planner) splitAndStep(ctx context.Context, task store.LockPlannableTasksRow) (bool, error) {
	mctx, meter := cost.WithMeter(ctx)
	subs, splitErr := p.LLM.SplitHypothesis(mctx, task.Hypothesis)
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if c := meter.Counts(); !c.IsZero() {
		if err := p.Store.AddTaskCost(ctx, store.AddTaskCostParams{TaskID: task.ID, Stage: EventHypothesisSplit,
			ModelCalls: c.ModelCalls, TokensIn: c.TokensIn, TokensOut: c.TokensOut}); err != nil {
			return false, fmt.Errorf("task %d: record the split's cost: %w", task.ID, err)
		}
	}
	stepped := false
	err := p.Store.InTx(ctx, func(tx pgx.Tx, q *store.Queries) error {
		tasks, err := q.LockPlannableTasks(ctx, store.LockPlannableTasksParams{After: task.ID - 1, MaxRows: 1})
		if err != nil || len(tasks) == 0 || tasks[0].ID != task.ID || tasks[0].RetrievalStage != 0 {
			return err // stepped by another process meanwhile, or no longer plannable
		}
		if err := p.step(ctx, tx, q, tasks[0], &split{subClaims: subs, err: splitErr}); err != nil {
			return fmt.Errorf("task %d: %w", task.ID, err)
		}
		stepped = true
		return nil
	})
	return stepped, err
}

// claimState is what the planner knows of one hypothesis claim.
type claimState struct {
	row        store.PlannerClaimsRow
	evidence   retrieval.Evidence
	supporting []string // texts of its confident supporting fragments
	queries    []string // the planner's queries for it so far
	fetched    int      // its result pages fetched (or queued)
	deferred   []store.PlannerTargetsRow
}

// belief is the claim's log-odds belief (internal/belief), in [0, 1].
func (c *claimState) belief() float64 { return c.row.Belief }

func (c *claimState) sufficiency(w retrieval.Weights) float64 {
	e := c.evidence
	e.MissingConstraints = retrieval.MissingConstraints(c.row.Text, c.supporting)
	return retrieval.Sufficiency(e, w)
}

// step takes the task's next step in tx: release fetches the claims' budgets
// allow, else run the next stage; then record the stage reached.
// sp is the LLM's split of the hypothesis at stage 0, nil without one.
func (p *Planner) step(ctx context.Context, tx pgx.Tx, q *store.Queries, task store.LockPlannableTasksRow, sp *split) error {
	claims, err := p.read(ctx, q, task.ID)
	if err != nil {
		return err
	}
	lim, ok := p.Limits[task.BudgetClass]
	if !ok {
		lim = p.Limits["standard"]
	}
	spent, err := p.spent(ctx, q, task.ID, claims)
	if err != nil {
		return err
	}
	ev := events{ctx: ctx, q: q, task: task.ID}
	if p.NoSearch {
		ev.add(EventBudgetExhausted, map[string]any{"resource": "search_backend", "note": "no search backend is configured (EVF_SEARCH_URL): nothing is searched"})
		ev.add(EventDone, map[string]any{"searches": 0, "fetches": 0, "tokens": spent.tokens})
		if err := q.SetRetrievalStage(ctx, store.SetRetrievalStageParams{ID: task.ID, RetrievalStage: 4}); err != nil {
			return fmt.Errorf("record stage: %w", err)
		}
		return ev.err
	}
	if task.RetrievalStage > 0 {
		released, err := p.releaseFetches(ctx, tx, q, task.ID, claims, lim, spent, &ev)
		if err != nil || released > 0 {
			return err
		}
	}
	stage := task.RetrievalStage
	switch stage {
	case 0:
		if sp != nil {
			err = p.recordSplit(ctx, tx, q, task.ID, *sp, &ev)
		}
		if err == nil {
			err = p.stage0(ctx, tx, q, task, claims, lim, spent, &ev)
		}
	case 1:
		err = p.stage1(ctx, tx, q, task, claims, lim, spent, &ev)
	case 2:
		err = p.stage2(ctx, tx, q, task, claims, lim, spent, &ev)
	case 3: // escalated, and no claim's budget buys another fetch
		ev.add(EventDone, map[string]any{"searches": spent.searches, "fetches": spent.fetches, "tokens": spent.tokens})
	}
	if err != nil {
		return err
	}
	if err := q.SetRetrievalStage(ctx, store.SetRetrievalStageParams{ID: task.ID, RetrievalStage: stage + 1}); err != nil {
		return fmt.Errorf("record stage: %w", err)
	}
	return ev.err
}

// read gathers the task's hypothesis claims with their evidence and the
// planner's targets for each.
func (p *Planner) read(ctx context.Context, q *store.Queries, taskID int64) ([]*claimState, error) {
	rows, err := q.PlannerClaims(ctx, taskID)
	if err != nil {
		return nil, fmt.Errorf("read claims: %w", err)
	}
	claims := make([]*claimState, len(rows))
	byID := map[int64]*claimState{}
	for i, r := range rows {
		claims[i] = &claimState{row: r}
		byID[r.ID] = claims[i]
	}
	edges, err := q.PlannerEdges(ctx, taskID)
	if err != nil {
		return nil, fmt.Errorf("read edges: %w", err)
	}
	sites := map[int64]map[string]bool{}
	for _, e := range edges {
		c := byID[e.ClaimID]
		if c == nil {
			continue
		}
		switch e.Relation {
		case "supports":
			c.evidence.SupportMass += e.Confidence
			if e.Confidence >= 0.7 {
				c.supporting = append(c.supporting, e.Text)
				if sites[e.ClaimID] == nil {
					sites[e.ClaimID] = map[string]bool{}
				}
				sites[e.ClaimID][e.Domain] = true
			}
		case "refutes":
			c.evidence.ConflictMass += e.Confidence
		}
	}
	for id, s := range sites {
		byID[id].evidence.SupportingSites = len(s)
	}
	targets, err := q.PlannerTargets(ctx, taskID)
	if err != nil {
		return nil, fmt.Errorf("read targets: %w", err)
	}
	lastQuery := int64(0)
	for _, t := range targets {
		if t.ClaimID == nil || byID[*t.ClaimID] == nil {
			continue
		}
		c := byID[*t.ClaimID]
		if t.QueryID != lastQuery {
			c.queries = append(c.queries, t.Query)
			lastQuery = t.QueryID
		}
		switch {
		case t.ResultID == nil:
		case t.ResultStage != nil && *t.ResultStage == "deferred":
			c.deferred = append(c.deferred, t)
		default:
			c.fetched++
		}
	}
	return claims, nil
}

// usage is what the task's retrieval has spent.
type usage struct {
	searches, fetches int
	tokens            int64
}

func (p *Planner) spent(ctx context.Context, q *store.Queries, taskID int64, claims []*claimState) (usage, error) {
	var u usage
	for _, c := range claims {
		u.searches += len(c.queries)
		u.fetches += c.fetched
	}
	costs, err := q.TaskCosts(ctx, taskID)
	if err != nil {
		return u, fmt.Errorf("read costs: %w", err)
	}
	for _, c := range costs {
		u.tokens += c.TokensIn + c.TokensOut
	}
	return u, nil
}

// releaseFetches gives each claim with deferred results one more fetch if
// its fetch budget (retrieval.NextFetch) and the task's limits allow.
func (p *Planner) releaseFetches(ctx context.Context, tx pgx.Tx, q *store.Queries, taskID int64, claims []*claimState, lim Limits, spent usage, ev *events) (int, error) {
	type decision struct {
		Claim    string  `json:"claim"`
		Fetched  int     `json:"fetched"`
		Belief   float64 `json:"belief"`
		S        float64 `json:"sufficiency"`
		EVOI     float64 `json:"evoi_next"`
		Reason   string  `json:"reason"`
		Released string  `json:"released,omitempty"`
	}
	var decisions []decision
	var ids []int64
	for _, c := range claims {
		if len(c.deferred) == 0 {
			continue
		}
		s := c.sufficiency(p.Weights)
		ok, evoi, why := retrieval.NextFetch(c.fetched, c.belief(), s, p.Weights, p.Fetch)
		d := decision{Claim: fmt.Sprintf("E%d", c.row.EvidenceNo), Fetched: c.fetched, Belief: c.belief(), S: s, EVOI: evoi, Reason: why}
		if ok && spent.fetches+len(ids) < lim.Fetches && spent.tokens < lim.Tokens {
			d.Released = *c.deferred[0].ResultValue
			ids = append(ids, *c.deferred[0].ResultID)
		}
		decisions = append(decisions, d)
	}
	if len(ids) == 0 {
		if len(decisions) > 0 && (spent.fetches >= lim.Fetches || spent.tokens >= lim.Tokens) {
			ev.add(EventBudgetExhausted, map[string]any{"resource": exhausted(spent, lim), "fetches": spent.fetches, "fetch_limit": lim.Fetches,
				"tokens": spent.tokens, "token_limit": lim.Tokens})
		}
		return 0, nil
	}
	released, err := q.ReleaseDeferredTargets(ctx, store.ReleaseDeferredTargetsParams{TaskID: taskID, Ids: ids})
	if err != nil {
		return 0, fmt.Errorf("release deferred results: %w", err)
	}
	targets := make([]jobs.Target, len(released))
	for i, r := range released {
		targets[i] = jobs.Target{Kind: r.Kind, Value: r.Value}
	}
	if _, err := intake.ReleaseTargets(ctx, p.Client, tx, taskID, 1, targets); err != nil {
		return 0, err
	}
	ev.add(EventFetchesReleased, map[string]any{"count": len(targets), "claims": decisions})
	return len(targets), ev.err
}

func exhausted(spent usage, lim Limits) string {
	switch {
	case spent.tokens >= lim.Tokens:
		return "tokens"
	case spent.fetches >= lim.Fetches:
		return "fetches"
	}
	return "searches"
}

// stage0 searches for the hypothesis (claim E1).
func (p *Planner) stage0(ctx context.Context, tx pgx.Tx, q *store.Queries, task store.LockPlannableTasksRow, claims []*claimState, lim Limits, spent usage, ev *events) error {
	for _, c := range claims {
		if c.row.EvidenceNo == 1 {
			_, err := p.search(ctx, tx, q, task.ID, c, 0, retrieval.Queries(c.row.Text, p.QueriesPerClaim), lim, &spent, ev)
			return err
		}
	}
	return nil
}

// stage1 searches for the claims EVOI target selection picks.
func (p *Planner) stage1(ctx context.Context, tx pgx.Tx, q *store.Queries, task store.LockPlannableTasksRow, claims []*claimState, lim Limits, spent usage, ev *events) error {
	evoi := make([]float64, len(claims))
	type signal struct {
		Claim       string  `json:"claim"`
		Belief      float64 `json:"belief"`
		Worthiness  float64 `json:"check_worthiness"`
		Harm        float64 `json:"harm"`
		Independent int32   `json:"independent_sites"`
		EVOI        float64 `json:"evoi"`
	}
	signals := make([]signal, len(claims))
	for i, c := range claims {
		cl := retrieval.Claim{Belief: c.belief(), Worthiness: retrieval.Worthiness(c.row.Text), Harm: retrieval.Harm(c.row.Text), Independent: int(c.row.IndependentSources)}
		evoi[i] = retrieval.EVOI(cl, p.Params)
		signals[i] = signal{Claim: fmt.Sprintf("E%d", c.row.EvidenceNo), Belief: cl.Belief, Worthiness: cl.Worthiness, Harm: cl.Harm, Independent: c.row.IndependentSources, EVOI: evoi[i]}
	}
	budget, ok := retrieval.Budgets[task.BudgetClass]
	if !ok {
		budget = retrieval.Budgets["standard"]
	}
	sel := retrieval.Select(evoi, budget, p.Params)
	chosen, deferred := []string{}, []string{}
	for rank, i := range sel.Order {
		if rank < sel.K {
			chosen = append(chosen, signals[i].Claim)
		} else {
			deferred = append(deferred, signals[i].Claim)
		}
	}
	ev.add(EventTargetSelection, map[string]any{"budget_class": task.BudgetClass, "floor": budget.Floor, "ceiling": budget.Ceiling,
		"params": p.Params, "claims": signals, "selection": sel, "targets": chosen, "deferred": deferred,
		"note": "check_worthiness and harm are heuristics (internal/retrieval)"})
	for _, i := range sel.Order[:sel.K] {
		if _, err := p.search(ctx, tx, q, task.ID, claims[i], 1, retrieval.Queries(claims[i].row.Text, p.QueriesPerClaim), lim, &spent, ev); err != nil {
			return err
		}
	}
	return nil
}

// stage2 escalates the claims whose sufficiency stays below S_min.
func (p *Planner) stage2(ctx context.Context, tx pgx.Tx, q *store.Queries, task store.LockPlannableTasksRow, claims []*claimState, lim Limits, spent usage, ev *events) error {
	for _, c := range claims {
		e := c.evidence
		e.MissingConstraints = retrieval.MissingConstraints(c.row.Text, c.supporting)
		s := retrieval.Sufficiency(e, p.Weights)
		if s >= p.Weights.Min {
			continue
		}
		ev.add(EventEscalation, map[string]any{"claim": fmt.Sprintf("E%d", c.row.EvidenceNo), "sufficiency": s, "s_min": p.Weights.Min,
			"weights": p.Weights, "supporting_sites": e.SupportingSites, "support_mass": e.SupportMass, "conflict_mass": e.ConflictMass,
			"missing_constraints": e.MissingConstraints})
		if _, err := p.search(ctx, tx, q, task.ID, c, 2, retrieval.Queries(c.row.Text, p.QueriesPerClaim+1), lim, &spent, ev); err != nil {
			return err
		}
	}
	return nil
}

// search registers a claim's new queries (those it has not asked, within
// its step cap and the task's search limit) as query targets with their
// jobs, fetching the first retrieval.FetchParams.Min results of each now.
func (p *Planner) search(ctx context.Context, tx pgx.Tx, q *store.Queries, taskID int64, c *claimState, stage int, queries []string, lim Limits, spent *usage, ev *events) (int, error) {
	var fresh []string
	for _, s := range queries {
		t, err := jobs.Target{Kind: jobs.TargetQuery, Value: s}.Normalized()
		if err != nil || slices.Contains(c.queries, t.Value) || slices.Contains(fresh, t.Value) {
			continue
		}
		if len(c.queries)+len(fresh) >= lim.Steps || spent.searches+len(fresh) >= lim.Searches || spent.tokens >= lim.Tokens {
			ev.add(EventBudgetExhausted, map[string]any{"claim": fmt.Sprintf("E%d", c.row.EvidenceNo), "stage": stage,
				"resource": map[bool]string{true: "steps", false: exhausted(*spent, lim)}[len(c.queries)+len(fresh) >= lim.Steps],
				"searches": spent.searches + len(fresh), "search_limit": lim.Searches, "claim_queries": len(c.queries) + len(fresh), "step_cap": lim.Steps,
				"tokens": spent.tokens, "token_limit": lim.Tokens, "query": t.Value})
			break
		}
		fresh = append(fresh, t.Value)
	}
	if len(fresh) == 0 {
		return 0, nil
	}
	rows, err := q.RegisterPlannerQueries(ctx, store.RegisterPlannerQueriesParams{TaskID: taskID, Vals: fresh, ClaimID: c.row.ID, RetrievalStage: int16(stage)})
	if err != nil {
		return 0, fmt.Errorf("register queries: %w", err)
	}
	params := make([]river.InsertManyParams, len(rows))
	registered := make([]string, len(rows))
	for i, r := range rows {
		params[i] = river.InsertManyParams{Args: jobs.TargetQueueArgs{TaskID: taskID, Target: jobs.Target{Kind: jobs.TargetQuery, Value: r.Value}, Fetch: p.Fetch.Min}}
		registered[i] = r.Value
	}
	if len(params) > 0 {
		if _, err := p.Client.InsertManyTx(ctx, tx, params); err != nil {
			return 0, fmt.Errorf("insert query jobs: %w", err)
		}
	}
	c.queries = append(c.queries, registered...)
	spent.searches += len(registered)
	ev.add(EventURLsRegistered, map[string]any{"stage": stage, "claim": fmt.Sprintf("E%d", c.row.EvidenceNo), "queries": registered,
		"fetch_now_per_query": p.Fetch.Min})
	return len(registered), ev.err
}

// events records the task's events; the first failure is kept.
type events struct {
	ctx  context.Context
	q    *store.Queries
	task int64
	err  error
}

func (e *events) add(kind string, payload any) {
	if e.err != nil {
		return
	}
	data, err := json.Marshal(payload)
	if err != nil {
		e.err = fmt.Errorf("event %s: %w", kind, err)
		return
	}
	if err := e.q.InsertEvent(e.ctx, store.InsertEventParams{TaskID: &e.task, EventType: kind, Payload: data}); err != nil {
		e.err = fmt.Errorf("record event %s: %w", kind, err)
	}
}
