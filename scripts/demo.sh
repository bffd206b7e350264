#!/usr/bin/env bash
# The `make run` demo: migrate, start a worker on the bundled replay corpus,
# create a task with real Climate-FEVER claims as hypotheses, add every page
# of the corpus as a target, wait with a progress bar, print the report and
# the reading lists, stop the worker, and print what to try next on the task.
# Needs DATABASE_URL (scripts/with-postgres.sh provides one; `make run` has it
# keep the database for `make explore`).
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${CORPUS:-testdata/replay/demo}
NL=$'\n'
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
REPORT=$(bin/enqueue report --task "$TASK")
printf '%s\n' "$REPORT"

# The reading list: the task's fragments ranked for its hypothesis (rerank:
# full-text → embeddings → built-in BM25 reranker), each score weighted by
# its domain's trust level. The hypothesis is answered by Wikipedia pages
# only; a second list, for a query that the academic abstracts and Wikipedia
# both answer, puts ACADEMIC and LOW weights side by side.
QUERY="peer-reviewed journal articles"
bin/enqueue job --kind rerank --args "{\"task_id\": $TASK, \"top_k\": 5}" >/dev/null
bin/enqueue job --kind rerank --args "{\"task_id\": $TASK, \"query\": \"$QUERY\", \"top_k\": 5}" >/dev/null
bin/enqueue status --task "$TASK" --wait --timeout 2m >/dev/null
echo
READING=$(bin/enqueue materials --task "$TASK")
printf '%s\n' "$READING"
echo
READING2=$(bin/enqueue materials --task "$TASK" --query "$QUERY")
printf '%s\n' "$READING2"

# What the run shows about trust levels, read off the outputs above; the
# demo fails when one of these does not hold.
source_row() { awk -v d="$1" '$1 == d' <<<"$REPORT"; }
WIKI=$(source_row en.wikipedia.org)
WEIGHTS=$(grep -oE '^ +[0-9]+\. +[0-9.]+ +[A-Z]+ ×[0-9.]+' <<<"$READING$NL$READING2" | awk '{print $3, $4}' | sort -u | paste -sd, - | sed 's/,/, /g')
echo
echo "Trust levels in this run:"
grep '^NLI edges by source level:' <<<"$REPORT" | sed 's/^/  /'
describe() { awk '{d = $1; l = $2; sub(/^ *[^ ]+ +[^ ]+ +/, ""); gsub(/  +/, ", "); printf "%s %s (%s)", d, l, $0}' <<<"$1"; }
echo "  Wikipedia: $(describe "$WIKI")"
for d in openalex.org semanticscholar.org; do echo "  academic page: $(describe "$(source_row "$d")")"; done
grep '^blocked domains:' <<<"$REPORT" | sed 's/^/  /'
echo "  reading-list weights by level: $WEIGHTS"
fail() { echo "make run: $*" >&2; exit 1; }
[[ $WIKI =~ ^\ *en\.wikipedia\.org\ +LOW\  ]] || fail "Wikipedia's level of record is not LOW: $WIKI"
[[ $WIKI =~ NLI\ edges:\ LOW=[0-9]+$ ]] || fail "edges from Wikipedia carry another level than LOW: $WIKI"
for d in openalex.org semanticscholar.org; do
  [[ $(source_row "$d") =~ ^\ *"$d"\ +ACADEMIC\  ]] || fail "the academic page of $d is not ACADEMIC: $(source_row "$d")"
done
grep -q '^blocked domains: none$' <<<"$REPORT" || fail "a domain is blocked: $(grep '^blocked domains' <<<"$REPORT")"
[[ $WEIGHTS == *"ACADEMIC ×0.90"* && $WEIGHTS == *"LOW ×0.40"* ]] || fail "the reading lists do not weigh ACADEMIC and LOW apart: $WEIGHTS"

# What to try next, on this task.
echo
if [ "${WITH_POSTGRES_KEPT:-}" = 1 ]; then
  echo "The demo's database is kept in ${WITH_POSTGRES_DATA#"$PWD"/} (the next make run replaces it). Open it with"
  echo "  make explore        # a shell on it: DATABASE_URL set, bin/ on PATH; leaving the shell stops its server"
  echo "and try:"
elif [ -n "${WITH_POSTGRES_DATA:-}" ]; then
  echo "This database is deleted now; make run keeps it (make explore reopens it). There, try:"
else
  echo "Task $TASK stays in your database (DATABASE_URL). Try:"
fi
cat <<NEXT
  bin/enqueue task list
  bin/enqueue task show --task $TASK
  bin/enqueue job list --task $TASK --limit 10
  bin/enqueue evidence list --task $TASK --limit 5
  bin/enqueue report --task $TASK --all
  bin/enqueue evidence --task $TASK > task-$TASK.jsonl   # the evidence export
NEXT
if [ "${WITH_POSTGRES_KEPT:-}" = 1 ]; then
  echo "or one at a time: make explore CMD='bin/enqueue task show --task $TASK'"
fi
