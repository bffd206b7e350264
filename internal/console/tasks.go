package console

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/evidencefleet/evidencefleet/internal/citation"
	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/service"
)

// routes are every console route. The router walk (console_test.go) checks
// that each one not Public asks for a session, and each state-changing one
// for the session's form token.
var routes = []route{
	{Method: "GET", Pattern: loginPath, Public: true, handle: (*console).loginPage},
	{Method: "POST", Pattern: loginPath, Public: true, handle: (*console).login},
	{Method: "GET", Pattern: Path + "static/", Public: true, handle: (*console).static},
	{Method: "POST", Pattern: Path + "logout", handle: (*console).logout},
	{Method: "GET", Pattern: Path + "{$}", handle: (*console).taskList},
	{Method: "GET", Pattern: Path + "tasks/{task_id}", handle: (*console).taskPage},
	{Method: "GET", Pattern: Path + "tasks/{task_id}/progress", handle: (*console).progressStream},
	{Method: "POST", Pattern: Path + "tasks/{task_id}/pause", handle: (*console).pause},
	{Method: "POST", Pattern: Path + "tasks/{task_id}/resume", handle: (*console).resume},
	{Method: "GET", Pattern: Path + "tasks/{task_id}/stop", handle: (*console).stopPage},
	{Method: "POST", Pattern: Path + "tasks/{task_id}/stop", handle: (*console).stop},
	{Method: "GET", Pattern: Path + "tasks/{task_id}/jobs", handle: (*console).jobsPage},
	{Method: "GET", Pattern: Path + "tasks/{task_id}/cite", handle: (*console).citePage},
	{Method: "POST", Pattern: Path + "tasks/{task_id}/cite", handle: (*console).cite},
	{Method: "GET", Pattern: Path + "tasks/{task_id}/evidence/{evidence_no}", handle: (*console).byEvidenceNo},
	{Method: "GET", Pattern: Path + "claims/{claim_id}", handle: (*console).claimPage},
	{Method: "POST", Pattern: Path + "claims/{claim_id}/feedback", handle: (*console).claimFeedback},
	{Method: "GET", Pattern: Path + "edges/{edge_id}", handle: (*console).edgePage},
	{Method: "POST", Pattern: Path + "edges/{edge_id}/correct", handle: (*console).correctEdge},
	{Method: "GET", Pattern: Path + "sources", handle: (*console).sourcesPage},
	{Method: "POST", Pattern: Path + "sources", handle: (*console).changeSource},
	{Method: "GET", Pattern: Path + "audit", handle: (*console).auditPage},
	{Method: "GET", Pattern: Path + "glossary", handle: (*console).glossaryPage},
}

// tasksPerPage is the task list's page size: each row reads the task's
// counts and costs.
const tasksPerPage = 25

// taskRow is one task of the list.
type taskRow struct {
	service.TaskDetail
	Finished int // jobs that ended
	AllJobs  int
	Costs    service.Costs
}

type taskListData struct {
	Tasks []taskRow
	Next  string
}

func (c *console) taskList(w http.ResponseWriter, r *http.Request, p *person) {
	ctx := r.Context()
	list, err := c.opts.Service.ListTasks(ctx, p.Org(), tasksPerPage, r.URL.Query().Get("cursor"))
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	data := taskListData{Next: list.Next}
	for _, t := range list.Tasks {
		row, err := c.taskRow(r, p, t.ID)
		if err != nil {
			c.fail(w, r, p, err)
			return
		}
		data.Tasks = append(data.Tasks, row)
	}
	c.render(w, r, p, http.StatusOK, "tasks", "Tasks", data)
}

// taskRow reads one task's counts and costs.
func (c *console) taskRow(r *http.Request, p *person, taskID int64) (taskRow, error) {
	d, err := c.opts.Service.ShowTask(r.Context(), p.Org(), taskID)
	if err != nil {
		return taskRow{}, err
	}
	costs, err := c.opts.Service.TaskCosts(r.Context(), p.Org(), taskID)
	if err != nil {
		return taskRow{}, err
	}
	row := taskRow{TaskDetail: d, Costs: costs}
	for state, n := range d.Jobs {
		row.AllJobs += n
		if state == "completed" || state == "cancelled" || state == "discarded" {
			row.Finished += n
		}
	}
	return row, nil
}

// pathID reads a positive id from the path, or answers 404.
func (c *console) pathID(w http.ResponseWriter, r *http.Request, p *person, name string) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || id <= 0 {
		c.errorPage(w, r, p, http.StatusNotFound, fmt.Sprintf("There is no such page: %s must be a positive number.", name))
		return 0, false
	}
	return id, true
}

