// Package workers runs the job kinds of package jobs: one file per kind
// (target_queue.go, embed.go, verify_nli.go, rerank.go, citation_graph.go,
// cleanup.go), registered by AddWorkers. Each worker takes its args from the
// contract, does its I/O, and writes through the store in the transaction
// that completes the job.
package workers
