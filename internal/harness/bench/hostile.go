package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/crawl"
	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/repodata"
	"github.com/evidencefleet/evidencefleet/internal/ident"
)

// HostileSection is the -only name of the hostile-pages section.
const HostileSection = "hostile"

// The chart's ingest group (deploy/helm/evidencefleet/values.yaml): queues
// target and embed, 4 + 2 concurrent jobs, a 256 MiB memory limit and
// GOMEMLIMIT at 7/8 of it, as the chart sets it.
const (
	ingestTargetWorkers = 4
	ingestEmbedWorkers  = 2
	ingestMemoryLimit   = 256 << 20
	ingestGoMemLimit    = ingestMemoryLimit / 8 * 7
)

// ingestEnv is the environment of the chart's ingest group; everything else
// keeps the worker's defaults.
func ingestEnv() []string {
	return []string{"EVF_QUEUES=target,embed", fmt.Sprintf("EVF_TARGET_WORKERS=%d", ingestTargetWorkers),
		fmt.Sprintf("EVF_EMBED_WORKERS=%d", ingestEmbedWorkers), fmt.Sprintf("GOMEMLIMIT=%d", ingestGoMemLimit)}
}

// ordinaryPerHost is how many pages of each host of the demo corpus join
// the run as ordinary work (few: the fetcher spaces requests to one host).
const ordinaryPerHost = 4

// HostileOptions bound the hostile-pages section.
type HostileOptions struct {
	// Timeout bounds each run's wait for the target and embed queues to
	// drain; past it the run fails, naming the pages left.
	Timeout time.Duration
	// RSSCeiling (bytes) spares a shared machine: a worker whose resident
	// set passes it is killed, and the run fails. 0: no ceiling.
	RSSCeiling int64
	// Pages, when set, names the hostile pages to run (all by default).
	Pages []string
}

// HostileReport is the section's outcome: the ordinary pages alone, then
// the same worker on the hostile pages mixed with them, then on the heavy
// pages at once.
type HostileReport struct {
	MemoryLimit int64      `json:"memory_limit_bytes"`
	GoMemLimit  int64      `json:"gomemlimit_bytes"`
	WorkerEnv   []string   `json:"worker_env"`
	MaxBytes    int64      `json:"fetch_max_bytes"`
	MaxElements int        `json:"page_max_elements"`
	Ordinary    HostileRun `json:"ordinary"`
	Mix         HostileRun `json:"mix"`
	// AtOnce is the worker on four misnested pages and four 5 MB pages of
	// paragraphs queued together (AtOncePages).
	AtOnce   HostileRun `json:"at_once"`
	Pass     bool       `json:"pass"`
	Failures []string   `json:"failures,omitempty"`
}

// HostileRun is one worker process working one task.
type HostileRun struct {
	Label     string `json:"label"`
	BodyBytes int64  `json:"body_bytes"` // as served (gzip bodies compressed)
	// PeakRSS is the worker's own peak resident set (VmHWM, see
	// watchedProc.readHWM); RusageMaxRSS getrusage's figure, which counts
	// the harness's resident set at the fork.
	PeakRSS      int64   `json:"peak_rss_bytes"`
	RusageMaxRSS int64   `json:"rusage_max_rss_bytes"`
	CPUSeconds   float64 `json:"cpu_seconds"`
	WallSeconds  float64 `json:"wall_seconds"` // worker ready to queues drained (or the run's end)
	Drained      bool    `json:"drained"`
	Killed       bool    `json:"killed_at_ceiling"` // PeakRSS is then only a lower bound
	// Wait says why the wait ended before the queues drained.
	Wait string `json:"wait,omitempty"`
	// Worker says how the process ended: "stopped", or why not.
	Worker string              `json:"worker"`
	Pages  []HostilePageResult `json:"pages"`
	// Jobs counts the task's target_queue and embed jobs by kind and state.
	Jobs map[string]map[string]int `json:"jobs"`
	// Others counts targets the pages registered themselves, by status.
	Others map[string]int `json:"other_targets,omitempty"`
}