// taskData is a task's page.
type taskData struct {
	Task        taskRow
	Notice      string
	Models      []service.ModelUse
	Claims      service.ClaimListPage
	Filter      service.ClaimFilter
	After       int
	Verdicts    []string
	Statuses    []string
	FilterQuery string // the filter as a query string, for the next page's link
}

// claimsPerPage is a task page's claims per page: a page of 1,000 claims
// would pass 1 MB.
const claimsPerPage = 100

func (c *console) taskPage(w http.ResponseWriter, r *http.Request, p *person) {
	taskID, ok := c.pathID(w, r, p, "task_id")
	if !ok {
		return
	}
	ctx := r.Context()
	row, err := c.taskRow(r, p, taskID)
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	q := r.URL.Query()
	f := service.ClaimFilter{Verdict: q.Get("verdict"), Verification: q.Get("status")}
	after := 0
	if a := q.Get("after"); a != "" {
		if after, err = strconv.Atoi(a); err != nil || after < 0 {
			c.fail(w, r, p, fmt.Errorf("%w: after %q: want an E-number's number, 0 or more", errs.ErrBadInput, a))
			return
		}
	}
	claims, err := c.opts.Service.ListClaims(ctx, p.Org(), taskID, f, after, claimsPerPage)
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	models, notice, err := c.opts.Service.Models(ctx, p.Org(), taskID)
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	fq := url.Values{}
	if f.Verdict != "" {
		fq.Set("verdict", f.Verdict)
	}
	if f.Verification != "" {
		fq.Set("status", f.Verification)
	}
	c.render(w, r, p, http.StatusOK, "task", fmt.Sprintf("Task %d", taskID), taskData{Task: row, Notice: notice, Models: models,
		Claims: claims, Filter: f, After: after, FilterQuery: fq.Encode(),
		Verdicts: []string{"well_supported", "supported", "contested", "likely_false", "unverified"},
		Statuses: []string{"verified", "pending", "rejected"}})
}

// byEvidenceNo sends E-number n of a task to its claim's page (the links
// of a checked citation text).
func (c *console) byEvidenceNo(w http.ResponseWriter, r *http.Request, p *person) {
	taskID, ok := c.pathID(w, r, p, "task_id")
	if !ok {
		return
	}
	n, err := strconv.Atoi(strings.TrimPrefix(r.PathValue("evidence_no"), "E"))
	if err != nil || n <= 0 {
		c.errorPage(w, r, p, http.StatusNotFound, "There is no such claim: an E-number is E and a positive number.")
		return
	}
	page, err := c.opts.Service.ListClaims(r.Context(), p.Org(), taskID, service.ClaimFilter{}, n-1, 1)
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	if len(page.Items) == 0 || page.Items[0].EvidenceNo != citation.ID(n) {
		c.errorPage(w, r, p, http.StatusNotFound, fmt.Sprintf("Task %d has no claim E%d.", taskID, n))
		return
	}
	http.Redirect(w, r, Path+"claims/"+itoa(page.Items[0].ID), http.StatusSeeOther)
}

func (c *console) pause(w http.ResponseWriter, r *http.Request, p *person) {
	c.lifecycle(w, r, p, c.opts.Service.PauseTask)
}

func (c *console) resume(w http.ResponseWriter, r *http.Request, p *person) {
	c.lifecycle(w, r, p, c.opts.Service.ResumeTask)
}

// lifecycle pauses or resumes a task, then shows it again.
func (c *console) lifecycle(w http.ResponseWriter, r *http.Request, p *person, change func(ctx context.Context, org string, taskID int64) (service.Lifecycle, error)) {
	taskID, ok := c.pathID(w, r, p, "task_id")
	if !ok {
		return
	}
	if _, err := change(r.Context(), p.Org(), taskID); err != nil {
		c.fail(w, r, p, err)
		return
	}
	http.Redirect(w, r, Path+"tasks/"+itoa(taskID), http.StatusSeeOther)
}

// stopData is the stop confirmation's page.
type stopData struct {
	Task service.TaskDetail
}

func (c *console) stopPage(w http.ResponseWriter, r *http.Request, p *person) {
	taskID, ok := c.pathID(w, r, p, "task_id")
	if !ok {
		return
	}
	d, err := c.opts.Service.ShowTask(r.Context(), p.Org(), taskID)
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	c.render(w, r, p, http.StatusOK, "stop", fmt.Sprintf("Stop task %d?", taskID), stopData{Task: d})
}

