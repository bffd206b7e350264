package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// RecheckWrite is one recheck of a cited page for a task (ARCHITECTURE.md
// §5.10): what answered, the text it gave, and what became of each span
// the task cites in the page.
type RecheckWrite struct {
	TaskID, PageID, JobID int64
	CheckedAt             time.Time
	Outcome               string // unchanged (a text came), moved, gone or unreachable
	HTTPStatus            int    // 0: none
	FinalURL, Reason      string // "": none
	URL                   string // the page's address, for the task's event
	// Seen is the text that came (unchanged, moved): stored as the page's
	// version, a new one when the page changed, with its capture.
	Seen *SeenVersion
	// Robots are the robots.txt responses the fetch read from the web.
	Robots []CaptureWrite
	// Citations are the spans' findings; with AllUnreachable instead, every
	// span the task cites in the page is recorded unreachable.
	Citations      []CitationFinding
	AllUnreachable bool
}

// SeenVersion is the text a recheck saw.
type SeenVersion struct {
	SHA256, Content string
	FetchedAt       time.Time
	Capture         *CaptureWrite
}

// CitationFinding is what became of one cited span. Found and Around are
// rune spans of the seen version (nil: none).
type CitationFinding struct {
	PageVersionID int64
	Start, End    int32
	State         string
	Found, Around *[2]int32
}

// Rechecked is what WriteRecheck stored.
type Rechecked struct {
	CheckID    int64
	VersionID  int64 // the seen version (0: none)
	NewVersion bool  // the page changed: its text is a new version
	States     map[string]int
}

// EventSourceChanged is the task event of a recheck that found a cited
// span edited, moved or gone.
const EventSourceChanged = "source_changed"

// WriteRecheck is a recheck job's one write: the seen text as a page
// version (new only when the page changed, with its capture; nothing
// cited is touched), the check and its citations' findings, and, when a
// cited span changed, a source_changed event of the task.
func (q *Queries) WriteRecheck(ctx context.Context, w RecheckWrite) (Rechecked, error) {
	out := Rechecked{States: map[string]int{}}
	var seenID *int64
	if v := w.Seen; v != nil {
		ver, err := q.storeVersion(ctx, w.PageID, v.SHA256, v.Content, v.FetchedAt, v.Capture, w.Robots)
		if err != nil {
			return out, fmt.Errorf("the seen version: %w", err)
		}
		out.VersionID, out.NewVersion, seenID = ver.ID, ver.Created, &ver.ID
	} else if err := q.StoreRobots(ctx, w.Robots); err != nil {
		return out, err
	}
	id, err := q.InsertSourceCheck(ctx, InsertSourceCheckParams{TaskID: w.TaskID, PageID: w.PageID, CheckedAt: w.CheckedAt,
		Outcome: w.Outcome, HttpStatus: statusOrNone(w.HTTPStatus), FinalUrl: nonEmpty(w.FinalURL), Reason: nonEmpty(w.Reason),
		PageVersionID: seenID, JobID: w.JobID})
	if err != nil {
		return out, fmt.Errorf("insert the source check: %w", err)
	}
	out.CheckID = id
	if w.AllUnreachable {
		n, err := q.InsertUnreachableChecks(ctx, InsertUnreachableChecksParams{CheckID: id, TaskID: w.TaskID, PageID: w.PageID})
		if err != nil {
			return out, fmt.Errorf("insert the citations' checks: %w", err)
		}
		out.States["unreachable"] = int(n)
		return out, nil
	}
	p := InsertCitationChecksParams{CheckID: id}
	for _, c := range w.Citations {
		fs, fe := spanOrNone(c.Found)
		as, ae := spanOrNone(c.Around)
		p.VersionIds, p.Starts, p.Ends, p.States = append(p.VersionIds, c.PageVersionID), append(p.Starts, c.Start), append(p.Ends, c.End), append(p.States, c.State)
		p.FoundStarts, p.FoundEnds, p.AroundStarts, p.AroundEnds = append(p.FoundStarts, fs), append(p.FoundEnds, fe), append(p.AroundStarts, as), append(p.AroundEnds, ae)
		out.States[c.State]++
	}
	if err := q.InsertCitationChecks(ctx, p); err != nil {
		return out, fmt.Errorf("insert the citations' checks: %w", err)
	}
	changed := out.States["edited"] + out.States["moved"] + out.States["gone"]
	if changed == 0 {
		return out, nil
	}
	payload, err := json.Marshal(map[string]any{"page_id": w.PageID, "url": w.URL, "outcome": w.Outcome, "final_url": w.FinalURL,
		"http_status": w.HTTPStatus, "citations": out.States, "check_id": id, "job_id": w.JobID})
	if err != nil {
		return out, err
	}
	if err := q.InsertEvent(ctx, InsertEventParams{TaskID: &w.TaskID, EventType: EventSourceChanged, Payload: payload}); err != nil {
		return out, fmt.Errorf("record the task's event: %w", err)
	}
	return out, nil
}

// spanOrNone is a span as the query takes it: -1, -1 for none.
func spanOrNone(s *[2]int32) (int32, int32) {
	if s == nil {
		return -1, -1
	}
	return s[0], s[1]
}

// statusOrNone is an HTTP status as the check keeps it: nil for none.
func statusOrNone(s int) *int32 {
	if s == 0 {
		return nil
	}
	v := int32(s)
	return &v
}
