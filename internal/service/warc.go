package service

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/version"
	"github.com/evidencefleet/evidencefleet/internal/warc"
	"github.com/evidencefleet/evidencefleet/store"
)

// WARCExport is what ExportWARC wrote.
type WARCExport struct {
	Records    int    `json:"records"`    // response records of pages: one per captured page version (each with its request, when recorded)
	Robots     int    `json:"robots"`     // response records of robots.txt: the latest read at or before each page's capture, from its origin
	Bytes      int64  `json:"bytes"`      // of the WARC file
	Uncaptured int    `json:"uncaptured"` // page versions of the evidence with no capture (fetched before captures were kept, or an API's abstract)
	Versions   int    `json:"versions"`   // page versions of the task's evidence
	Filename   string `json:"filename"`   // the name the CDXJ lines give the WARC file
}

// Header fields of the fleet's own on each response record of the export.
const (
	WARCPageVersionField = "Evidencefleet-Page-Version-Id"
	WARCPageField        = "Evidencefleet-Page-Id"
)

// warcBatch is how many captures ExportWARC holds at once.
const warcBatch = 16

// ExportWARC writes the organization's task's evidence as a WARC file to
// archive: a response record for every page version of its evidence (the
// versions its pages were seen in, its claims were taken from and its NLI
// edges' passages came from) with the HTTP response it was captured in —
// target URI, date, status, headers, body and payload digest, and the
// version's id in Evidencefleet-Page-Version-Id — each followed by the
// request it answered when that was recorded, then the robots.txt each
// page's origin had when the page was fetched (the latest the fleet read
// at or before it), and, unless cdxj is nil,
// its CDXJ index (sorted, naming the file filename) to cdxj. The same task
// exported twice gives the same bytes.
func (s *Service) ExportWARC(ctx context.Context, org string, taskID int64, archive, cdxj io.Writer, filename string) (WARCExport, error) {
	out := WARCExport{Filename: filename}
	if _, err := s.Task(ctx, org, taskID); err != nil {
		return out, err
	}
	versions, err := s.st.TaskEvidenceVersions(ctx, taskID)
	if err != nil {
		return out, fmt.Errorf("export task %d as WARC: %w", taskID, err)
	}
	var ids []int64
	for _, v := range versions {
		if v.Captured {
			ids = append(ids, v.PageVersionID)
		} else {
			out.Uncaptured++
		}
	}
	out.Versions = len(versions)
	cw := &countingWriter{w: archive}
	var ww *warc.Writer
	var lines []string
	var origins []string // of each page capture, beside its time, for its robots.txt
	var ats []time.Time
	for batch := range slices.Chunk(ids, warcBatch) {
		rows, err := s.st.PageCapturesOf(ctx, batch)
		if err != nil {
			return out, fmt.Errorf("export task %d as WARC: captures: %w", taskID, err)
		}
		for _, r := range rows {
			if ww == nil {
				if ww, err = warc.NewWriter(cw, "evidencefleet "+version.String(), r.CapturedAt); err != nil {
					return out, err
				}
			}
			w, err := ww.Write(captureOf(r),
				[2]string{WARCPageVersionField, strconv.FormatInt(r.PageVersionID, 10)},
				[2]string{WARCPageField, strconv.FormatInt(r.PageID, 10)})
			if err != nil {
				return out, err
			}
			out.Records++
			lines = append(lines, warc.CDXJLine(w, filename))
			origins, ats = append(origins, r.Origin), append(ats, r.CapturedAt)
		}
	}
	if len(origins) > 0 {
		robots, err := s.st.RobotsCapturesBefore(ctx, store.RobotsCapturesBeforeParams{Origins: origins, Ats: ats})
		if err != nil {
			return out, fmt.Errorf("export task %d as WARC: robots.txt captures: %w", taskID, err)
		}
		for _, r := range robots {
			w, err := ww.Write(storedCapture(r.Url, r.CapturedAt, r.Status, r.Headers, r.Body, r.RequestHeaders))
			if err != nil {
				return out, err
			}
			out.Robots++
			lines = append(lines, warc.CDXJLine(w, filename))
		}
	}
	if ww == nil { // nothing captured: a WARC of its warcinfo alone
		if _, err := warc.NewWriter(cw, "evidencefleet "+version.String(), time.Unix(0, 0).UTC()); err != nil {
			return out, err
		}
	}
	out.Bytes = cw.n
	if cdxj != nil {
		slices.Sort(lines)
		for _, l := range lines {
			if _, err := io.WriteString(cdxj, l); err != nil {
				return out, fmt.Errorf("write the CDXJ index: %w", err)
			}
		}
	}
	return out, nil
}

// captureOf is a stored page capture as crawl made it.
func captureOf(r store.PageCapturesOfRow) warc.Capture {
	return storedCapture(r.Url, r.CapturedAt, r.Status, r.Headers, r.Body, r.RequestHeaders)
}

// storedCapture is a capture as the store keeps it (page_captures,
// robots_captures): headers as warc.FormatHeader's lines, the request's
// nil when it was not recorded.
func storedCapture(u string, at time.Time, status int32, headers string, body []byte, request *string) warc.Capture {
	c := warc.Capture{URL: u, Date: at, Status: int(status), Header: warc.ParseHeader(headers), Body: body}
	if request != nil {
		c.Request = warc.ParseHeader(*request)
	}
	return c
}

// countingWriter counts what it writes.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
