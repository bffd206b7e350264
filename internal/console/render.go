package console

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/api"
	"github.com/evidencefleet/evidencefleet/internal/browsersafe"
	"github.com/evidencefleet/evidencefleet/internal/citation"
	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/service"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// pages are the console's templates, each the layout with its own content.
var pages = parsePages()

var funcs = template.FuncMap{
	"num":   func(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) },
	"pct":   func(f float64) string { return strconv.FormatFloat(100*f, 'f', 0, 64) + "%" },
	"when":  func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
	"bytes": humanBytes,
	"conf":  confidence,
	"lower": strings.ToLower,
	"term":  glossaryLink,
}

func parsePages() map[string]*template.Template {
	base := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html"))
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	out := map[string]*template.Template{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" {
			continue
		}
		out[name] = template.Must(template.Must(base.Clone()).ParseFS(templateFS, n))
	}
	return out
}

// view is what the layout shows around a page's content.
type view struct {
	Title     string
	Org       string
	Actor     string
	FormToken string
	FormField string
	Body      any
}

// render writes a page: the layout with the named page's content.
func (c *console) render(w http.ResponseWriter, r *http.Request, p *person, status int, name, title string, body any) {
	v := view{Title: title, Body: body, FormField: browsersafe.FormTokenField}
	if p != nil {
		v.Org, v.Actor, v.FormToken = p.Org(), p.Actor(), p.formToken
	}
	var buf bytes.Buffer
	if err := pages[name].ExecuteTemplate(&buf, "layout.html", v); err != nil {
		c.opts.Logger.ErrorContext(r.Context(), "console: render failed", "page", name, "err", err)
		http.Error(w, "the page cannot be shown; the fleet's log has the cause", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// errorData is what an error page shows.
type errorData struct {
	Status    int
	Message   string
	RequestID string
}

// errorPage answers status with a page saying why.
func (c *console) errorPage(w http.ResponseWriter, r *http.Request, p *person, status int, message string) {
	c.render(w, r, p, status, "error", http.StatusText(status), errorData{Status: status, Message: message, RequestID: api.RequestIDFrom(r.Context())})
}

// fail answers a service error: 404 for what the organization cannot see
// (another organization's ids answer like missing ones), 400 for refused
// input (the message names the field), 409 for a task that cannot take
// it, 500 (logged, not shown) otherwise.
func (c *console) fail(w http.ResponseWriter, r *http.Request, p *person, err error) {
	status := statusOf(err)
	msg := err.Error()
	if status == http.StatusInternalServerError {
		if !errors.Is(err, context.Canceled) {
			c.opts.Logger.ErrorContext(r.Context(), "console: operation failed", "path", r.URL.Path, "err", err)
		}
		msg = "Something went wrong; the fleet's log has the cause."
	}
	c.errorPage(w, r, p, status, msg)
}

func statusOf(err error) int {
	switch {
	case errors.Is(err, errs.ErrTaskNotFound), errors.Is(err, errs.ErrClaimNotFound), errors.Is(err, errs.ErrPageNotFound),
		errors.Is(err, errs.ErrEdgeNotFound), errors.Is(err, service.ErrJobNotFound):
		return http.StatusNotFound
	case errors.Is(err, citation.ErrTooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, errs.ErrBadInput), errors.Is(err, service.ErrBadRequest):
		return http.StatusBadRequest
	case errors.Is(err, errs.ErrTaskStopped), errors.Is(err, service.ErrTaskNotPaused):
		return http.StatusConflict
	}
	return http.StatusInternalServerError
}

// static serves the embedded assets (CSS, the small script), cached.
func (c *console) static(w http.ResponseWriter, r *http.Request, _ *person) {
	sub, _ := fs.Sub(staticFS, "static")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	http.StripPrefix(Path+"static/", http.FileServerFS(sub)).ServeHTTP(w, r)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func confidence(f *float64) string {
	if f == nil {
		return "—"
	}
	return strconv.FormatFloat(*f, 'f', 2, 64)
}

// glossaryLink links a term to its entry in the glossary page.
func glossaryLink(term, label string) template.HTML {
	e, ok := glossary[term]
	if !ok {
		panic("console: no glossary entry " + term) // a template names only known terms; the tests render every page
	}
	return template.HTML(`<a class="term" href="` + Path + `glossary#` + term + `" title="` + template.HTMLEscapeString(e.Short) + `">` +
		template.HTMLEscapeString(label) + `</a>`)
}
