// Package papers resolves scholarly identifiers to papers through the
// academic APIs the process is configured with: Semantic Scholar first, then
// OpenAlex, their answers merged (one paper, the ids and abstract of both).
package papers

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/evidencefleet/evidencefleet/internal/academic"
	"github.com/evidencefleet/evidencefleet/internal/academic/openalex"
	"github.com/evidencefleet/evidencefleet/internal/academic/s2"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// Resolver looks papers up. Either client may be nil (not configured).
type Resolver struct {
	S2       *s2.Client
	OpenAlex *openalex.Client
}

// ErrNoSource means no academic API is configured.
var ErrNoSource = errors.New("no academic API configured (EVF_S2_URL, EVF_OPENALEX_URL)")

// ResolveDOI returns the paper with the DOI. remoteerr.ErrNotFound when no
// configured API knows it; another error (remoteerr.ErrUnavailable, …) when
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
		case errors.Is(err, remoteerr.ErrNotFound):
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
		case errors.Is(err, remoteerr.ErrNotFound):
			notFound++
		default:
			errs = append(errs, err)
		}
	}
	if len(got) == 0 {
		if notFound == asked {
			return nil, fmt.Errorf("DOI %s: %w", doi, remoteerr.ErrNotFound)
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

// Neighbor is a paper next to a source paper in the citation graph.
type Neighbor struct {
	Paper       academic.Paper
	Reference   bool     // the source cites it (else it cites the source)
	Influential bool     // Semantic Scholar's isInfluential, from either direction
	Sources     []string // the APIs that reported the link, sorted
}

// Ref names a source paper by whatever ids are known.
type Ref struct {
	DOI, S2ID, OpenAlexID string
}

// Neighbors returns the references and citations of a paper from every
// configured API, at most max of each per API, merged by DOI (then by the
// API's own id) so one paper reported by both is one neighbor. An API that
// fails is left out when another answered; when none answered the error is
// returned.
func (r *Resolver) Neighbors(ctx context.Context, ref Ref, max int) ([]Neighbor, error) {
	if r == nil || (r.S2 == nil && r.OpenAlex == nil) {
		return nil, ErrNoSource
	}
	lim := academic.Limit{MaxItems: max}
	type batch struct {
		links     []academic.Link
		reference bool
	}
	var batches []batch
	var errs []error
	answered := 0
	if r.S2 != nil {
		id := ref.S2ID
		if id == "" && ref.DOI != "" {
			id = s2.ByDOI(ref.DOI)
		}
		if id != "" {
			refs, _, err1 := r.S2.References(ctx, id, lim)
			cits, _, err2 := r.S2.Citations(ctx, id, lim)
			err1, err2 = knownNothing(err1), knownNothing(err2)
			if err1 == nil || err2 == nil {
				answered++
			}
			errs = append(errs, err1, err2)
			batches = append(batches, batch{refs, true}, batch{cits, false})
		}
	}
	if r.OpenAlex != nil {
		id := ref.OpenAlexID
		if id == "" && ref.DOI != "" {
			if w, err := r.OpenAlex.WorkByDOI(ctx, ref.DOI); err == nil {
				id = w.OpenAlexID
			} else if knownNothing(err) != nil {
				errs = append(errs, err)
			} else {
				answered++ // OpenAlex does not know the paper: no neighbors there
			}
		}
		if id != "" {
			refs, _, err1 := r.OpenAlex.References(ctx, lim, id)
			cits, _, err2 := r.OpenAlex.Citations(ctx, lim, id)
			err1, err2 = knownNothing(err1), knownNothing(err2)
			if err1 == nil || err2 == nil {
				answered++
			}
			errs = append(errs, err1, err2)
			batches = append(batches, batch{refs, true}, batch{cits, false})
		}
	}
	if answered == 0 {
		if err := errors.Join(errs...); err != nil {
			return nil, fmt.Errorf("neighbors of %+v: %w", ref, err)
		}
		return nil, nil // no id any API knows the paper by
	}
	var out []Neighbor
	for _, b := range batches {
		out = MergeLinks(out, b.links, b.reference)
	}
	return out, nil
}

// MergeLinks adds links (all references or all citations of one source) to
// neighbors: a paper already there (same DOI, or same S2 or OpenAlex id) is
// merged into it — ids and abstract completed, influential if either says
// so, the API added to its sources. Links without any id are dropped.
func MergeLinks(neighbors []Neighbor, links []academic.Link, reference bool) []Neighbor {
	key := func(p academic.Paper) []string {
		var k []string
		if p.DOI != "" {
			k = append(k, "doi:"+p.DOI)
		}
		if p.S2ID != "" {
			k = append(k, "s2:"+p.S2ID)
		}
		if p.OpenAlexID != "" {
			k = append(k, "oa:"+p.OpenAlexID)
		}
		return k
	}
	index := map[string]int{}
	for i, n := range neighbors {
		for _, k := range key(n.Paper) {
			index[k] = i
		}
	}
	for _, l := range links {
		ks := key(l.Paper)
		if len(ks) == 0 {
			continue
		}
		at := -1
		for _, k := range ks {
			if i, ok := index[k]; ok && neighbors[i].Reference == reference {
				at = i
				break
			}
		}
		if at < 0 {
			neighbors = append(neighbors, Neighbor{Paper: l.Paper, Reference: reference})
			at = len(neighbors) - 1
		} else {
			merged := Merge(&neighbors[at].Paper, &l.Paper)
			neighbors[at].Paper = *merged
		}
		n := &neighbors[at]
		n.Influential = n.Influential || l.Influential
		if !slices.Contains(n.Sources, l.Source) {
			n.Sources = append(n.Sources, l.Source)
			slices.Sort(n.Sources)
		}
		for _, k := range key(n.Paper) {
			index[k] = at
		}
	}
	return neighbors
}

// SearchDOIs returns the DOIs of up to limit papers matching a free-text
// query, Semantic Scholar's answers first, then OpenAlex's, each DOI once.
// An API that fails is left out when another answered.
func (r *Resolver) SearchDOIs(ctx context.Context, query string, limit int) ([]string, error) {
	if r == nil || (r.S2 == nil && r.OpenAlex == nil) {
		return nil, ErrNoSource
	}
	var lists [][]academic.Paper
	var errs []error
	if r.S2 != nil {
		ps, err := r.S2.Search(ctx, query, limit)
		lists, errs = append(lists, ps), append(errs, err)
	}
	if r.OpenAlex != nil {
		ps, err := r.OpenAlex.Search(ctx, query, limit)
		lists, errs = append(lists, ps), append(errs, err)
	}
	failed := 0
	for _, err := range errs {
		if err != nil {
			failed++
		}
	}
	if failed == len(errs) {
		return nil, fmt.Errorf("academic search %q: %w", query, errors.Join(errs...))
	}
	return MergeDOIs(limit, lists...), nil
}

// MergeDOIs returns the normalised DOIs of the papers, list by list, each
// once, at most limit; papers without a DOI are skipped.
func MergeDOIs(limit int, lists ...[]academic.Paper) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range lists {
		for _, p := range l {
			d := academic.NormalizeDOI(p.DOI)
			if d == "" || seen[d] {
				continue
			}
			seen[d] = true
			out = append(out, d)
			if len(out) == limit {
				return out
			}
		}
	}
	return out
}

// knownNothing turns "the API does not know this paper" into an answer with
// nothing in it: only failures to answer are errors.
func knownNothing(err error) error {
	if errors.Is(err, remoteerr.ErrNotFound) {
		return nil
	}
	return err
}
