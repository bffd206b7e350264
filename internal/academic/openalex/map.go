package openalex

import (
	"fmt"
	"sort"
	"strings"

	"github.com/evidencefleet/evidencefleet/internal/academic"
)

// workJSON is an OpenAlex work (the fields this package reads; any may be
// absent or null).
type workJSON struct {
	ID              string `json:"id"`
	DOI             string `json:"doi"`
	Title           string `json:"title"`
	DisplayName     string `json:"display_name"`
	PublicationYear int    `json:"publication_year"`
	PublicationDate string `json:"publication_date"`
	IDs             struct {
		PMID string `json:"pmid"`
	} `json:"ids"`
	PrimaryLocation *struct {
		Source *struct {
			DisplayName string `json:"display_name"`
		} `json:"source"`
	} `json:"primary_location"`
	HostVenue *struct { // the pre-2023 API's venue
		DisplayName string `json:"display_name"`
	} `json:"host_venue"`
	Authorships []struct {
		Author struct {
			DisplayName string `json:"display_name"`
		} `json:"author"`
	} `json:"authorships"`
	CitedByCount          int              `json:"cited_by_count"`
	ReferencedWorksCount  *int             `json:"referenced_works_count"`
	ReferencedWorks       []string         `json:"referenced_works"`
	AbstractInvertedIndex map[string][]int `json:"abstract_inverted_index"`
}

// listJSON is one page of a /works list answer.
type listJSON struct {
	Meta struct {
		Count      int     `json:"count"`
		NextCursor *string `json:"next_cursor"`
		Page       *int    `json:"page"`
		PerPage    int     `json:"per_page"`
	} `json:"meta"`
	Results []workJSON `json:"results"`
}

// RebuildAbstract turns an OpenAlex abstract_inverted_index (word → the
// 0-based positions where it occurs) back into the abstract: the words in
// position order joined by single spaces. Negative positions are dropped,
// missing positions skipped, and two words at one position (which OpenAlex
// does not produce) kept in lexical order. A nil or empty index gives "".
func RebuildAbstract(inv map[string][]int) string {
	type at struct {
		pos  int
		word string
	}
	var all []at
	for w, ps := range inv {
		for _, p := range ps {
			if p >= 0 {
				all = append(all, at{p, w})
			}
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].pos != all[j].pos {
			return all[i].pos < all[j].pos
		}
		return all[i].word < all[j].word
	})
	var b strings.Builder
	for i, a := range all {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a.word)
	}
	return b.String()
}

// idPrefixes are stripped from OpenAlex ids, case-insensitively.
var idPrefixes = []string{
	"https://openalex.org/", "http://openalex.org/", "https://api.openalex.org/works/",
	"https://api.openalex.org/", "openalex.org/", "openalex:",
}

// WorkID returns the short OpenAlex work id ("W2741809807") of id, which may
// be short, lower case or a URL ("https://openalex.org/W2741809807").
func WorkID(id string) (string, error) {
	s := strings.TrimSpace(id)
	for _, p := range idPrefixes {
		if len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
			s = s[len(p):]
			break
		}
	}
	if len(s) < 2 || (s[0] != 'W' && s[0] != 'w') {
		return "", fmt.Errorf("%s: %q is not an OpenAlex work id (W followed by digits)", API, id)
	}
	for _, r := range s[1:] {
		if r < '0' || r > '9' {
			return "", fmt.Errorf("%s: %q is not an OpenAlex work id (W followed by digits)", API, id)
		}
	}
	return "W" + s[1:], nil
}

// toPaper maps an OpenAlex work to the common model.
func toPaper(w *workJSON) academic.Paper {
	out := academic.Paper{
		Title:           strings.TrimSpace(w.Title),
		Year:            w.PublicationYear,
		DOI:             academic.NormalizeDOI(w.DOI),
		PMID:            academic.NormalizePMID(w.IDs.PMID),
		Abstract:        RebuildAbstract(w.AbstractInvertedIndex),
		PublicationDate: w.PublicationDate,
		URL:             w.ID,
		CitationCount:   w.CitedByCount,
		Source:          academic.SourceOpenAlex,
	}
	if id, err := WorkID(w.ID); err == nil {
		out.OpenAlexID = id
	}
	if out.Title == "" {
		out.Title = strings.TrimSpace(w.DisplayName)
	}
	if w.PrimaryLocation != nil && w.PrimaryLocation.Source != nil {
		out.Venue = strings.TrimSpace(w.PrimaryLocation.Source.DisplayName)
	}
	if out.Venue == "" && w.HostVenue != nil {
		out.Venue = strings.TrimSpace(w.HostVenue.DisplayName)
	}
	for _, a := range w.Authorships {
		if n := strings.TrimSpace(a.Author.DisplayName); n != "" {
			out.Authors = append(out.Authors, n)
		}
	}
	for _, r := range w.ReferencedWorks {
		if id, err := WorkID(r); err == nil {
			out.References = append(out.References, id)
		}
	}
	out.ReferenceCount = len(out.References)
	if w.ReferencedWorksCount != nil {
		out.ReferenceCount = *w.ReferencedWorksCount
	}
	return out
}
