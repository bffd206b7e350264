package bench

import (
	"context"
	"fmt"
	"time"
)

// BigTaskSection is one large task verified on 1 and on 2 processes.
const BigTaskSection = "bigtask"

// bigTask verifies one task of BigTaskClaims claims over BigTaskFragments
// fragments with the built-in NLI on 1 and on 2 worker processes, once
// each (the first pass, in which each process loads the task's index, and
// the warm pass, as in the verify section), and prints the task's time and
// the largest process's peak RSS: a large task must not fall off a cliff
// in memory or time.
func (h *harness) bigTask(ctx context.Context) error {
	n, frags := h.opts.BigTaskClaims, h.opts.BigTaskFragments
	env, err := h.synthEnv(ctx)
	if err != nil {
		return err
	}
	defer env.done()
	begin := time.Now()
	task, err := loadTask(ctx, env.pool, env.models.Embedder, env.sentences, taskSpec{
		Claims: n, Fragments: frags, Related: max(1, frags/max(1, n)), Domains: 40, FragsPerPage: 20,
		DomainPrefix: "big", Seed: 3,
	})
	if err != nil {
		return err
	}
	h.logf("big task: loaded %d claims, %d fragments in %.1fs", len(task.ClaimIDs), task.Fragments, time.Since(begin).Seconds())
	sec := fmt.Sprintf("verify_nli, one task of %d claims × %d fragments (built-in NLI, %d claims per job, %d workers per process, one run each)",
		len(task.ClaimIDs), task.Fragments, h.opts.ClaimsPerJob, h.opts.NLIWorkers)
	for _, procs := range []int{1, 2} {
		r, err := h.runVerify(ctx, env.pool, env.url, task, procs, "fleet", builtinArm)
		if err != nil {
			return fmt.Errorf("%d process(es): %w", procs, err)
		}
		var rss int64
		for _, p := range r.procs {
			rss = max(rss, p.MaxRSS)
		}
		h.add(sec, fmt.Sprintf("%d process(es): the task's time, first pass (each process loads the task's index)", procs),
			[]float64{r.coldSpan.Seconds()}, "s", "")
		h.add(sec, fmt.Sprintf("%d process(es): the task's time, warm", procs), []float64{r.span.Seconds()}, "s", "")
		h.add(sec, fmt.Sprintf("%d process(es): claims verified, warm", procs), []float64{rate(r.claims, r.span)}, "claims/s", "")
		h.add(sec, fmt.Sprintf("%d process(es): peak RSS of the largest process", procs), []float64{float64(rss) / (1 << 20)}, "MB", "")
		h.logf("big task with %d processes: %.1f s cold, %.1f s warm, %.0f MB", procs, r.coldSpan.Seconds(), r.span.Seconds(), float64(rss)/(1<<20))
	}
	return nil
}
