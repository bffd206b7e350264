// Package workers runs the job kinds of package jobs: one file per kind
// (target_queue.go, with target_query.go and target_doi.go for query and
// doi targets, embed.go, verify_nli.go with verify_shards.go, rerank.go,
// citation_graph.go, cleanup.go), one worker of each in a Set. Each worker
// is built by its constructor with only what it uses; it takes its args
// from the contract, does its I/O and pure work (internal/pageproc,
// internal/verifyplan), and writes with one store call in the transaction
// that completes the job (completeTx). A worker never tells River how a job
// ends: it returns an error, a typed failure (errs.Error: fail, wait) when
// it knows its row, and Middleware applies the error table (internal/errs)
// to every job's error in one place.
package workers
