// Package workers runs the job kinds of package jobs: one file per kind
// (target_queue.go, with target_query.go for a query target, embed.go,
// verify_nli.go, rerank.go, citation_graph.go, cleanup.go), registered by
// AddWorkers. Each worker is a struct of the dependencies it uses; it takes
// its args from the contract, does its I/O and pure work, and writes with
// one store call in the transaction that completes the job (completeTx).
// Middleware() cancels jobs with refused args or a permanent error
// (internal/errs) in one place.
package workers
