# evidencefleet — see README.md. `make run` and `make test` work on a fresh
# machine: without DATABASE_URL they start a throwaway Postgres under .data/.
GO      ?= go
BIN     := bin
PKGS    := ./...

.PHONY: screenshots run api explore test build lint fmt vet staticcheck generate corpus clean eval extract-eval train-nli bench microbench dashcheck helm chaos apilint axe warcio

# The demo keeps its database (.data/demo; each run replaces the last one's)
# and ends with commands to try on it through `make explore`: a shell with
# DATABASE_URL pointing at it and bin/ on PATH (its server stops when the
# shell ends), or CMD='bin/enqueue task list' to run one command. With
# DATABASE_URL set both use that server instead.
run: build
	WITH_POSTGRES_KEEP=demo WITH_POSTGRES_NEW=1 scripts/with-postgres.sh scripts/demo.sh

# The HTTP API (worker api: /v1, /mcp, /riverui/, the console at /ui/) on the demo's database at
# 127.0.0.1:8080 (API_ADDR to change it) until interrupted.
API_ADDR ?= 127.0.0.1:8080
api: build
	@if [ -z "$$DATABASE_URL" ] && [ ! -e .data/demo ]; then echo "make api: no demo database in .data/demo yet: make run keeps one" >&2; exit 1; fi
	WITH_POSTGRES_KEEP=demo EVF_API_ADDR=$(API_ADDR) EVF_API_METRICS_ADDR=127.0.0.1:0 EVF_LOG_FORMAT=text scripts/with-postgres.sh $(BIN)/worker api

explore: build
	@if [ -z "$$DATABASE_URL" ] && [ ! -e .data/demo ]; then echo "make explore: no demo database in .data/demo yet: make run keeps one" >&2; exit 1; fi
	WITH_POSTGRES_KEEP=demo scripts/with-postgres.sh sh -c 'if [ -n "$$CMD" ]; then exec sh -c "$$CMD"; fi; echo "explore: DATABASE_URL=$$DATABASE_URL; bin/ is on PATH (enqueue task list); exit leaves and stops the server" >&2; PATH="$(CURDIR)/$(BIN):$$PATH" exec "$${SHELL:-sh}"'

# The suite includes the dashboard check against a real Prometheus
# (internal/harness/dashboardcheck) when prometheus and promtool are on PATH,
# and the chart tests (internal/harness/chartcheck) when bin/helm or helm
# exists (`make helm`); each is skipped otherwise. `make dashcheck` runs the first alone and fails
# without its tools. go test runs with -json through testsummary
# (internal/harness/cmd/testsummary), which prints go test's usual output,
# then every test the run skipped with the reason its t.Skip gave, and exits
# with go test's own status.
#
# A heap measurement or a volume check of code that runs on one goroutine
# calls hostiletest.SkipUnderRace: the race detector has nothing to find in
# it, multiplies its CPU time five to twelve times and changes the heap it
# measures. So the packages of $(PKGS) with such a test (NORACE_PKGS, found
# by that call in their test files) run a second time without -race, where
# those checks run and fail.
NORACE_PKGS = $(patsubst $(CURDIR)/%,./%,$(sort $(dir $(shell grep -l 'hostiletest\.SkipUnderRace' /dev/null $$($(GO) list -f '{{$$d := .Dir}}{{range .TestGoFiles}}{{$$d}}/{{.}} {{end}}{{range .XTestGoFiles}}{{$$d}}/{{.}} {{end}}' $(PKGS))))))
# go test runs one package more at once than there are cores (TEST_P; go
# test's default is the number of cores): its slots both link test binaries
# and run them, and the longest packages mostly wait on worker processes and
# Postgres. It starts them in the order given: the longest first
# (SLOW_PKGS), so that the many short ones fill the time around them rather
# than leaving one long package alone at the end. The race detector sleeps a
# second at every process exit by default, for goroutines still running to
# report (GORACE atexit_sleep_ms): the tests end what they start, and the
# suite's 80 test binaries and dozens of worker processes would sleep
# minutes. The run without -race goes beside the race run, its output
# printed after it.
SLOW_PKGS := ./internal/fleet ./internal/api ./internal/workers ./cmd/enqueue ./internal/harness/eval ./internal/harness/cmd/eval ./store
TEST_PKGS = $(if $(filter ./...,$(PKGS)),$(SLOW_PKGS) $(filter-out $(SLOW_PKGS),$(patsubst $(shell $(GO) list -m)/%,./%,$(shell $(GO) list $(PKGS)))),$(PKGS))
TEST_P ?= $(shell echo $$(( $$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1) + 1 )))
test:
	@if ! command -v npm >/dev/null; then echo "make test: npm not found; the accessibility checks will skip"; \
	elif ! $(MAKE) --no-print-directory axe; then echo "make test: make axe failed; the accessibility checks will skip"; fi
	@if ! command -v npm >/dev/null; then echo "make test: npm not found; the WARC checks will skip"; \
	elif ! $(MAKE) --no-print-directory warcio; then echo "make test: make warcio failed; the WARC checks will skip"; fi
	$(GO) build -o $(BIN)/testsummary ./internal/harness/cmd/testsummary
	GORACE="$${GORACE:-atexit_sleep_ms=0}" scripts/with-postgres.sh sh -c '\
	  $(if $(NORACE_PKGS),$(BIN)/testsummary $(GO) test -json -count=1 $(NORACE_PKGS) > $(BIN)/test-norace.log 2>&1 & norace=$$!;) \
	  $(BIN)/testsummary $(GO) test -json -race -count=1 -p $(TEST_P) $(TEST_PKGS); status=$$?; \
	  $(if $(NORACE_PKGS),wait $$norace || status=1; echo "make test: without -race (beside the run above): $(NORACE_PKGS)"; cat $(BIN)/test-norace.log;) \
	  exit $$status'

