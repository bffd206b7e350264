package nlimodel

import "testing"

// The committed model on hand-written pairs, one group per cue: each cued
// hypothesis must come out a contradiction, and more of one than the same
// premise's plain restatement, which must come out an entailment. The pairs
// were written by hand for this test (none comes from a data set); of
// those written, the ones the model gets wrong today are left out and
// named here instead: "eleven" / "seven players" (an
// entailment), a named subject swapped ("Einstein" / "Newton" developed
// relativity: an entailment, because FEVER evidence seldom repeats its
// subject), "asleep" / "sleeping" (a contradiction: SNLI hypotheses about
// sleeping mostly are).
func TestCuesOnHandWrittenPairs(t *testing.T) {
	t.Parallel()
	m, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	cues := map[string][]struct{ premise, restated, cued string }{
		"negation": {
			{"The museum opened to the public in 1995.", "The museum opened to the public.", "The museum did not open to the public."},
			{"She won the election by a wide margin.", "She won the election.", "She never won the election."},
			{"The company reported a profit last year.", "The company reported a profit.", "The company reported no profit last year."},
			{"A man is playing a guitar on stage.", "A man is playing a guitar.", "A man is not playing a guitar."},
		},
		"numbers": {
			{"The bridge was completed in 1932.", "The bridge was completed in 1932.", "The bridge was completed in 1950."},
			{"Three dogs are running in the park.", "Three dogs are running.", "Five dogs are running in the park."},
			{"The tower is 300 metres tall and was built in 1889.", "The tower was built in 1889.", "The tower was built in 1925."},
		},
		"antonyms": {
			{"The door is open.", "The door is open.", "The door is closed."},
			{"The water in the pool is cold.", "The water is cold.", "The water in the pool is hot."},
			{"The price of oil increased sharply in 2008.", "The price of oil increased.", "The price of oil decreased sharply in 2008."},
			{"The children are happy.", "The children are happy.", "The children are sad."},
			{"The man is standing in line.", "The man is standing.", "The man is sitting."},
		},
		"quantifiers": {
			{"All of the passengers survived the crash.", "Some of the passengers survived the crash.", "None of the passengers survived the crash."},
			{"Every member voted for the proposal.", "Some members voted for the proposal.", "No member voted for the proposal."},
			{"Many people came to the party.", "People came to the party.", "Nobody came to the party."},
		},
		"subject mismatch": {
			{"A girl is jumping on a trampoline.", "A girl is jumping.", "A boy is jumping on a trampoline."},
			{"A dog is chasing a ball in the yard.", "A dog is chasing a ball.", "A cat is chasing a ball in the yard."},
			{"An old man is fishing from a boat.", "A man is fishing.", "A young woman is fishing from a boat."},
			{"A woman is riding a bike down the street.", "A woman is riding a bike.", "A man is riding a bike down the street."},
		},
	}
	for cue, pairs := range cues {
		for _, p := range pairs {
			plain, cued := m.Scores(p.premise, p.restated), m.Scores(p.premise, p.cued)
			if k, _ := Top(plain); k != 0 {
				t.Errorf("%s: (%q, %q) = %s %.2f, want entailment", cue, p.premise, p.restated, Labels[k], plain)
			}
			if k, _ := Top(cued); k != 2 {
				t.Errorf("%s: (%q, %q) = %s %.2f, want contradiction", cue, p.premise, p.cued, Labels[k], cued)
			}
			if cued[2] < plain[2]+0.2 {
				t.Errorf("%s: the cue raised contradiction from %.2f only to %.2f for %q", cue, plain[2], cued[2], p.cued)
			}
		}
	}
}