// stop stops a task once its confirmation was posted; its data stays
// (cleanup is the CLI's and the API's: it cannot be undone).
func (c *console) stop(w http.ResponseWriter, r *http.Request, p *person) {
	taskID, ok := c.pathID(w, r, p, "task_id")
	if !ok {
		return
	}
	if r.PostFormValue("confirm") != "stop" {
		c.errorPage(w, r, p, http.StatusBadRequest, "The stop was not confirmed (confirm: stop).")
		return
	}
	if _, err := c.opts.Service.StopTask(r.Context(), p.Org(), taskID, ""); err != nil {
		c.fail(w, r, p, err)
		return
	}
	http.Redirect(w, r, Path+"tasks/"+itoa(taskID), http.StatusSeeOther)
}

// jobsData is a task's jobs page.
type jobsData struct {
	TaskID  int64
	Jobs    service.JobPage
	State   string
	States  []string
	RiverUI bool
}

func (c *console) jobsPage(w http.ResponseWriter, r *http.Request, p *person) {
	taskID, ok := c.pathID(w, r, p, "task_id")
	if !ok {
		return
	}
	q := r.URL.Query()
	jobs, err := c.opts.Service.ListJobs(r.Context(), p.Org(), taskID, q.Get("state"), 100, q.Get("cursor"))
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	c.render(w, r, p, http.StatusOK, "jobs", fmt.Sprintf("Task %d's jobs", taskID),
		jobsData{TaskID: taskID, Jobs: jobs, State: q.Get("state"), States: service.JobStates(), RiverUI: c.opts.RiverUI})
}

// citeData is the citation check's page.
type citeData struct {
	TaskID int64
	Text   string
	Result *citation.Result
	Linked template.HTML // the text with each cited id a link to its claim
}

func (c *console) citePage(w http.ResponseWriter, r *http.Request, p *person) {
	taskID, ok := c.pathID(w, r, p, "task_id")
	if !ok {
		return
	}
	if _, err := c.opts.Service.Task(r.Context(), p.Org(), taskID); err != nil {
		c.fail(w, r, p, err)
		return
	}
	c.render(w, r, p, http.StatusOK, "cite", fmt.Sprintf("Check a text's citations against task %d", taskID), citeData{TaskID: taskID})
}

// cite checks a pasted text's [E…] citations against the task, as
// `enqueue cite check` does.
func (c *console) cite(w http.ResponseWriter, r *http.Request, p *person) {
	taskID, ok := c.pathID(w, r, p, "task_id")
	if !ok {
		return
	}
	text := r.PostFormValue("text")
	res, err := c.opts.Service.CiteCheck(r.Context(), p.Org(), taskID, text)
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	c.render(w, r, p, http.StatusOK, "cite", fmt.Sprintf("Check a text's citations against task %d", taskID),
		citeData{TaskID: taskID, Text: text, Result: res, Linked: linkCitations(text, taskID, res)})
}

// citationGroup is a bracketed group that may hold E-numbers; evidenceID
// one E-number in it.
var (
	citationGroup = regexp.MustCompile(`\[[^\[\]\n]{1,200}\]`)
	evidenceID    = regexp.MustCompile(`E[0-9]{1,9}`)
)

// linkCitations is text, escaped, with each E-number of a bracketed group
// a link to its claim when the task has it, marked invalid when not.
func linkCitations(text string, taskID int64, res *citation.Result) template.HTML {
	cited := make(map[string]bool, len(res.Cited))
	for _, id := range res.Cited {
		cited[id] = true
	}
	var b strings.Builder
	last := 0
	for _, g := range citationGroup.FindAllStringIndex(text, -1) {
		b.WriteString(template.HTMLEscapeString(text[last:g[0]]))
		group := text[g[0]:g[1]]
		at := 0
		for _, m := range evidenceID.FindAllStringIndex(group, -1) {
			b.WriteString(template.HTMLEscapeString(group[at:m[0]]))
			id := group[m[0]:m[1]]
			if cited[id] {
				fmt.Fprintf(&b, `<a href="%stasks/%d/evidence/%s">%s</a>`, Path, taskID, id, id)
			} else {
				fmt.Fprintf(&b, `<mark class="invalid" title="task %d has no claim %s">%s</mark>`, taskID, id, id)
			}
			at = m[1]
		}
		b.WriteString(template.HTMLEscapeString(group[at:]))
		last = g[1]
	}
	b.WriteString(template.HTMLEscapeString(text[last:]))
	return template.HTML(b.String())
}
