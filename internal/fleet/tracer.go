package fleet

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/evidencefleet/evidencefleet/internal/metrics"
)

// roundTripTracer counts what the pool sends to Postgres
// (evidencefleet_db_round_trips_total): a statement, a batch (one round
// trip however many statements) or a COPY. It adds an atomic increment per
// round trip and nothing else.
type roundTripTracer struct{ m *metrics.Metrics }

var (
	_ pgx.QueryTracer    = roundTripTracer{}
	_ pgx.BatchTracer    = roundTripTracer{}
	_ pgx.CopyFromTracer = roundTripTracer{}
)

func (t roundTripTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	t.m.DBRoundTrip("query") // BEGIN and COMMIT included
	return ctx
}

func (roundTripTracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (t roundTripTracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	t.m.DBRoundTrip("batch") // its statements are not traced as queries
	return ctx
}

func (roundTripTracer) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

func (roundTripTracer) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

func (t roundTripTracer) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceCopyFromStartData) context.Context {
	t.m.DBRoundTrip("copy")
	return ctx
}

func (roundTripTracer) TraceCopyFromEnd(context.Context, *pgx.Conn, pgx.TraceCopyFromEndData) {}
