package verification

import "context"

type quorumKey struct{}

// WithQuorum returns a context carrying the process's quorum
// (EVF_TRUST_QUORUM_ORGS): the store's recomputations, which many callers
// reach, read it from the context they run in.
func WithQuorum(ctx context.Context, orgs int) context.Context {
	return context.WithValue(ctx, quorumKey{}, orgs)
}

// QuorumFrom returns the quorum WithQuorum put on ctx, or DefaultQuorum.
func QuorumFrom(ctx context.Context) int {
	if n, ok := ctx.Value(quorumKey{}).(int); ok && n >= 1 {
		return n
	}
	return DefaultQuorum
}