# The console's pictures in docs/screenshots (the README shows them): the
# browser test of internal/console over the glacier task, writing them as it
# goes (task list, task, claim click-through, source review, audit list).
screenshots:
	$(MAKE) --no-print-directory axe
	EVF_SCREENSHOTS_DIR=$(CURDIR)/docs/screenshots EVF_REQUIRE_CHROMIUM=1 scripts/with-postgres.sh $(GO) test -count=1 -run TestConsoleInBrowser ./internal/console

# helm for the chart tests (internal/harness/chartcheck), built from the Go
# module proxy.
HELM_VERSION ?= v3.22.0
helm: $(BIN)/helm
$(BIN)/helm:
	GOBIN=$(CURDIR)/$(BIN) $(GO) install helm.sh/helm/v3/cmd/helm@$(HELM_VERSION)

# The chart's values table (deploy/helm/evidencefleet/README.md, from
# README.md.gotmpl and the `# --` comments of its values.yaml) by helm-docs,
# built from the Go module proxy. The chart tests fail when it is stale.
.PHONY: helm-docs
HELM_DOCS_VERSION ?= v1.14.2
HELM_DOCS_CHART ?= deploy/helm/evidencefleet
helm-docs:
	$(GO) run github.com/norwoodj/helm-docs/cmd/helm-docs@$(HELM_DOCS_VERSION) --chart-search-root $(HELM_DOCS_CHART) --sort-values-order file --log-level warning

# The configuration reference of docs/configuration.md, generated from the
# env struct of internal/config (the table between its configdoc markers;
# the prose around it is kept). A test fails when it is stale.
.PHONY: configdoc
configdoc:
	$(GO) run ./internal/harness/cmd/configdoc -file docs/configuration.md

# The API's OpenAPI document against Redocly's recommended rules and
# swagger-cli's validation (npm packages pinned in scripts/apilint).
apilint:
	$(GO) run ./cmd/worker api openapi > scripts/apilint/openapi.json
	cd scripts/apilint && npm ci --silent --no-audit --no-fund && npx redocly lint openapi.json --config redocly.yaml && npx swagger-cli validate openapi.json

# axe-core for the browser tests' accessibility checks
# (internal/harness/browser reads scripts/axe/node_modules/axe-core/axe.min.js;
# the npm package is pinned in scripts/axe). make test runs it when npm exists;
# without the file those checks skip, or fail with EVF_REQUIRE_CHROMIUM set.
axe:
	cd scripts/axe && npm ci --silent --no-audit --no-fund

# warcio.js for the tests' independent WARC and CDXJ checks
# (internal/harness/warccheck runs node scripts/warcio/check.mjs; the npm
# package is pinned in scripts/warcio). make test runs it when npm exists;
# without it those checks skip, or fail with EVF_REQUIRE_DOC_TOOLS set.
warcio:
	cd scripts/warcio && npm ci --silent --no-audit --no-fund

