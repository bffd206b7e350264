package citation

import (
	"slices"
	"strings"
	"testing"
)

// describe is each sentence of text as "mark word | sentence" when it is
// factual, "- | sentence" when it is not.
func describe(text string) []string {
	var out []string
	for _, s := range sentences(text, scanGroups(text)) {
		got := "- |"
		if s.factual {
			got = strings.TrimSpace(s.mark+" "+s.word) + " |"
		}
		out = append(out, got+" "+strings.Join(strings.Fields(text[s.start:s.end]), " "))
	}
	return out
}

func TestSentenceRule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"seed sentences are statements", "Transformers use attention [E1]. They scale well [E99].",
			[]string{"statement | Transformers use attention [E1].", "statement | They scale well [E99]."}},
		{"a year", "Glaciers have retreated since 1850.", []string{"number 1850 | Glaciers have retreated since 1850."}},
		{"a percentage", "Glaciers gave 21% of the rise.", []string{"number 21% | Glaciers gave 21% of the rise."}},
		{"a decimal does not end the sentence, a unit does", "The gain was 2.5 m. Then it stopped.",
			[]string{"number 2.5 | The gain was 2.5 m.", "statement | Then it stopped."}},
		{"a quantity word, first or not", "Half of the ice is gone. It lost a million tonnes.",
			[]string{"quantity Half | Half of the ice is gone.", "quantity million | It lost a million tonnes."}},
		{"a name not at the start", "Sea ice is thinning in the Pacific.",
			[]string{"name Pacific | Sea ice is thinning in the Pacific."}},
		{"the first mark names the sentence", "Sea level rise reached 20 cm in the Pacific.",
			[]string{"verb rise | Sea level rise reached 20 cm in the Pacific."}},
		{"a verb of causation", "Warming caused the retreat.", []string{"verb caused | Warming caused the retreat."}},
		{"I is not a name", "I think so.", []string{"statement | I think so."}},
		{"a question", "What drives the retreat? Warming does [E2].",
			[]string{"- | What drives the retreat?", "statement | Warming does [E2]."}},
		{"a heading and a title", "# Findings since 1850\n\nSummary of evidence\n\nGlaciers melt.",
			[]string{"- | # Findings since 1850", "- | Summary of evidence", "statement | Glaciers melt."}},
		{"a title with a citation", "Sea level rose 20 cm [E2]", []string{"- | Sea level rose 20 cm [E2]"}},
		{"a lead-in", "The evidence is summarised below:\n- Sea level rose 20 cm\n- Ice melts",
			[]string{"- | The evidence is summarised below:", "verb rose | Sea level rose 20 cm", "statement | Ice melts"}},
		{"numbered items", "1. Sea ice shrinks.\n2) Glaciers retreat.",
			[]string{"statement | Sea ice shrinks.", "statement | Glaciers retreat."}},
		{"transitions and hedges", "However, the picture is more complicated. In summary, the evidence points one way. " +
			"Perhaps more study would help. More research is needed.",
			[]string{"- | However, the picture is more complicated.", "- | In summary, the evidence points one way.",
				"- | Perhaps more study would help.", "- | More research is needed."}},
		{"a transition with a mark is factual", "However, glaciers in Norway advanced.",
			[]string{"name Norway | However, glaciers in Norway advanced."}},
		{"only citations is no sentence", "[E1] [E2]\n\n[E3].", nil},
		{"citations after the full stop", "Sea level rose. [E2] [E3] It fell later.",
			[]string{"verb rose | Sea level rose. [E2] [E3]", "verb fell | It fell later."}},
		{"abbreviations and initials", "Glaciers shrink, e.g. in the Alps. J. Smith measured it. Dr. Jones reported it.",
			[]string{"name Alps | Glaciers shrink, e.g. in the Alps.", "name Smith | J. Smith measured it.",
				"name Jones | Dr. Jones reported it."}},
		{"a lower-case word does not start a sentence", "It rose to approx. two metres. it held.",
			[]string{"verb rose | It rose to approx. two metres. it held."}},
		{"hard-wrapped lines are one paragraph", "Glaciers are\nretreating fast.\r\nThey melt.",
			[]string{"statement | Glaciers are retreating fast.", "statement | They melt."}},
		{"closing quotes and brackets", "He said “it rose.” Then (it fell.) Done!",
			[]string{"verb rose | He said “it rose.”", "verb fell | Then (it fell.)", "statement | Done!"}},
		{"an ellipsis", "It grew... Then it stopped.", []string{"verb grew | It grew...", "statement | Then it stopped."}},
		{"a malformed citation is no word", "Ice melts [E1-E3].", []string{"statement | Ice melts [E1-E3]."}},
		{"empty", " \n\n\t", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := describe(tc.text); !slices.Equal(got, tc.want) {
				t.Errorf("sentences of %q:\n got %q\nwant %q", tc.text, got, tc.want)
			}
		})
	}
}

// TestUnsupportedSentences: a sentence citing an id of the task is
// supported, wherever its group is; one citing only ids the task lacks is
// not.
func TestUnsupportedSentences(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want []string // the unsupported sentences, "mark: text"
	}{
		{"cited at the end", "Sea level rose 20 cm [E2].", nil},
		{"cited after the full stop", "Sea level rose 20 cm. [E2]", nil},
		{"cited in the middle", "In 2017 [E4], transformers arrived.", nil},
		{"one valid id is enough", "Ice melts [E99, E3].", nil},
		{"cited only with ids the task lacks", "Ice melts [E99].", []string{"statement: Ice melts [E99]."}},
		{"cited with a range only", "Ice melts [E1-E3].", []string{"statement: Ice melts [E1-E3]."}},
		{"not cited", "Intro. The Alps lost ice. What now?", []string{"statement: Intro.", "name: The Alps lost ice."}},
		{"a citation on the next paragraph supports nothing", "The Alps lost ice.\n\n[E2]", []string{"name: The Alps lost ice."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := Check(tc.text, upTo(5))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range r.Unsupported {
				got = append(got, s.Mark+": "+s.Text)
			}
			if !slices.Equal(got, tc.want) || r.UnsupportedCount != len(tc.want) {
				t.Errorf("unsupported %q, want %q", got, tc.want)
			}
		})
	}
}
