package papers

import (
	"regexp"
	"strings"
)

// academicWords are words that mark a search for research literature.
var academicWords = regexp.MustCompile(`(?i)\b(study|studies|trial|trials|meta-analys[ie]s|systematic review|cohort|randomi[sz]ed|placebo|peer[- ]reviewed|journal|paper|papers|preprint|et al|doi|pubmed|arxiv|hypothesis|evidence|association between|effect of|efficacy|incidence|prevalence)\b`)

// LooksAcademic reports whether a search query asks for research
// literature, so the academic search APIs are asked too: a DOI or arXiv id
// in it, or a word such as "study", "trial", "meta-analysis", "cohort",
// "journal", "evidence", "effect of". A plain topic query ("polar bears")
// goes to the web search only.
func LooksAcademic(query string) bool {
	q := strings.TrimSpace(query)
	if q == "" {
		return false
	}
	if strings.Contains(q, "10.") && strings.Contains(q, "/") {
		return true
	}
	return academicWords.MatchString(q)
}
