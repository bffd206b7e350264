package belief

import "context"

type paramsKey struct{}

// WithParams returns a context carrying the process's belief numbers
// (EVF_BELIEF_*): the store's recomputations, which many callers reach,
// read them from the context they run in.
func WithParams(ctx context.Context, p Params) context.Context {
	return context.WithValue(ctx, paramsKey{}, p)
}

// ParamsFrom returns the numbers WithParams put on ctx, or DefaultParams.
func ParamsFrom(ctx context.Context) Params {
	if p, ok := ctx.Value(paramsKey{}).(Params); ok {
		return p
	}
	return DefaultParams()
}
