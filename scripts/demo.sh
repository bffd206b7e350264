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
fail() { echo "make run: $*" >&2; exit 1; }

EVF_LOG_LEVEL=warn bin/worker migrate >/dev/null

WORKER_LOG=$(mktemp)
EVF_REPLAY_DIR="$CORPUS" EVF_METRICS_ADDR=127.0.0.1:0 EVF_LOG_FORMAT=text EVF_LOG_LEVEL=warn \
  bin/worker 2>"$WORKER_LOG" &
WORKER=$!
API=""
API_LOG=$(mktemp)
stop_worker() {
  for p in "$WORKER" $API; do
    if kill -0 "$p" 2>/dev/null; then
      kill -TERM "$p" 2>/dev/null || true
      wait "$p" 2>/dev/null || true
    fi
  done
  rm -f "$WORKER_LOG" "$API_LOG"
}
trap stop_worker EXIT

# The task's own hypothesis (E1) is the demo user's question; the real
# Climate-FEVER claims of the corpus are added as further hypothesis claims.
HYPOTHESIS=${HYPOTHESIS:-"Sea level rise is accelerating."}
TASK=$(bin/enqueue task create --hypothesis "$HYPOTHESIS")
bin/enqueue claim add --task "$TASK" --file "$CORPUS/claims.jsonl" >/dev/null
# The archive's pages (archive.warc.gz) as url targets (targets.txt). One
# search query too: the worker has no EVF_SEARCH_URL, so it searches the
# replay archive (offline BM25; its results are pages the task already has).
bin/enqueue target add --task "$TASK" --file "$CORPUS/targets.txt" --query "$HYPOTHESIS"

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

# The task's evidence as a web archive: every page version it cites, as the
# HTTP response it was captured in (WARC, ISO 28500), with its CDXJ index.
mkdir -p .data
WARC=.data/task-$TASK.warc.gz
bin/enqueue export warc --task "$TASK" --out "$WARC" >/dev/null
[ -s "$WARC" ] || fail "the task's WARC export is empty"
echo
echo "The task's evidence as WARC: $WARC ($(wc -c <"$WARC") bytes; index ${WARC%.warc.gz}.cdxj) — open it in ReplayWeb.page or pywb (docs/getting-started.md#the-evidence-as-a-web-archive)"

# Its cited pages checked again now (the fleet does it weekly): from the
# replay archive nothing has changed, so every citation is unchanged.
bin/enqueue task recheck --task "$TASK" >/dev/null
bin/enqueue status --task "$TASK" --wait --timeout 2m >/dev/null
RECHECKS=$(bin/enqueue status --task "$TASK" | grep '^rechecks: ') || fail "the recheck of the task's cited pages reported nothing"
echo "Cited pages fetched again — $RECHECKS"

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
[[ $WIKI =~ ^\ *en\.wikipedia\.org\ +LOW\  ]] || fail "Wikipedia's level of record is not LOW: $WIKI"
[[ $WIKI =~ NLI\ edges:\ LOW=[0-9]+$ ]] || fail "edges from Wikipedia carry another level than LOW: $WIKI"
for d in openalex.org semanticscholar.org; do
  [[ $(source_row "$d") =~ ^\ *"$d"\ +ACADEMIC\  ]] || fail "the academic page of $d is not ACADEMIC: $(source_row "$d")"
done
grep -q '^blocked domains: none$' <<<"$REPORT" || fail "a domain is blocked: $(grep '^blocked domains' <<<"$REPORT")"
[[ $WEIGHTS == *"ACADEMIC ×0.90"* && $WEIGHTS == *"LOW ×0.40"* ]] || fail "the reading lists do not weigh ACADEMIC and LOW apart: $WEIGHTS"

# The HTTP API on the same database: `worker api` on a free local port, an
# organization token for the demo's organization, and one curl line, run
# here (the demo fails when it does not answer with the task's status).
EVF_API_ADDR=127.0.0.1:${API_PORT:-0} EVF_API_METRICS_ADDR=127.0.0.1:0 EVF_LOG_FORMAT=text EVF_LOG_LEVEL=info bin/worker api 2>"$API_LOG" &
API=$!
ADDR=""
for _ in $(seq 100); do
  ADDR=$(sed -n 's/.*msg="api: serving" addr=\([^ ]*\).*/\1/p' "$API_LOG" | head -n 1)
  [ -n "$ADDR" ] && break
  kill -0 "$API" 2>/dev/null || break
  sleep 0.1