dashcheck:
	EVF_REQUIRE_PROMETHEUS=1 scripts/with-postgres.sh $(GO) test -count=1 -run TestDashboard -v ./internal/harness/dashboardcheck/

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
build:
	$(GO) build -ldflags "-X github.com/evidencefleet/evidencefleet/internal/version.Version=$(VERSION)" -o $(BIN)/worker ./cmd/worker
	$(GO) build -ldflags "-X github.com/evidencefleet/evidencefleet/internal/version.Version=$(VERSION)" -o $(BIN)/enqueue ./cmd/enqueue

lint: fmt vet staticcheck

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "not gofmt-formatted:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

staticcheck:
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 $(PKGS)

# Regenerates the sqlc query code: an installed sqlc, else the pinned one
# through the Go toolchain (the version the generated files name).
SQLC ?= $(shell command -v sqlc 2>/dev/null || echo "$(GO) run github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1")
generate:
	$(SQLC) generate

corpus:
	$(GO) run ./internal/harness/cmd/mkcorpus -in testdata/climate-fever/climate-fever-dev.jsonl -out testdata/replay/demo -claims 12 -with-academic

clean:
	if [ -L .data/demo ]; then rm -rf "$$(readlink .data/demo)"; fi
	rm -rf $(BIN) .data

# Measures the configured models (EVF_* as for the worker) and the whole fleet
# on real labelled data bundled in testdata/: NLI pairs (NLI_DATA, default the
# report part testdata/nli/report) and Climate-FEVER end to end (CLAIMS,
# default testdata/climate-fever/climate-fever-dev.jsonl)
# in a scratch database. EVAL_FLAGS passes more flags, e.g. -json or -limit 20.
# The fleet under failure: 3 worker processes, 30 SIGKILLs, one immediate
# Postgres restart, compared with a clean run. CHAOS_FLAGS=-short for CI.
# The restart is a crash, so its server commits synchronously: the throwaway
# server's asynchronous commit (a speed setting) would lose, in a crash,
# commits the fleet was already told of, which Postgres at its defaults
# never does and the fleet's guarantees assume it does not.
chaos: build
	WITH_POSTGRES_OPTS="-c synchronous_commit=on" scripts/with-postgres.sh $(GO) run ./internal/harness/cmd/chaos -worker $(BIN)/worker $(CHAOS_FLAGS)

eval:
	scripts/with-postgres.sh $(GO) run ./internal/harness/cmd/eval $(if $(CLAIMS),-claims $(CLAIMS)) $(if $(NLI_DATA),-nli-data $(NLI_DATA)) $(EVAL_FLAGS)

# The learned built-in NLI's weights (internal/nlimodel/weights.bin) from the
# training pairs in testdata/nli-train, bit for bit (CI checks that the
# committed file is what this writes). About 30 s.
train-nli:
	$(GO) run ./internal/harness/cmd/trainnli $(TRAIN_NLI_FLAGS)

# Main-text extraction on the development sets in testdata/extract-dev
# (Mozilla Readability's test pages, trafilatura's evaluation pages): the
# fleet beside readability used plainly and go-trafilatura, no database.
# EXTRACT_EVAL_FLAGS passes more flags, e.g. -json or -worst 30.
extract-eval:
	$(GO) run ./internal/harness/cmd/extracteval $(EXTRACT_EVAL_FLAGS)

# Throughput and scaling against River's own no-op baseline, in one run on a
# throwaway Postgres (see docs/performance.md). BENCH_FLAGS=-quick for a run
# of a few minutes; the default sizes are docs/performance.md's full run.
bench:
	$(GO) build -o $(BIN)/fleetbench ./internal/harness/cmd/fleetbench
	scripts/with-postgres.sh $(BIN)/fleetbench $(BENCH_FLAGS)

# Go benchmarks of the pure hot code (embedder, NLI, cosine top-k,
# segmentation and fragmenting, pair selection, posterior, rank scoring).
microbench:
	$(GO) test -run '^$$' -bench . -benchmem ./internal/models/ ./internal/models/builtin/ ./internal/extract/ ./internal/sentence/ ./internal/evidence/ ./internal/rank/ ./internal/taskindex/ ./store/
