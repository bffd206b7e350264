package store

// How a target was registered (targets.via, a CHECK of
// migrations/00019_target_origin.sql).
const (
	// ViaUser: a person or another service added the target (intake, the
	// CLI, a target_queue job inserted by River or SQL).
	ViaUser = "user"
	// ViaQuery: a result of one of the task's query targets
	// (targets.source_target_id).
	ViaQuery = "query"
)

// Retrieval contexts: how a page entered a task (task_pages.reason, a
// CHECK of migrations/00019_target_origin.sql), the evidence export's
// retrieval_context. In order of precedence: a page reached several ways
// keeps the first of these that reached it (AddTaskPage).
const (
	// ContextURLTarget: a url target a person or service added.
	ContextURLTarget = "url_target"
	// ContextDOITarget: a doi target a person or service added — the page
	// the DOI is known as, or the abstract page the academic APIs resolved
	// it to.
	ContextDOITarget = "doi_target"
	// ContextSearchQuery: a url or doi target one of the task's query
	// targets found (the web search's URLs, the academic search's DOIs).
	ContextSearchQuery = "search_query"
	// ContextCitation: a paper the citation graph of another page of the
	// task kept (task_pages.source_page_id).
	ContextCitation = "citation"
)

// RetrievalContexts are the retrieval contexts in order of precedence.
var RetrievalContexts = []string{ContextURLTarget, ContextDOITarget, ContextSearchQuery, ContextCitation}

// TargetContext is the retrieval context of a page a target of this kind
// (url, doi), registered via via, brought into its task.
func TargetContext(kind, via string) string {
	switch {
	case via == ViaQuery:
		return ContextSearchQuery
	case kind == "doi":
		return ContextDOITarget
	default:
		return ContextURLTarget
	}
}

// Source is the one source the page's retrieval context names: the target's
// value (url_target, doi_target), the query that found the target
// (search_query), or the URL of the page whose citation graph kept it
// (citation). nil when it is not recorded (a search_query backfilled from a
// task of several queries).
func (r TaskPageOriginsRow) Source() *string {
	switch r.RetrievalContext {
	case ContextSearchQuery:
		return r.Query
	case ContextCitation:
		return r.SourcePageUrl
	default:
		return r.TargetValue
	}
}
