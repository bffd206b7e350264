package workers

// Observer is what workers report besides their jobs' outputs: fetches,
// claims, NLI pairs and verdicts, recall paths, searches, academic calls
// and politeness. The fleet passes its Prometheus metrics
// (*metrics.Metrics); workers know no metrics package.
type Observer interface {
	Fetch(outcome string, bytes int, seconds float64)
	Claims(result string, n int)
	NLIEdge(relation string, n int)
	NLISkipped(reason string, n int)
	Verdict(verdict string, n int)
	Recall(path string)
	Search(outcome string)
	Academic(step, outcome string)
	PoliteWait(reason string)
	BudgetExhausted()
	Rechecked(state string, n int)
}

// observer is o, or one that records nothing when o is nil.
func observer(o Observer) Observer {
	if o == nil {
		return noObserver{}
	}
	return o
}

type noObserver struct{}

func (noObserver) Fetch(string, int, float64) {}
func (noObserver) Claims(string, int)         {}
func (noObserver) NLIEdge(string, int)        {}
func (noObserver) NLISkipped(string, int)     {}
func (noObserver) Verdict(string, int)        {}
func (noObserver) Recall(string)              {}
func (noObserver) Search(string)              {}
func (noObserver) Academic(string, string)    {}
func (noObserver) PoliteWait(string)          {}
func (noObserver) BudgetExhausted()           {}
func (noObserver) Rechecked(string, int)      {}
