package errs

// The error table: for every way a job can fail, what River does with it,
// whether a target_queue job's target fails and whether the task's status
// reports work not done. The worker middleware (internal/workers) classifies
// each job's error once and applies its row; the CLI reads the last column.
// A failure's kind is a typed value, recorded in a cancelled job's output
// ("failure"), never read from an error's text.

// Failure is a kind of failure: one row of the error table.
type Failure string

const (
	BadArgs            Failure = "bad_args"             // the contract refuses the job's args
	BadInput           Failure = "bad_input"            // ErrBadInput: input that can never succeed
	TaskNotFound       Failure = "task_not_found"       // the job's task does not exist
	TaskStopped        Failure = "task_stopped"         // the job's task was stopped
	TaskPaused         Failure = "task_paused"          // the job's task is paused: it waits, before it starts, until the task is resumed
	OverShare          Failure = "over_share"           // the job's organization holds its share of the kind's running jobs while another's wait: it waits, before it starts
	PageNotFound       Failure = "page_not_found"       // the job's page does not exist
	DataRefusedFailure Failure = "data_refused"         // Postgres refuses the data itself (DataRefused)
	TargetFailed       Failure = "target_failed"        // the target cannot be taken: unfetchable, unreadable, unknown DOI, no search backend
	ServerBusy         Failure = "server_busy"          // a web server or the search backend asked to come back later (Retry-After)
	ModelUnavailable   Failure = "model_unavailable"    // a model or academic server is down, overloaded or its circuit is open
	WorkerDiedFailure  Failure = "worker_died"          // the job's worker process died under it MaxWorkerDeaths times
	ClaimKillsWorker   Failure = "claim_kills_worker"   // verify_nli: the one claim whose verification kills its worker, refused
	WaitedTooLong      Failure = "waited_too_long"      // snoozed MaxSnoozes times already: this wait counts as an attempt
	PoliteWait         Failure = "polite_wait"          // the domain's fleet-wide politeness: not its turn yet, or its budget of the UTC day is used up
	PoliteWaitTooLong  Failure = "polite_wait_too_long" // a politeness wait would end more than MaxPoliteWait after the job's first
	EmbeddingsPending  Failure = "embeddings_pending"   // verify_nli: fragments of the task still lack embeddings; judging now would rank without them
	PeerBusy           Failure = "peer_busy"            // citation_graph: an older job (another task's) asks the academic APIs for the same paper
	CitationsDown      Failure = "citations_down"       // citation_graph: the academic APIs did not answer for the paper's neighbours
	Transient          Failure = "transient"            // anything else (network, a garbage answer, a deadlock): retried
	CancelledByPerson  Failure = "cancelled_by_person"  // a person cancelled the job (enqueue job cancel, POST /v1/jobs/{job_id}/cancel), with a reason; its waiting target ends cancelled
)

// Outcome is what River does with a failed job.
type Outcome string

const (
	Retry  Outcome = "retry"  // an attempt: River's backoff; the last attempt discards the job
	Snooze Outcome = "snooze" // wait without using an attempt
	Cancel Outcome = "cancel" // end now with the reason recorded (output "failure")
)

// Rule is one row of the error table.
type Rule struct {
	Outcome Outcome
	// FailsTarget: target_queue records its target failed with the reason
	// (also on the last attempt of a retried failure, so that no target
	// is left "seen" by a discarded job).
	FailsTarget bool
	// TaskFailure: the task's status reports the job as work not done
	// (enqueue status --wait exits 3). A failed target is reported as a
	// failed target instead, a stopped task's jobs as stopped.
	TaskFailure bool
	// Retries: the first Retries attempts that fail so are retried (River's
	// backoff); the row's Outcome applies from the attempt after.
	Retries int
}

// ErrorTable is the one place that decides. A new kind of failure is one
// row.
var ErrorTable = map[Failure]Rule{
	BadArgs:            {Outcome: Cancel, TaskFailure: true},
	BadInput:           {Outcome: Cancel, FailsTarget: true},
	TaskNotFound:       {Outcome: Cancel},
	TaskStopped:        {Outcome: Cancel},
	TaskPaused:         {Outcome: Snooze},
	OverShare:          {Outcome: Snooze},
	PageNotFound:       {Outcome: Cancel, TaskFailure: true},
	DataRefusedFailure: {Outcome: Cancel, FailsTarget: true, TaskFailure: true},
	TargetFailed:       {Outcome: Cancel, FailsTarget: true},
	ServerBusy:         {Outcome: Snooze},
	ModelUnavailable:   {Outcome: Snooze},
	WorkerDiedFailure:  {Outcome: Cancel, FailsTarget: true, TaskFailure: true},
	ClaimKillsWorker:   {Outcome: Cancel, TaskFailure: true},
	WaitedTooLong:      {Outcome: Retry, FailsTarget: true, TaskFailure: true},
	PoliteWait:         {Outcome: Snooze},
	PoliteWaitTooLong:  {Outcome: Cancel, FailsTarget: true},
	EmbeddingsPending:  {Outcome: Snooze},
	PeerBusy:           {Outcome: Snooze},
	CitationsDown:      {Outcome: Cancel, Retries: 2},
	Transient:          {Outcome: Retry, FailsTarget: true, TaskFailure: true},
	CancelledByPerson:  {Outcome: Cancel, TaskFailure: true},
}

// TaskFailure reports whether a job that ended with failure f (its output's
// "failure") is work of its task not done.
func TaskFailure(f Failure) bool { return ErrorTable[f].TaskFailure }

// EndedUndone reports whether a job that ended in state (River's) with
// failure (its output's "failure", "" when none was recorded) ended without
// doing its work: discarded, or cancelled for a row that is the task's
// failure, or cancelled with no reason recorded (by an operator).
func EndedUndone(state string, failure Failure) bool {
	switch state {
	case "discarded":
		return true
	case "cancelled":
		return failure == "" || TaskFailure(failure)
	}
	return false
}
