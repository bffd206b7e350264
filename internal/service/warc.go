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
	Records    int    `json:"records"`    // response records: one per captured page version
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
// version's id in Evidencefleet-Page-Version-Id — and, unless cdxj is nil,
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

// captureOf is a stored capture as crawl writes it.
func captureOf(r store.PageCapturesOfRow) warc.Capture {
	c := warc.Capture{URL: r.Url, Date: r.CapturedAt, Status: int(r.Status), Header: warc.ParseHeader(r.Headers), Body: r.Body}
	if r.RequestHeaders != nil {
		c.Request = warc.ParseHeader(*r.RequestHeaders)
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
