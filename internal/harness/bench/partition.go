package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// PartitionSection is verify_nli on an edges table hash-partitioned by
// target_id (the claim of an NLI edge) beside the plain table, in turns.
const PartitionSection = "partitions"

// edgePartitions is the number of hash partitions of the partitioned arm.
const edgePartitions = 16

// partitionedVerify loads the verify section's task into two scratch
// databases, turns one's edges into edgePartitions hash partitions
// (partitionEdges), and burns the task down on one process with the
// instant NLI (where the database's share of a claim is largest) on each,
// in turns.
func (h *harness) partitionedVerify(ctx context.Context) error {
	spec := taskSpec{Claims: h.opts.VerifyClaims, Fragments: h.opts.VerifyFragments,
		Related: max(1, h.opts.VerifyFragments/max(1, h.opts.VerifyClaims)), Domains: 40, FragsPerPage: 20, DomainPrefix: "v", Seed: 1}
	type arm struct {
		name string
		env  *synthEnv
		task synthTask
	}
	var arms []arm
	for _, name := range []string{"plain edges", fmt.Sprintf("edges in %d hash partitions by target_id", edgePartitions)} {
		env, err := h.synthEnv(ctx)
		if err != nil {
			return err
		}
		defer env.done()
		task, err := loadTask(ctx, env.pool, env.models.Embedder, env.sentences, spec)
		if err != nil {
			return err
		}
		arms = append(arms, arm{name: name, env: env, task: task})
	}
	begin := time.Now()
	if err := partitionEdges(ctx, arms[1].env.pool, edgePartitions); err != nil {
		return fmt.Errorf("partition edges: %w", err)
	}
	h.logf("partitions: edges split into %d partitions in %.1fs", edgePartitions, time.Since(begin).Seconds())
	sec := fmt.Sprintf("verify_nli on partitioned edges (%s, 1 process × %d workers, %d claims × %d fragments; the two in turns)",
		instantArm.name, h.opts.NLIWorkers, h.opts.VerifyClaims, h.opts.VerifyFragments)
	rates := make([][]float64, len(arms))
	dbPerClaim := make([][]float64, len(arms))
	var ratios []float64
	for rep := range h.opts.Reps {
		for i, a := range arms {
			r, err := h.runVerify(ctx, a.env.pool, a.env.url, a.task, 1, "fleet", instantArm)
			if err != nil {
				return fmt.Errorf("%s: %w", a.name, err)
			}
			rates[i] = append(rates[i], rate(r.claims, r.span))
			if r.dbCPUKnown {
				dbPerClaim[i] = append(dbPerClaim[i], r.dbCPU/float64(r.claims)*1e3)
			}
		}
		ratios = append(ratios, rates[1][rep]/rates[0][rep])
		h.logf("partitions rep %d: %.0f claims/s partitioned, %.0f plain", rep+1, rates[1][rep], rates[0][rep])
	}
	for i, a := range arms {
		h.add(sec, a.name+": claims verified", rates[i], "claims/s", "")
		if len(dbPerClaim[i]) > 0 {
			h.add(sec, a.name+": Postgres CPU per claim", dbPerClaim[i], "ms", "")
		}
	}
	h.add(sec, "partitioned ÷ plain, run by run", ratios, "ratio", "")
	return nil
}

// partitionEdges replaces the edges table of the database with one
// hash-partitioned by target_id in parts partitions, holding the same rows
// and indexes. Postgres requires every unique index of a partitioned table
// to hold the partition key: the NLI, origin and citation unique indexes
// already do, the primary key becomes (id, target_id), and the foreign keys
// that reference edges(id) (corrections, conflicts, verification) are
// dropped — the product would reference (id, target_id) instead. Postgres 15
// has no identity columns on partitioned tables: id takes its values from
// the old identity's sequence.
func partitionEdges(ctx context.Context, pool *pgxpool.Pool, parts int) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var fks, indexes []string
		rows, err := tx.Query(ctx, `SELECT format('ALTER TABLE %s DROP CONSTRAINT %I', conrelid::regclass, conname)
			FROM pg_constraint WHERE confrelid = 'edges'::regclass AND contype = 'f'`)
		if err != nil {
			return err
		}
		if fks, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			return err
		}
		rows, err = tx.Query(ctx, `SELECT indexdef FROM pg_indexes
			WHERE schemaname = current_schema() AND tablename = 'edges' AND indexname <> 'edges_pkey'`)
		if err != nil {
			return err
		}
		if indexes, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			return err
		}
		stmts := append(fks,
			`ALTER TABLE edges RENAME TO edges_plain`,
			`ALTER TABLE edges_plain RENAME CONSTRAINT edges_pkey TO edges_plain_pkey`)
		for _, name := range []string{"idx_edges_nli_unique", "idx_edges_origin_unique", "idx_edges_cites_unique", "idx_edges_target", "idx_edges_source"} {
			stmts = append(stmts, `DROP INDEX IF EXISTS `+name)
		}
		stmts = append(stmts,
			`CREATE TABLE edges (LIKE edges_plain INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY HASH (target_id)`,
			`ALTER TABLE edges ALTER COLUMN id SET DEFAULT nextval(pg_get_serial_sequence('edges_plain', 'id'))`,
			`ALTER TABLE edges ADD PRIMARY KEY (id, target_id)`)
		for i := range parts {
			stmts = append(stmts, fmt.Sprintf(`CREATE TABLE edges_p%02d PARTITION OF edges FOR VALUES WITH (MODULUS %d, REMAINDER %d)`, i, parts, i))
		}
		stmts = append(stmts, indexes...)
		stmts = append(stmts, `INSERT INTO edges SELECT * FROM edges_plain`, `TRUNCATE edges_plain`)
		for _, s := range stmts {
			if _, err := tx.Exec(ctx, s); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		return nil
	})
}
