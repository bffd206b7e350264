package builtin_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
)

func TestLexicalNLICases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, premise, hypothesis string
		want                      string
		minConf                   float64 // 0: no confidence requirement
	}{
		// Supports: the hypothesis is covered by the premise.
		{"subset", "A man is playing a guitar on a stage in front of a large crowd.", "A man is playing a guitar.", models.Supports, 0.6},
		{"inflection", "The researchers measured rising sea levels along the coast.", "Researchers measure sea levels.", models.Supports, 0.6},
		{"hypernym", "Two women are walking their dogs in the park.", "People are walking dogs in the park.", models.Supports, 0.6},
		{"same numbers", "The bridge was completed in 1932 after 8 years of work.", "The bridge was completed in 1932.", models.Supports, 0.6},
		{"paraphrase with synonyms", "A kid rides a bicycle down the road.", "A child rides a bike on the street.", models.Supports, 0.6},
		{"contraction kept consistent", "The committee didn't approve the budget.", "The committee did not approve the budget.", models.Supports, 0.6},
		{"place implies outdoors", "A girl is standing on the street in front of a store.", "The girl is outdoors.", models.Supports, 0.6},
		{"count from single mentions", "A man and a woman are dancing on a stage.", "Two people are dancing on a stage.", models.Supports, 0.6},
		{"agent noun", "A dancer is performing on a stage.", "Someone dances on a stage.", models.Supports, 0.5},
		{"negated alternative", "A man is running along the beach.", "The man is not sleeping.", models.Supports, 0.5},
		{"negated antonym", "The shop did not accept cash on Sunday.", "The shop rejected cash on Sunday.", models.Supports, 0.5},
		{"number bound entailed", "More than 300 people attended the meeting.", "At least 200 people attended the meeting.", models.Supports, 0.6},
		{"negated bound", "No more than 20 people were hurt in the fire.", "At most 30 people were hurt in the fire.", models.Supports, 0.6},
		{"not more than", "Not more than 20 people were hurt in the fire.", "Over 40 people were hurt in the fire.", models.Refutes, 0.6},
		{"compound number word", "Twenty five students passed the exam.", "25 students passed the exam.", models.Supports, 0.6},
		{"spelling slip", "A snowboarder jumps off a ramp.", "A snowbaorder jumps off a ramp.", models.Supports, 0.6},

		// Refutes: well covered hypothesis plus a contradiction cue.
		{"negation in hypothesis", "The drug reduced mortality in the trial.", "The drug did not reduce mortality in the trial.", models.Refutes, 0.6},
		{"negation in premise", "The company never paid the fine.", "The company paid the fine.", models.Refutes, 0.6},
		{"contracted negation", "The senator supports the bill.", "The senator doesn't support the bill.", models.Refutes, 0.6},
		{"pre-tokenised negation", "He can swim .", "He ca n't swim .", models.Refutes, 0.6},
		{"number mismatch", "The earthquake killed 120 people in the region.", "The earthquake killed 300 people in the region.", models.Refutes, 0.6},
		{"spelled number mismatch", "Two dogs are running through a field.", "Three dogs are running through a field.", models.Refutes, 0.6},
		{"antonym", "Unemployment rates increased sharply last year.", "Unemployment rates decreased last year.", models.Refutes, 0.6},
		{"antonym rise/fall", "Prices rose in March.", "Prices fell in March.", models.Refutes, 0.6},
		{"antonym more/less", "The new engine uses more fuel.", "The new engine uses less fuel.", models.Refutes, 0.6},
		{"gender swap", "A man is cooking dinner in the kitchen.", "A woman is cooking dinner in the kitchen.", models.Refutes, 0.6},
		{"quantifier", "All of the samples were contaminated.", "None of the samples were contaminated.", models.Refutes, 0.6},
		{"without", "A man with a hat is reading a newspaper.", "A man without a hat is reading a newspaper.", models.Refutes, 0.6},
		{"nobody", "A man is sleeping on the couch.", "Nobody is sleeping.", models.Refutes, 0.6},
		{"always/never", "The senator always votes for the bill.", "The senator never votes for the bill.", models.Refutes, 0.6},
		{"disjoint number bounds", "Fewer than 50 people attended the concert.", "More than 100 people attended the concert.", models.Refutes, 0.6},
		{"number outside range", "The trial enrolled between 100 and 200 patients.", "The trial enrolled 500 patients.", models.Refutes, 0.6},
		{"exclusive postures", "A woman is sitting on a bench.", "A woman is standing.", models.Refutes, 0.6},
		{"sleeping vs playing", "A boy is playing soccer in the park.", "A boy is sleeping.", models.Refutes, 0.6},
		{"place vs indoors", "Children are playing on the beach.", "Children are playing indoors.", models.Refutes, 0.6},
		{"colour of the same thing", "A man in a red shirt is cooking.", "A man in a blue shirt is cooking.", models.Refutes, 0.6},
		{"predicative colour", "A black dog runs across the grass.", "The dog is white.", models.Refutes, 0.5},
		{"person vs animal subject", "A person is waterskiing on a lake.", "A dog is waterskiing on a lake.", models.Refutes, 0.5},
		{"pronoun gender", "A woman is climbing a rock wall.", "He is climbing a rock wall.", models.Refutes, 0.5},
		{"shirtless", "A shirtless man is running on the track.", "A man wearing a shirt is running on the track.", models.Refutes, 0.5},
		{"day/night", "Two friends walk home at night.", "Two friends walk home during the day.", models.Refutes, 0.6},

		// Neutral: unrelated or adds new information.
		{"unrelated", "The orchestra performed Beethoven's ninth symphony.", "Interest rates were raised by the central bank.", models.Neutral, 0.5},
		{"new information", "A woman is reading a book.", "A woman is reading a mystery novel on a train to Paris.", models.Neutral, 0},
		{"unrelated with negation", "The cat sat on the mat.", "Volcanoes do not erupt in winter.", models.Neutral, 0},
		{"empty hypothesis", "Something happened.", "", models.Neutral, 0},
		{"stop words only", "It is what it is.", "It was.", models.Neutral, 0},
		{"empty premise", "", "The vaccine is safe.", models.Neutral, 0},
		{"added person is no gender conflict", "A man is cooking dinner.", "A man is cooking dinner for his wife.", models.Neutral, 0},
		{"colour of another thing", "A woman with a red hat is reading.", "A woman with a black dog is reading.", models.Neutral, 0},
		{"negating something unmentioned", "A man is walking in the park.", "The man is not carrying an umbrella.", models.Neutral, 0},
		{"not only", "The drug reduced pain.", "The drug not only reduced pain but also cured the disease.", models.Neutral, 0},
		{"same count of another thing", "Three dogs play in the snow.", "Three balls lie in the snow.", models.Neutral, 0},
	}
	nli := builtin.NewLexicalNLI()
	pairs := make([]models.Pair, len(tests))
	for i, tt := range tests {
		pairs[i] = models.Pair{Premise: tt.premise, Hypothesis: tt.hypothesis}
	}
	out, err := nli.Judge(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(pairs) {
		t.Fatalf("got %d judgements for %d pairs", len(out), len(pairs))
	}
	for i, tt := range tests {
		j := out[i]
		if j.Label != tt.want {
			t.Errorf("%s: label %s (%.3f), want %s", tt.name, j.Label, j.Confidence, tt.want)
			continue
		}
		if j.Confidence < tt.minConf {
			t.Errorf("%s: confidence %.3f, want >= %.2f", tt.name, j.Confidence, tt.minConf)
		}
	}
}

