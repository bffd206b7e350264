#!/usr/bin/env bash
# The `make run` demo: migrate, start a worker on the bundled replay corpus,
# create a task with real Climate-FEVER claims as hypotheses, add every page
# of the corpus as a target, wait with a progress bar, print the report, and
# stop the worker. Needs DATABASE_URL (scripts/with-postgres.sh provides one).
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${CORPUS:-testdata/replay/demo}
: "${DATABASE_URL:?DATABASE_URL must be set (run through scripts/with-postgres.sh)}"

EVF_LOG_LEVEL=warn bin/worker migrate >/dev/null

WORKER_LOG=$(mktemp)
EVF_REPLAY_DIR="$CORPUS" EVF_METRICS_ADDR=127.0.0.1:0 EVF_LOG_FORMAT=text EVF_LOG_LEVEL=warn \
  bin/worker 2>"$WORKER_LOG" &
WORKER=$!
stop_worker() {
  if kill -0 "$WORKER" 2>/dev/null; then
    kill -TERM "$WORKER" 2>/dev/null || true
    wait "$WORKER" 2>/dev/null || true
  fi
  rm -f "$WORKER_LOG"
}
trap stop_worker EXIT

# The task's own hypothesis (E1) is the demo user's question; the real
# Climate-FEVER claims of the corpus are added as further hypothesis claims.
HYPOTHESIS=${HYPOTHESIS:-"Sea level rise is accelerating."}
TASK=$(bin/enqueue task create --hypothesis "$HYPOTHESIS")
bin/enqueue claim add --task "$TASK" --file "$CORPUS/claims.jsonl" >/dev/null
URLS=$(mktemp)
sed -n 's/.*"url": *"\([^"]*\)".*/\1/p' "$CORPUS/manifest.jsonl" | grep -v '/robots\.txt$' >"$URLS"
bin/enqueue target add --task "$TASK" --file "$URLS"
rm -f "$URLS"

echo "worker running (built-in deterministic baseline models; replayed corpus $CORPUS); waiting for task $TASK"
if ! bin/enqueue status --task "$TASK" --wait --timeout 10m >/dev/null; then
  echo "the task did not finish cleanly:" >&2
  bin/enqueue status --task "$TASK" >&2 || true
  tail -n 50 "$WORKER_LOG" >&2 || true
  exit 1
fi
bin/enqueue status --task "$TASK"
echo
bin/enqueue report --task "$TASK"

# The reading list: the task's fragments ranked for its hypothesis (rerank:
# full-text → embeddings → built-in BM25 reranker).
bin/enqueue job --kind rerank --args "{\"task_id\": $TASK, \"top_k\": 5}" >/dev/null
bin/enqueue status --task "$TASK" --wait --timeout 2m >/dev/null
echo
bin/enqueue materials --task "$TASK"
