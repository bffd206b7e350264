package console

import "net/http"

// entry is one glossary term: a one-line Short (every link's tooltip) and
// the Long explanation of the glossary page.
type entry struct {
	Term, Name, Short, Long string
}

// glossaryOrder is the glossary page's order; glossary holds the entries.
var glossaryOrder = []entry{
	{"e-number", "E-number", "A claim's number within its task (E1 is the hypothesis).",
		"A claim's number within its task, given in order, never reused. E1 is the task's hypothesis. A text cites claims by it: [E1], [E1,E5]; the citation check below a task's claims reads such a text."},
	{"verdict", "verdict", "What the evidence says of the claim: the first rule that holds.",
		"contested (controversy over 0.3), well_supported (confidence at least 0.75), supported (at least 0.6), likely_false (at most 0.4), else unverified (too little evidence either way)."},
	{"confidence", "confidence (posterior)", "The posterior's mean α/(α+β): 0.5 with no evidence.",
		"The claim's Beta posterior over \"the claim is true\", from a uniform prior: α = 1 + the sum of its supports' NLI confidences, β = 1 + the sum of its refutes'. Confidence is its mean α/(α+β), 0.5 with no evidence."},
	{"uncertainty", "uncertainty", "The posterior's standard deviation: 0.289 with no evidence, smaller as evidence comes in.",
		"The standard deviation of the claim's Beta posterior: 0.289 with no evidence, smaller as evidence comes in."},
	{"controversy", "controversy", "0 when the evidence all points one way, 0.5 when it is split evenly.",
		"min(α − 1, β − 1) / (α + β − 2): 0 when the evidence all points one way, 0.5 when supports and refutes weigh the same."},
	{"belief", "belief", "A second reading of the same edges as a probability (log-odds), beside the posterior.",
		"A second reading of the claim's edges, beside the posterior, never instead of it: each supports (refutes) edge adds (takes away) up to 2 in log-odds, scaled by its NLI confidence and by how close the passage is to the claim; shown as a probability. \"After links\" adds in the beliefs of the claims it depends on."},
	{"verification", "verification", "Source verification: verified once 2 independent sites confidently support it.",
		"From confident edges only (NLI confidence at least 0.7) from other sites than the claim's own page's, never BLOCKED ones: verified once 2 independent sites support it, rejected when a site of a high level (PRIMARY, GOVERNMENT, ACADEMIC) confidently refutes a claim from a lower one, else pending. A reviewer's reject or restore stands over the rules."},
	{"adoption", "adoption", "Whether the evidence of record adopts the claim (follows verification).",
		"adopted when verified, not_adopted when rejected, pending otherwise."},
	{"level", "trust level", "How far a site is trusted: PRIMARY, GOVERNMENT, ACADEMIC, TRUSTED, LOW, UNVERIFIED, or BLOCKED.",
		"Best first: PRIMARY (the primary source of what it says), GOVERNMENT, ACADEMIC, TRUSTED (curated knowledge bases), LOW (open wikis), UNVERIFIED (nobody vouched for it: the default), BLOCKED (never fetched, never judged). Your organization's view may set its own level for a domain over the fleet's; levels weigh reading lists and verification, never a claim's posterior."},
	{"edges", "supports / refutes / neutral", "The claim's NLI edges by relation: passages of other pages judged against it.",
		"An NLI edge is one passage (a fragment of a page version) judged against the claim by the NLI model: supports, refutes or neutral, with a confidence in [0, 1]. A supports or refutes below 0.6 is stored as neutral."},
	{"nli-confidence", "NLI confidence", "How sure the NLI model was of the edge's relation, in [0, 1].",
		"The NLI model's confidence in the edge's relation, in [0, 1]. The built-in model is a deterministic baseline, far below trained models: read its numbers as a demonstration."},
	{"span", "span", "The exact characters [start, end) of one page version that a quote is.",
		"Where a quote is, exactly: characters (not bytes) start up to, not including, end of one page version's stored text. The console highlights exactly that substring in the version that was cited, not the page's newest."},
	{"page-version", "page version", "One fetch's extracted text of a page; it never changes.",
		"One fetch's extracted main text of a page; it never changes. A page fetched again with other text gets a new version; evidence keeps pointing at the version it was taken from."},
	{"recheck", "recheck", "The cited page fetched again: are the span's words still there?",
		"The fleet fetches each page a task cites again (weekly by default) and says of every cited span: unchanged (its words still stand in the page), edited (they no longer do; the page's new text around where they stood is shown), moved (the page redirects for good elsewhere), gone (404 or 410) or unreachable. A changed page is kept as a new version; the cited version is never replaced."},
	{"progress", "progress", "The task's finished jobs out of all its jobs so far.",
		"Finished jobs (completed, cancelled or discarded) out of every job the task has had so far; new pages bring new jobs, so it can go back."},
	{"cost", "cost so far", "What the task's jobs spent outside the fleet: model calls, searches, fetches.",
		"Calls to model servers and their tokens, web searches, academic API calls, page fetches and the bytes fetched, by every attempt of the task's jobs. Built-in models cost no calls."},
	{"block", "block", "A BLOCKED domain's pages are never fetched nor judged; its claims are set aside.",
		"A blocked domain is never fetched nor judged. Source verification blocks a domain whose claims are refuted too often; a reviewer may block or unblock it in the organization's view. The fleet's own blocks are lifted by an operator."},
	{"unblock-risk", "unblock risk", "How careful to be in lifting the block: low, medium or high, from why it was made.",
		"low: a person blocked it, and an unblock gives back the level it had; medium: higher-level sources refuted many of its claims, and its pages return to candidate sets and rankings; high: its pages tried to instruct a model, or the domain policy denies it (an operator's policy file, not a reviewer's unblock)."},
	{"rejected-claims", "rejected / total claims", "Of the organization's claims from the domain, how many were rejected.",
		"Of the organization's claims extracted from the domain's pages, how many source verification or a reviewer rejected; the share drives the automatic block."},
}

var glossary = func() map[string]entry {
	m := make(map[string]entry, len(glossaryOrder))
	for _, e := range glossaryOrder {
		m[e.Term] = e
	}
	return m
}()

func (c *console) glossaryPage(w http.ResponseWriter, r *http.Request, p *person) {
	c.render(w, r, p, http.StatusOK, "glossary", "Glossary", glossaryOrder)
}