// HostilePageResult is how one page ended.
type HostilePageResult struct {
	Name      string `json:"name"`
	Shape     string `json:"shape,omitempty"`
	URL       string `json:"url"`
	Hostile   bool   `json:"hostile"`
	BodyBytes int    `json:"body_bytes"`
	Status    string `json:"status"` // targets.status: extracted, failed, or seen (unfinished)
	Stage     string `json:"stage"`
	Error     string `json:"error,omitempty"` // targets.error
	JobState  string `json:"job_state"`
	Attempts  int    `json:"attempts"`
}

// hostile measures the worker of the chart's ingest group on a replay
// archive of hostile pages: its own peak RSS (VmHWM; getrusage, which the
// other sections read, counts the harness's resident set at the fork) on
// the ordinary pages alone, on the hostile mix and on the heavy pages at
// once, against the group's memory limit, and how every page ended. Its rows join the report; a
// worker over the limit, dead or not done in time is a failure of the
// report (HostileReport.Err), not an error.
func (h *harness) hostile(ctx context.Context, hopts HostileOptions) (*HostileReport, error) {
	cfg, err := config.Load()
	if err != nil {
		return nil, fmt.Errorf("worker configuration: %w", err)
	}
	ordinary, err := ordinaryPages(h.opts.DataDir, ordinaryPerHost)
	if err != nil {
		return nil, err
	}
	every := HostilePages(cfg.FetchMaxBytes, cfg.PageMaxElements)
	hostile, err := pickPages(every, hopts.Pages)
	if err != nil {
		return nil, err
	}
	atOnce := AtOncePages(cfg.FetchMaxBytes, cfg.PageMaxElements)
	dir, err := os.MkdirTemp("", "evf-bench-hostile-")
	if err != nil {
		return nil, fmt.Errorf("replay archive: %w", err)
	}
	defer os.RemoveAll(dir)
	// One archive of every page for both runs, whichever pages they add:
	// the worker loads the same manifest, and redirects find their target.
	var pages []corpus.Page
	for _, p := range slices.Concat(every, ordinary, atOnce) {
		pages = append(pages, p.Page)
	}
	if err := corpus.WriteArchive(dir, pages); err != nil {
		return nil, fmt.Errorf("replay archive: %w", err)
	}
	all := interleave(hostile, ordinary)
	env := append(ingestEnv(), "EVF_REPLAY_DIR="+dir)
	hr := &HostileReport{MemoryLimit: ingestMemoryLimit, GoMemLimit: ingestGoMemLimit, WorkerEnv: ingestEnv(),
		MaxBytes: cfg.FetchMaxBytes, MaxElements: cfg.PageMaxElements}
	h.logf("hostile: %d hostile and %d ordinary pages in %s", len(hostile), len(ordinary), dir)
	if hr.Ordinary, err = h.hostileRun(ctx, "ordinary pages only", env, ordinary, hopts); err != nil {
		return nil, err
	}
	if hr.Mix, err = h.hostileRun(ctx, "hostile mix", env, all, hopts); err != nil {
		return nil, err
	}
	if hr.AtOnce, err = h.hostileRun(ctx, "at once", env, atOnce, hopts); err != nil {
		return nil, err
	}
	hr.judge()
	h.hostileRows(hr, len(hostile), len(ordinary))
	return hr, nil
}

// pickPages keeps the pages named (all when none is).
func pickPages(pages []HostilePage, names []string) ([]HostilePage, error) {
	if len(names) == 0 {
		return pages, nil
	}
	var out []HostilePage
	for _, n := range names {
		i := slices.IndexFunc(pages, func(p HostilePage) bool { return p.Name == n })
		if i < 0 {
			known := make([]string, len(pages))
			for j, p := range pages {
				known[j] = p.Name
			}
			return nil, fmt.Errorf("no hostile page %q (want one of %s)", n, strings.Join(known, ", "))
		}
		out = append(out, pages[i])
	}
	return out, nil
}

