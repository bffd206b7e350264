// Package papers resolves scholarly identifiers to papers through the
// academic APIs the process is configured with: Semantic Scholar first, then
// OpenAlex, their answers merged (one paper, the ids and abstract of both).
package papers

import (
	"context"
	"errors"
	"fmt"

	"github.com/evidencefleet/evidencefleet/internal/academic"
	"github.com/evidencefleet/evidencefleet/internal/academic/openalex"
	"github.com/evidencefleet/evidencefleet/internal/academic/s2"
)

// Resolver looks papers up. Either client may be nil (not configured).
type Resolver struct {
	S2       *s2.Client
	OpenAlex *openalex.Client
}

// ErrNoSource means no academic API is configured.
var ErrNoSource = errors.New("no academic API configured (EVF_S2_URL, EVF_OPENALEX_URL)")

// ResolveDOI returns the paper with the DOI. academic.ErrNotFound when no
// configured API knows it; another error (academic.ErrUnavailable, …) when
// none could answer.
func (r *Resolver) ResolveDOI(ctx context.Context, doi string) (*academic.Paper, error) {
	if r == nil || (r.S2 == nil && r.OpenAlex == nil) {
		return nil, ErrNoSource
	}
	var got []*academic.Paper
	var errs []error
	notFound := 0
	asked := 0
	if r.S2 != nil {
		asked++
		p, err := r.S2.Paper(ctx, s2.ByDOI(doi))
		switch {
		case err == nil:
			got = append(got, p)
		case errors.Is(err, academic.ErrNotFound):
			notFound++
		default:
			errs = append(errs, err)
		}
	}
	if r.OpenAlex != nil && (len(got) == 0 || got[0].Abstract == "") {
		asked++
		p, err := r.OpenAlex.WorkByDOI(ctx, doi)
		switch {
		case err == nil:
			got = append(got, p)
		case errors.Is(err, academic.ErrNotFound):
			notFound++
		default:
			errs = append(errs, err)
		}
	}
	if len(got) == 0 {
		if notFound == asked {
			return nil, fmt.Errorf("DOI %s: %w", doi, academic.ErrNotFound)
		}
		return nil, fmt.Errorf("DOI %s: %w", doi, errors.Join(errs...))
	}
	return Merge(got...), nil
}

// Merge combines records of one paper: the first non-empty value of each
// field wins, in the order given.
func Merge(ps ...*academic.Paper) *academic.Paper {
	out := &academic.Paper{}
	first := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		}
	}
	for _, p := range ps {
		if p == nil {
			continue
		}
		first(&out.Title, p.Title)
		first(&out.Venue, p.Venue)
		first(&out.DOI, p.DOI)
		first(&out.PMID, p.PMID)
		first(&out.ArXiv, p.ArXiv)
		first(&out.S2ID, p.S2ID)
		first(&out.OpenAlexID, p.OpenAlexID)
		first(&out.Abstract, p.Abstract)
		first(&out.URL, p.URL)
		first(&out.Source, p.Source)
		if out.Year == 0 {
			out.Year = p.Year
		}
		if out.CitationCount == 0 {
			out.CitationCount = p.CitationCount
		}
	}
	return out
}
