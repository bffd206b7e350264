package jobs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Job kinds (ARCHITECTURE.md §4). These strings are the public contract.
const (
	KindTargetQueue   = "target_queue"
	KindEmbed         = "embed"
	KindVerifyNLI     = "verify_nli"
	KindRerank        = "rerank"
	KindCitationGraph = "citation_graph"
	KindCleanup       = "cleanup"
	KindRecheck       = "recheck"
)

// Queues (ARCHITECTURE.md §4).
const (
	QueueTarget      = "target"
	QueueEmbed       = "embed"
	QueueNLI         = "nli"
	QueueRerank      = "rerank"
	QueueCitation    = "citation"
	QueueMaintenance = "maintenance"
)

// Args is implemented by every args type of this package: River's JobArgs
// plus the validation the workers apply before any side effect, and the
// task the job works for.
type Args interface {
	river.JobArgs
	Validate() error
	// TaskOf is the job's task_id, 0 when it has none (an embed job may
	// name none, the orphan sweep never does).
	TaskOf() int64
}

// spec is the contract of one job kind. It is declared once, here; the
// queue list, KindQueues, every args type's InsertOpts and ParseArgs derive
// from it.
type spec struct {
	kind        string
	queue       string
	priority    int
	maxAttempts int
	unique      river.UniqueOpts
	// parse decodes strictly; a decoding problem is kept for Validate.
	parse func(raw []byte) Args
}

// unfinishedStates are the job states in which a twin insert is skipped by
// kinds that are unique only while waiting or running: a completed run must
// not block the next one.
var unfinishedStates = []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending,
	rivertype.JobStateRunning, rivertype.JobStateRetryable, rivertype.JobStateScheduled}

// specs lists every kind in the pipeline's order of queues.
var specs = []spec{
	{kind: KindTargetQueue, queue: QueueTarget, priority: 1, maxAttempts: 8,
		unique: river.UniqueOpts{ByArgs: true}, parse: parseTargetQueue},
	{kind: KindEmbed, queue: QueueEmbed, priority: 1, maxAttempts: 10,
		parse: parseAs[EmbedArgs]},
	{kind: KindVerifyNLI, queue: QueueNLI, priority: 2, maxAttempts: 10,
		unique: river.UniqueOpts{ByArgs: true, ByState: unfinishedStates}, parse: parseAs[VerifyNLIArgs]},
	{kind: KindRerank, queue: QueueRerank, priority: 2, maxAttempts: 10,
		unique: river.UniqueOpts{ByArgs: true, ByState: unfinishedStates}, parse: parseAs[RerankArgs]},
	{kind: KindCitationGraph, queue: QueueCitation, priority: 4, maxAttempts: 10,
		unique: river.UniqueOpts{ByArgs: true}, parse: parseAs[CitationGraphArgs]},
	{kind: KindCleanup, queue: QueueMaintenance, priority: 3, maxAttempts: 5,
		unique: river.UniqueOpts{ByArgs: true, ByState: unfinishedStates}, parse: parseAs[CleanupArgs]},
	// A recheck fetches like a target and goes to the fetchers' queue,
	// after every new target.
	{kind: KindRecheck, queue: QueueTarget, priority: 4, maxAttempts: 6,
		unique: river.UniqueOpts{ByArgs: true, ByState: unfinishedStates}, parse: parseAs[RecheckArgs]},
}

// AllQueues lists every queue in the pipeline's order.
var AllQueues = func() []string {
	var qs []string
	for _, s := range specs {
		if !slices.Contains(qs, s.queue) {
			qs = append(qs, s.queue)
		}
	}
	return qs
}()

// KindQueues maps every kind to the queue its jobs go to.
var KindQueues = func() map[string]string {
	m := make(map[string]string, len(specs))
	for _, s := range specs {
		m[s.kind] = s.queue
	}
	return m
}()

// Kinds lists every kind in the pipeline's order.
func Kinds() []string {
	out := make([]string, len(specs))
	for i, s := range specs {
		out[i] = s.kind
	}
	return out
}

func specOf(kind string) (spec, bool) {
	i := slices.IndexFunc(specs, func(s spec) bool { return s.kind == kind })
	if i < 0 {
		return spec{}, false
	}
	return specs[i], true
}

// insertOpts are a kind's defaults for River's insert (a caller's
// InsertOpts override them field by field).
func insertOpts(kind string) river.InsertOpts {
	s, ok := specOf(kind)
	if !ok {
		panic("jobs: no spec for kind " + kind)
	}
	return river.InsertOpts{Queue: s.queue, Priority: s.priority, MaxAttempts: s.maxAttempts, UniqueOpts: s.unique}
}

// parseAs decodes raw as the args type T (strictly; problems are kept for
// Validate).
func parseAs[T Args, PT interface {
	*T
	UnmarshalJSON([]byte) error
}](raw []byte) Args {
	var a T
	_ = PT(&a).UnmarshalJSON(raw)
	return a
}

// parseTargetQueue decodes target_queue args and normalises a valid target,
// so that an insert is unique exactly as `enqueue target add` is.
func parseTargetQueue(raw []byte) Args {
	var a TargetQueueArgs
	_ = a.UnmarshalJSON(raw)
	if a.Validate() == nil {
		a.Target, _ = a.Target.Normalized()
	}
	return a
}

// TaskOf is the task of a job of kind with the encoded args, as River
// stores them; ok is false when the job has no task or args the contract
// refuses (such a job is cancelled before it runs).
func TaskOf(kind string, encoded []byte) (task int64, ok bool) {
	a, err := ParseArgs(kind, encoded)
	if err != nil || a.TaskOf() <= 0 {
		return 0, false
	}
	return a.TaskOf(), true
}

// ParseArgs decodes and validates raw JSON args for a kind, as the workers
// would. The enqueue CLI uses it to refuse bad args before inserting.
func ParseArgs(kind string, raw []byte) (Args, error) {
	s, ok := specOf(kind)
	if !ok {
		return nil, fmt.Errorf("unknown job kind %q (want one of %s)", clip(kind, maxEchoBytes), strings.Join(Kinds(), ", "))
	}
	v := s.parse(raw)
	if err := v.Validate(); err != nil {
		return nil, err
	}
	return v, nil
}