// interleave spreads the ordinary pages evenly among the hostile ones, so
// that ordinary work is queued among the hostile pages, not after them all.
func interleave(hostile, ordinary []HostilePage) []HostilePage {
	if len(ordinary) == 0 {
		return hostile
	}
	out := make([]HostilePage, 0, len(hostile)+len(ordinary))
	step := len(hostile)/len(ordinary) + 1
	o := 0
	for i, p := range hostile {
		if i%step == step-1 && o < len(ordinary) {
			out = append(out, ordinary[o])
			o++
		}
		out = append(out, p)
	}
	return append(out, ordinary[o:]...)
}

// ordinaryPages reads up to perHost pages of each host of the bundled demo
// corpus (testdata/replay/demo), found under dataDir or, for a relative
// dataDir, under the repository root.
func ordinaryPages(dataDir string, perHost int) ([]HostilePage, error) {
	dir := filepath.Join(dataDir, "replay", "demo")
	if _, err := os.Stat(dir); err != nil && !filepath.IsAbs(dataDir) {
		if root, rerr := repodata.Root(); rerr == nil {
			dir = filepath.Join(root, dataDir, "replay", "demo")
		}
	}
	archive, err := crawl.OpenArchive(dir)
	if err != nil {
		return nil, fmt.Errorf("ordinary pages: %w", err)
	}
	perHostN := map[string]int{}
	var out []HostilePage
	for _, e := range archive.Entries() {
		host := ident.Domain(e.URL)
		if e.Status != 200 || perHostN[host] >= perHost {
			continue
		}
		r, _, err := archive.Body(e)
		if err != nil {
			return nil, fmt.Errorf("ordinary pages: %w", err)
		}
		body, err := io.ReadAll(io.LimitReader(r, 8<<20))
		r.Close()
		if err != nil {
			return nil, fmt.Errorf("ordinary pages: %s: %w", e.URL, err)
		}
		perHostN[host]++
		name := path.Base(strings.TrimSuffix(e.URL, "/"))
		out = append(out, HostilePage{Name: name, Ordinary: true, Shape: "ordinary page of the demo corpus (" + host + ")",
			Page: corpus.Page{URL: e.URL, ContentType: e.ContentType(), Body: body, Status: e.Status}})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("ordinary pages: none in %s", dir)
	}
	return out, nil
}

// judge fills Pass and Failures: each run within the memory limit, its
// worker alive and its queues drained, every hostile page ended with a
// status and every ordinary page extracted.
func (hr *HostileReport) judge() {
	for _, r := range hr.runs() {
		if r.PeakRSS > hr.MemoryLimit {
			hr.Failures = append(hr.Failures, fmt.Sprintf("%s: peak RSS %.0f MiB over the ingest group's memory limit of %d MiB",
				r.Label, mib(r.PeakRSS), hr.MemoryLimit>>20))
		}
		if !r.Drained {
			hr.Failures = append(hr.Failures, fmt.Sprintf("%s: %s", r.Label, r.Wait))
		}
		if r.Worker != "stopped" && !r.Killed {
			hr.Failures = append(hr.Failures, fmt.Sprintf("%s: worker %s", r.Label, r.Worker))
		}
		var left, ordinaryLost []string
		for _, p := range r.Pages {
			switch {
			case p.Status != "extracted" && p.Status != "failed":
				left = append(left, p.Name)
			case !p.Hostile && p.Status != "extracted":
				ordinaryLost = append(ordinaryLost, p.Name)
			}
		}
		if len(left) > 0 {
			hr.Failures = append(hr.Failures, fmt.Sprintf("%s: %d pages unfinished: %s", r.Label, len(left), strings.Join(left, ", ")))
		}
		if len(ordinaryLost) > 0 {
			hr.Failures = append(hr.Failures, fmt.Sprintf("%s: ordinary pages not extracted: %s", r.Label, strings.Join(ordinaryLost, ", ")))
		}
	}
	hr.Pass = len(hr.Failures) == 0
}