done
[ -n "$ADDR" ] || { cat "$API_LOG" >&2; fail "worker api did not start"; }
TOKEN=$(bin/enqueue org token create --org default --name "make run" 2>/dev/null)
CURL="curl -s -H 'Authorization: Bearer $TOKEN' http://$ADDR/v1/tasks/$TASK/status"
echo
echo "HTTP API of this run: http://$ADDR (OpenAPI 3.1 document: http://$ADDR/v1/openapi.json); a token of organization default was made for it:"
echo "  $CURL"
if command -v curl >/dev/null; then
  ANSWER=$(sh -c "$CURL")
  [[ $ANSWER == *"\"task_id\":$TASK,"* ]] || fail "the API did not answer with task $TASK's status: ${ANSWER:0:300}"
  echo "  → $(grep -oE '"task_status":"[a-z]+"' <<<"$ANSWER"), $(grep -oE '"pending":[0-9]+' <<<"$ANSWER"), $(grep -oE '"finished":[0-9]+' <<<"$ANSWER")"
fi
echo "Reviewers' console of this run: http://$ADDR/ui/ — log in with the token above (organization default); task $TASK is at http://$ADDR/ui/tasks/$TASK"
if command -v curl >/dev/null; then
  # the console's login as a browser does it: the form's token, then the post
  JAR=$(mktemp)
  FORM=$(curl -s -c "$JAR" "http://$ADDR/ui/login")
  CSRF=$(sed -n 's/.*name="csrf" value="\([^"]*\)".*/\1/p' <<<"$FORM" | head -n 1)
  curl -s -o /dev/null -b "$JAR" -c "$JAR" -H "Origin: http://$ADDR" --data-urlencode "csrf=$CSRF" --data-urlencode "token=$TOKEN" "http://$ADDR/ui/login"
  PAGE=$(curl -s -b "$JAR" "http://$ADDR/ui/tasks/$TASK")
  rm -f "$JAR"
  [[ $PAGE == *"Task $TASK"*"Claims"* ]] || fail "the console did not show task $TASK after logging in with the token: ${PAGE:0:300}"
  echo "  → logged in with it: the console shows task $TASK"
fi

# Self-directed retrieval: a second task gets only claims — no targets — and
# the fleet searches the replay archive for them itself (offline BM25), in
# stages chosen by expected value of information within budget minimal.
# Its decisions are task events; the demo fails when it searched nothing.
SELF=$(bin/enqueue task create --budget minimal --retrieval self_directed --hypothesis "Sea level rise is accelerating.")
bin/enqueue claim add --task "$SELF" --text "Global warming is driving polar bears toward extinction" --text "Volcanoes Melting West Antarctic Glaciers, Not Global Warming" >/dev/null
if ! bin/enqueue status --task "$SELF" --wait --timeout 5m >/dev/null; then
  bin/enqueue status --task "$SELF" >&2 || true
  fail "the self-directed task $SELF did not finish cleanly"
fi
EVENTS=$(bin/enqueue task events --task "$SELF" --limit 500)
SEARCHES=$(bin/enqueue task show --task "$SELF" --json | sed -n 's/.*"targets": *\([0-9]*\).*/\1/p')
echo
echo "Self-directed task $SELF (only its 3 claims were given; budget minimal):"
awk '{print $3}' <<<"$EVENTS" | sort | uniq -c | awk '{printf "  %s ×%s\n", $2, $1}'
SELECTION=$(grep -m1 ' target_selection ' <<<"$EVENTS" | grep -oE '"(targets|deferred)": ?\[[^]]*\]|"stop": ?"[a-z_]+"|"k": ?[0-9]+' | paste -sd' ' - || true)
[ -n "$SELECTION" ] || fail "the self-directed task recorded no target selection"
echo "  target selection: $SELECTION"
grep -q ' urls_registered ' <<<"$EVENTS" || fail "the self-directed task registered no search"
grep -q ' retrieval_done ' <<<"$EVENTS" || fail "the self-directed task's retrieval did not finish"
echo "  targets it found itself: $SEARCHES; its decisions: bin/enqueue task events --task $SELF"

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
  echo "and serve the HTTP API and the console on it again with make api (http://127.0.0.1:8080/ui/; the token above works there)."
fi
if [ "${WITH_POSTGRES_KEPT:-}" = 1 ]; then
  echo "or one at a time: make explore CMD='bin/enqueue task show --task $TASK'"
fi