func TestLexicalNLIHedgeLowersConfidence(t *testing.T) {
	t.Parallel()
	nli := builtin.NewLexicalNLI()
	out, err := nli.Judge(context.Background(), []models.Pair{
		{Premise: "The new policy reduced emissions in the city.", Hypothesis: "The policy reduced emissions."},
		{Premise: "The new policy reduced emissions in the city.", Hypothesis: "The policy may have reduced emissions."},
	})
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Label != models.Supports {
		t.Fatalf("plain: %+v, want supports", out[0])
	}
	if out[1].Confidence >= out[0].Confidence {
		t.Errorf("hedged confidence %.3f not below plain %.3f", out[1].Confidence, out[0].Confidence)
	}
}

func TestLexicalNLIInvariants(t *testing.T) {
	t.Parallel()
	nli := builtin.NewLexicalNLI()
	if nli.Model() != "builtin-lexical-nli-v3" {
		t.Errorf("Model = %q", nli.Model())
	}
	long := strings.Repeat("The quick brown fox did not jump over 3 lazy dogs. ", 200)
	pairs := []models.Pair{
		{Premise: "", Hypothesis: ""},
		{Premise: "   ", Hypothesis: "\t"},
		{Premise: long, Hypothesis: "The fox jumped over 3 dogs."},
		{Premise: "Ünïcödé Straße ist schön.", Hypothesis: "Die Straße ist nicht schön."},
		{Premise: "数据科学", Hypothesis: "机器学习"},
		{Premise: "1,000 people attended.", Hypothesis: "1000 people attended."},
		{Premise: "'n't n't '' ' don't", Hypothesis: "n't"},
	}
	a, err := nli.Judge(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := builtin.NewLexicalNLI().Judge(context.Background(), pairs)
	for i, j := range a {
		switch j.Label {
		case models.Supports, models.Refutes, models.Neutral:
		default:
			t.Errorf("pair %d: label %q", i, j.Label)
		}
		if math.IsNaN(j.Confidence) || j.Confidence < 1.0/3 || j.Confidence > 1 {
			t.Errorf("pair %d: confidence %v", i, j.Confidence)
		}
		if j != b[i] {
			t.Errorf("pair %d: not deterministic: %+v vs %+v", i, j, b[i])
		}
	}
	if a[5].Label != models.Supports {
		t.Errorf("thousands separator: %+v, want supports", a[5])
	}
	out, err := nli.Judge(context.Background(), nil)
	if err != nil || len(out) != 0 {
		t.Errorf("Judge(nil) = %v, %v", out, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := nli.Judge(ctx, pairs); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

// TestLexicalNLIConcurrent judges the same pairs from several goroutines
// (run with -race) and requires the sequential answers.
func TestLexicalNLIConcurrent(t *testing.T) {
	t.Parallel()
	nli := builtin.NewLexicalNLI()
	pairs := []models.Pair{
		{Premise: "Two women are walking their dogs in the park.", Hypothesis: "People are walking dogs."},
		{Premise: "A man is sleeping on the couch.", Hypothesis: "Nobody is sleeping."},
		{Premise: "More than 300 people attended.", Hypothesis: "Fewer than 100 people attended."},
	}
	want, err := nli.Judge(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := nli.Judge(context.Background(), pairs)
			if err != nil {
				errs <- err.Error()
				return
			}
			for i := range got {
				if got[i] != want[i] {
					errs <- fmt.Sprintf("pair %d: %+v, sequential %+v", i, got[i], want[i])
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
