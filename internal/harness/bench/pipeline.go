package bench

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/eval"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

var pipelineKinds = []string{jobs.KindTargetQueue, jobs.KindEmbed, jobs.KindVerifyNLI}

// pipeline runs the whole fleet with the built-in models on the
// Climate-FEVER dev claims and their replayed Wikipedia pages: once with one
// worker process serving every queue (wall time, jobs/s per kind), and once
// phase by phase, one process per job kind in pipeline order, so that each
// kind's CPU seconds and peak RSS are its own.
func (h *harness) pipeline(ctx context.Context, b baseline) error {
	records, err := corpus.ReadClimateFever(ClimateFeverFile(h.opts.DataDir))
	if err != nil {
		return err
	}
	if h.opts.ClimateClaims > 0 && len(records) > h.opts.ClimateClaims {
		records = records[:h.opts.ClimateClaims]
	}
	pages := corpus.RenderArticles(records)
	dir, err := os.MkdirTemp("", "evf-bench-replay-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := corpus.WriteArchive(dir, pages); err != nil {
		return err
	}
	sec := fmt.Sprintf("Climate-FEVER dev pipeline (%d claims, %d pages, built-ins, 1 process, all queues)", len(records), len(pages))
	var wall, total []float64
	perKind := map[string][]float64{}
	for rep := range h.opts.Reps {
		r, err := h.runPipeline(ctx, dir, records, pages, [][]string{{"target", "embed", "nli"}})
		if err != nil {
			return err
		}
		wall = append(wall, r.span.Seconds())
		total = append(total, rate(r.total(), r.span))
		for _, k := range pipelineKinds {
			perKind[k] = append(perKind[k], rate(r.jobs[k], r.span))
		}
		h.logf("pipeline rep %d: %.1fs, %v jobs", rep+1, r.span.Seconds(), r.jobs)
	}
	h.add(sec, "wall time, first fetch to last verification", wall, "s", "")
	h.add(sec, "jobs, all kinds", total, "jobs/s", "")
	h.compare("no-op", b.workRate, "jobs/s")
	for _, k := range pipelineKinds {
		h.add(sec, k+" jobs over the wall time", perKind[k], "jobs/s", "")
	}

	phases := fmt.Sprintf("Climate-FEVER pipeline by kind (one process per kind, %d claims)", len(records))
	cpu := map[string][]float64{}
	dbCPU := map[string][]float64{}
	rss := map[string][]float64{}
	rates := map[string][]float64{}
	counts := map[string]int{}
	for range h.opts.Reps {
		r, err := h.runPipeline(ctx, dir, records, pages, [][]string{{"target"}, {"embed"}, {"nli"}})
		if err != nil {
			return err
		}
		for i, k := range pipelineKinds {
			n := r.jobs[k]
			counts[k] = n
			cpu[k] = append(cpu[k], r.procs[i].CPUSeconds/float64(max(n, 1))*1000)
			if len(r.dbCPU) == len(r.procs) {
				dbCPU[k] = append(dbCPU[k], r.dbCPU[i]/float64(max(n, 1))*1000)
			}
			rss[k] = append(rss[k], float64(r.procs[i].MaxRSS)/(1<<20))
			rates[k] = append(rates[k], rate(n, r.spans[k]))
		}
	}
	for _, k := range pipelineKinds {
		h.add(phases, fmt.Sprintf("%s (%d jobs): throughput", k, counts[k]), rates[k], "jobs/s", "")
		h.add(phases, fmt.Sprintf("%s: worker CPU per 1,000 jobs", k), cpu[k], "CPU s", "")
		h.compare("no-op", b.cpuPer1k, "CPU s")
		if len(dbCPU[k]) > 0 {
			h.add(phases, fmt.Sprintf("%s: Postgres CPU per 1,000 jobs", k), dbCPU[k], "CPU s", "")
		}
		h.add(phases, fmt.Sprintf("%s: worker peak RSS", k), rss[k], "MB", "")
		h.compare("no-op", b.rss, "MB")
	}
	return nil
}

type pipelineRun struct {
	jobs  map[string]int           // completed jobs per kind
	spans map[string]time.Duration // per kind: first attempt to last completion
	span  time.Duration            // all kinds
	procs []procStats              // per phase
	dbCPU []float64                // per phase: the Postgres server's CPU seconds (nil when it is not on this machine)
}

func (r pipelineRun) total() int {
	n := 0
	for _, c := range r.jobs {
		n += c
	}
	return n
}

// runPipeline enqueues the task in a fresh database and works it with one
// process per phase; each phase serves its queues until their jobs are done.
func (h *harness) runPipeline(ctx context.Context, replayDir string, records []corpus.Record, pages []corpus.Page, phases [][]string) (pipelineRun, error) {
	r := pipelineRun{jobs: map[string]int{}, spans: map[string]time.Duration{}}
	pool, dbURL, done, err := h.scratch(ctx)
	if err != nil {
		return r, err
	}
	defer done()
	client, err := insertOnlyClient(pool)
	if err != nil {
		return r, err
	}
	if _, err := eval.EnqueueTask(ctx, store.NewStore(pool), client, records, pages); err != nil {
		return r, err
	}
	db := findServerCPU(ctx, pool)
	for _, queues := range phases {
		env := []string{"DATABASE_URL=" + dbURL, "EVF_REPLAY_DIR=" + replayDir, "EVF_QUEUES=" + strings.Join(queues, ",")}
		dbBefore, dbKnown := db.seconds()
		p, err := startProc(h.opts.Exe, env, "fleet")
		if err != nil {
			return r, err
		}
		waitErr := waitDrained(ctx, pool, kindsOf(queues), 30*time.Minute)
		if dbAfter, ok := db.seconds(); ok && dbKnown {
			r.dbCPU = append(r.dbCPU, dbAfter-dbBefore)
		}
		st, err := p.stop()
		if waitErr != nil {
			return r, waitErr
		}
		if err != nil {
			return r, err
		}
		r.procs = append(r.procs, st)
	}
	for _, k := range pipelineKinds {
		w, err := jobWindow(ctx, pool, []string{k})
		if err != nil {
			return r, err
		}
		if w.failed > 0 {
			return r, fmt.Errorf("%d %s jobs failed", w.failed, k)
		}
		r.jobs[k], r.spans[k] = w.completed, w.span
	}
	all, err := jobWindow(ctx, pool, pipelineKinds)
	r.span = all.span
	return r, err
}

// kindsOf maps the pipeline's queues to the kinds they run.
func kindsOf(queues []string) []string {
	byQueue := map[string]string{"target": jobs.KindTargetQueue, "embed": jobs.KindEmbed, "nli": jobs.KindVerifyNLI}
	var out []string
	for _, q := range queues {
		out = append(out, byQueue[q])
	}
	return out
}
