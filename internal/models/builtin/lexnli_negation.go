// Negation scope.

package builtin

// markNegation flips the neg flag of every token within the scope of a
// negation: the following tokens up to the end of the clause, at most
// negScopeAfter of them (withoutScope for "without"). Overlapping scopes
// cancel ("never fails to win").
func markNegation(toks []lexToken) {
	for i := range toks {
		if toks[i].kind != kNegation {
			continue
		}
		reach := negScopeAfter
		if toks[i].word == "without" {
			reach = withoutScope
		}
		for j := i + 1; j < len(toks) && j <= i+reach; j++ {
			u := &toks[j]
			if u.kind == kBoundary || u.flags&wClause != 0 {
				break
			}
			if (u.word == "and" || u.word == "or") && j+1 < len(toks) && toks[j+1].flags&wClauseAfterAnd != 0 {
				break
			}
			toks[j].neg = !toks[j].neg
		}
	}
}