// runs are the section's runs in the order they ran.
func (hr *HostileReport) runs() []*HostileRun {
	return []*HostileRun{&hr.Ordinary, &hr.Mix, &hr.AtOnce}
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// hostileRows adds the section's rows to the table.
func (h *harness) hostileRows(hr *HostileReport, hostile, ordinary int) {
	sec := fmt.Sprintf("hostile pages (the chart's ingest group: target %d + embed %d workers, GOMEMLIMIT %d MiB, memory limit %d MiB; one run each)",
		ingestTargetWorkers, ingestEmbedWorkers, hr.GoMemLimit>>20, hr.MemoryLimit>>20)
	o, m := &hr.Ordinary, &hr.Mix
	h.add(sec, fmt.Sprintf("ordinary pages only (%d pages, %.2f MB): worker peak RSS", ordinary, mib(o.BodyBytes)),
		[]float64{mib(o.PeakRSS)}, "MB", hr.limitNote(o))
	h.add(sec, "ordinary pages only: wall time, worker ready to queues drained", []float64{o.WallSeconds}, "s", drainNote(o))
	h.add(sec, fmt.Sprintf("hostile mix (%d hostile + %d ordinary pages, %.1f MB served): worker peak RSS", hostile, ordinary, mib(m.BodyBytes)),
		[]float64{mib(m.PeakRSS)}, "MB", "")
	h.compare("ordinary pages only", mib(o.PeakRSS), "MB")
	last := &h.rep.Rows[len(h.rep.Rows)-1]
	last.Baseline += "; " + hr.limitNote(m)
	h.add(sec, "hostile mix: wall time, worker ready to queues drained", []float64{m.WallSeconds}, "s", drainNote(m))
	h.add(sec, "hostile mix: worker CPU", []float64{m.CPUSeconds}, "CPU s", "")
	h.compare("ordinary pages only", o.CPUSeconds, "CPU s")
	count := func(r *HostileRun, hostile bool, status string) float64 {
		n := 0
		for _, p := range r.Pages {
			if p.Hostile == hostile && (p.Status == status || status == "" && p.Status != "extracted" && p.Status != "failed") {
				n++
			}
		}
		return float64(n)
	}
	h.add(sec, "hostile pages failed, with the reason", []float64{count(m, true, "failed")}, "pages", fmt.Sprintf("of %d", hostile))
	h.add(sec, "hostile pages extracted", []float64{count(m, true, "extracted")}, "pages", fmt.Sprintf("of %d", hostile))
	h.add(sec, "hostile pages unfinished", []float64{count(m, true, "")}, "pages", fmt.Sprintf("of %d", hostile))
	h.add(sec, "ordinary pages extracted in the mix", []float64{count(m, false, "extracted")}, "pages",
		fmt.Sprintf("of %d (alone: %.0f)", ordinary, count(o, false, "extracted")))
	a := &hr.AtOnce
	h.add(sec, fmt.Sprintf("at once (%d misnested pages of %.1f MB + %d pages of 49,000 paragraphs, %.1f MB): worker peak RSS",
		atOnceEach, float64(pageBytes(a, true))/atOnceEach/1e6, atOnceEach, float64(pageBytes(a, false))/atOnceEach/1e6),
		[]float64{mib(a.PeakRSS)}, "MiB", hr.limitNote(a))
	h.add(sec, "at once: wall time, worker ready to queues drained", []float64{a.WallSeconds}, "s", drainNote(a))
	h.add(sec, "at once: misnested pages failed, with the reason", []float64{count(a, true, "failed")}, "pages", fmt.Sprintf("of %d", atOnceEach))
	h.add(sec, "at once: pages of paragraphs extracted", []float64{count(a, false, "extracted")}, "pages", fmt.Sprintf("of %d", atOnceEach))
}

// pageBytes sums the bodies of the run's hostile (or ordinary) pages.
func pageBytes(r *HostileRun, hostile bool) int {
	n := 0
	for _, p := range r.Pages {
		if p.Hostile == hostile {
			n += p.BodyBytes
		}
	}
	return n
}

// drainNote says, for a run that did not drain, that its wall time is only
// how long it ran.
func drainNote(r *HostileRun) string {
	if r.Drained {
		return ""
	}
	return "NOT DRAINED: " + clipLine(r.Wait, 80)
}

// limitNote compares a peak RSS with the group's limit and GOMEMLIMIT.
func (hr *HostileReport) limitNote(r *HostileRun) string {
	rss := r.PeakRSS
	verdict := "within"
	if rss > hr.MemoryLimit {
		verdict = "OVER: FAIL"
	}
	if r.Killed {
		verdict += " (at least: killed at the harness's RSS ceiling)"
	}
	return fmt.Sprintf("limit %d MiB: ×%.2f (GOMEMLIMIT %d MiB: ×%.2f) %s",
		hr.MemoryLimit>>20, float64(rss)/float64(hr.MemoryLimit), hr.GoMemLimit>>20, float64(rss)/float64(hr.GoMemLimit), verdict)
}

// WriteTable prints how every page of the hostile mix and of the at-once
// run ended, each run in one line, and the verdict.
func (hr *HostileReport) WriteTable(w io.Writer) error {
	for _, r := range []*HostileRun{&hr.Mix, &hr.AtOnce} {
		fmt.Fprintf(w, "\n%s, page by page (targets.status and targets.error; body as served)\n", r.Label)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "  page\tbytes\tstatus\tstage\tjob (attempts)\terror\n")
		for _, p := range r.Pages {
			name := p.Name
			if !p.Hostile {
				name = "(ordinary) " + name
			}
			fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s (%d)\t%s\n", name, p.BodyBytes, p.Status, p.Stage, p.JobState, p.Attempts, clipLine(p.Error, 110))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, r := range hr.runs() {
		fmt.Fprintf(w, "  %s: worker %s; jobs %s", r.Label, r.Worker, jobCounts(r.Jobs))
		if r.Wait != "" {
			fmt.Fprintf(w, "; not drained: %s", r.Wait)
		}
		if len(r.Others) > 0 {
			fmt.Fprintf(w, "; targets the pages registered: %v", r.Others)
		}
		fmt.Fprintln(w)
	}
	if hr.Pass {
		_, err := fmt.Fprintln(w, "hostile pages: PASS")
		return err
	}
	_, err := fmt.Fprintf(w, "hostile pages: FAIL\n  %s\n", strings.Join(hr.Failures, "\n  "))
	return err
}

// Err is nil when the section passed, else an error naming its failures.
func (hr *HostileReport) Err() error {
	if hr == nil || hr.Pass {
		return nil
	}
	return errors.New("hostile pages: FAIL: " + strings.Join(hr.Failures, "; "))
}

func jobCounts(jobs map[string]map[string]int) string {
	var parts []string
	for _, k := range []string{"target_queue", "embed"} {
		var states []string
		for _, s := range []string{"completed", "cancelled", "discarded", "available", "running", "retryable", "scheduled", "pending"} {
			if n := jobs[k][s]; n > 0 {
				states = append(states, fmt.Sprintf("%d %s", n, s))
			}
		}
		if len(states) == 0 {
			states = []string{"none"}
		}
		parts = append(parts, k+" "+strings.Join(states, ", "))
	}
	return strings.Join(parts, "; ")
}

// clipLine keeps s on one line and at most n bytes (on a rune boundary).
func clipLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
