package citation

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// sentence is a sentence of the text (the package doc's rule), with the
// citation groups inside it or right after its end.
type sentence struct {
	span
	groups     []group
	factual    bool
	mark, word string // why it is factual
}

// supported reports whether a group of s cites an id of the task.
func (s sentence) supported(text string, task map[string]bool) bool {
	for _, g := range s.groups {
		for _, id := range g.ids {
			if task[text[id.start:id.end]] {
				return true
			}
		}
	}
	return false
}

// block is a paragraph, a heading or a list item.
type block struct {
	span
	lines   int
	heading bool
	item    bool
}

// blocks cuts text into blocks: a blank line ends a paragraph, a line
// starting with "#" is a heading, a list marker starts an item; a
// paragraph's other lines are joined to it.
func blocks(text string) []block {
	var out []block
	var cur block
	open := false
	flush := func() {
		if open {
			out = append(out, cur)
			open = false
		}
	}
	for ls := 0; ls <= len(text); {
		le := len(text)
		if n := strings.IndexByte(text[ls:], '\n'); n >= 0 {
			le = ls + n
		}
		cs, ce := ls, le
		for cs < ce && isSpace(text[cs]) {
			cs++
		}
		for ce > cs && isSpace(text[ce-1]) {
			ce--
		}
		switch k, item := listMarker(text, cs, ce); {
		case cs == ce:
			flush()
		case text[cs] == '#':
			flush()
			out = append(out, block{span: span{cs, ce}, lines: 1, heading: true})
		case item:
			flush()
			cur, open = block{span: span{k, ce}, lines: 1, item: true}, true
		case open:
			cur.end = ce
			cur.lines++
		default:
			cur, open = block{span: span{cs, ce}, lines: 1}, true
		}
		ls = le + 1
	}
	flush()
	return out
}

// listMarker reports whether the line text[i:end] opens with a list marker
// ("-", "*", "+", "•", or up to three digits and "." or ")", then a space
// or tab), and where the item's text starts.
func listMarker(text string, i, end int) (int, bool) {
	j := i
	switch {
	case j < end && strings.IndexByte("-*+", text[j]) >= 0:
		j++
	case strings.HasPrefix(text[j:end], "•"):
		j += len("•")
	default:
		for j < end && j-i < 3 && isDigit(text[j]) {
			j++
		}
		if j == i || j >= end || (text[j] != '.' && text[j] != ')') {
			return i, false
		}
		j++
	}
	if j >= end || (text[j] != ' ' && text[j] != '\t') {
		return i, false
	}
	return skipBlanks(text, j), true
}

// sentences cuts text into sentences and decides which are factual.
func sentences(text string, groups []group) []sentence {
	sp := splitter{text: text, groups: groups, at: make(map[int]int, len(groups))}
	for i, g := range groups {
		sp.at[g.start] = i
	}
	var out []sentence
	for _, b := range blocks(text) {
		first := len(out)
		for _, s := range sp.split(b) {
			if st, ok := sp.evaluate(s, b); ok {
				out = append(out, st)
			}
		}
		if b.lines == 1 && !b.item && len(out) > first && !endsStatement(sp.clean(out[len(out)-1].span)) {
			for i := first; i < len(out); i++ { // a title
				out[i].factual, out[i].mark, out[i].word = false, "", ""
			}
		}
	}
	return out
}

// splitter cuts blocks into sentences, skipping the citation groups.
type splitter struct {
	text   string
	groups []group
	at     map[int]int // a group's start → its index
}

// split cuts b into sentences: after ".", "!" or "?" (and closers) and a
// space or the block's end, except after an abbreviation or an initial, or
// before a lower-case word; the groups right after a sentence's end are
// its own.
func (sp *splitter) split(b block) []span {
	text := sp.text
	var out []span
	start := b.start
	for i := b.start; i < b.end; {
		if g, ok := sp.at[i]; ok {
			i = sp.groups[g].end
			continue
		}
		c := text[i]
		if c != '.' && c != '!' && c != '?' {
			i++
			continue
		}
		j := i
		for j < b.end && (text[j] == '.' || text[j] == '!' || text[j] == '?') {
			j++
		}
		j = skipClosers(text, j, b.end)
		if j < b.end && !isSpace(text[j]) {
			i = j
			continue
		}
		next := skipSpace(text, j, b.end)
		single := i+1 >= b.end || text[i+1] != '.'
		if c == '.' && (startsLower(text, next, b.end) || single && abbreviation(text, i)) {
			i = j
			continue
		}
		end := j
		for next < b.end {
			g, ok := sp.at[next]
			if !ok {
				break
			}
			end = sp.groups[g].end
			next = skipSpace(text, end, b.end)
		}
		out = append(out, span{start, end})
		start, i = next, next
	}
	if start < b.end {
		out = append(out, span{start, b.end})
	}
	return out
}

// clean is s without its citation groups (each a space), trimmed.
func (sp *splitter) clean(s span) string {
	var sb strings.Builder
	for i := s.start; i < s.end; {
		if g, ok := sp.at[i]; ok {
			sb.WriteByte(' ')
			i = sp.groups[g].end
			continue
		}
		sb.WriteByte(sp.text[i])
		i++
	}
	return strings.TrimSpace(sb.String())
}

// evaluate makes s a sentence of block b; ok is false when s has no letter
// or digit outside its citations.
func (sp *splitter) evaluate(s span, b block) (st sentence, ok bool) {
	st.span = s
	for i := s.start; i < s.end; i++ {
		if g, ok := sp.at[i]; ok && !sp.groups[g].malformed {
			st.groups = append(st.groups, sp.groups[g])
		}
	}
	clean := sp.clean(s)
	if strings.IndexFunc(clean, isAlnum) < 0 {
		return st, false
	}
	end := strings.TrimRight(clean, closers)
	switch {
	case b.heading, strings.HasSuffix(end, "?"), strings.HasSuffix(end, ":"):
		return st, true
	}
	if st.mark, st.word = firstMark(clean); st.mark != "" {
		st.factual = true
		return st, true
	}
	if opensAsTransition(clean) {
		return st, true
	}
	st.factual, st.mark = true, "statement"
	return st, true
}

// endsStatement reports whether clean text ends as a sentence does.
func endsStatement(clean string) bool {
	end := strings.TrimRight(clean, closers)
	return strings.HasSuffix(end, ".") || strings.HasSuffix(end, "!") || strings.HasSuffix(end, "?")
}

// closers may follow a sentence's final punctuation.
const closers = "\"')]*_”’»"

// skipClosers skips closing quotes, brackets and emphasis marks.
func skipClosers(text string, i, end int) int {
	for i < end {
		r, w := utf8.DecodeRuneInString(text[i:end])
		if r == utf8.RuneError || !strings.ContainsRune(closers, r) {
			return i
		}
		i += w
	}
	return i
}

// abbreviation reports whether the "." at i ends an abbreviation: a word
// of the list, a word with a dot inside ("e.g", "U.S") or a capital letter
// alone (an initial; a unit such as "m" ends a sentence).
func abbreviation(text string, i int) bool {
	j := i
	for j > 0 && (isASCIILetter(text[j-1]) || text[j-1] == '.') {
		j--
	}
	word := text[j:i]
	if len(word) == 1 {
		return 'A' <= word[0] && word[0] <= 'Z'
	}
	return strings.Contains(word, ".") || abbreviations[strings.ToLower(word)]
}

var abbreviations = setOf(`al approx ca cf ch co corp dept dr eq eqs est fig figs inc jr ltd mr mrs ms no nos pp prof ref refs sec sr st vol vs`)

// startsLower reports whether the text at i opens with a lower-case letter.
func startsLower(text string, i, end int) bool {
	if i >= end {
		return false
	}
	r, _ := utf8.DecodeRuneInString(text[i:end])
	return unicode.IsLower(r)
}

// firstMark is the first mark of a fact in clean text and its word: a
// number (any digit), a quantity word, a name (a capitalised word that is
// not the first) or a verb of the list.
func firstMark(clean string) (mark, word string) {
	for n, tok := range tokens(clean) {
		lower := strings.ToLower(tok)
		r, _ := utf8.DecodeRuneInString(tok)
		switch {
		case strings.IndexFunc(tok, unicode.IsDigit) >= 0:
			return "number", tok
		case quantities[lower]:
			return "quantity", tok
		case n > 0 && unicode.IsUpper(r) && tok != "I":
			return "name", tok
		case verbs[lower]:
			return "verb", tok
		}
	}
	return "", ""
}

// tokens are the words and numbers of clean text: runs of letters, digits
// and the joiners . , ' ’ - % between them, trimmed of joiners at the
// edges but a final %.
func tokens(clean string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(clean, func(r rune) bool {
		return !isAlnum(r) && !strings.ContainsRune(".,'’-%", r)
	}) {
		tok := strings.TrimLeftFunc(f, func(r rune) bool { return !isAlnum(r) })
		tok = strings.TrimRightFunc(tok, func(r rune) bool { return !isAlnum(r) && r != '%' })
		if strings.IndexFunc(tok, isAlnum) >= 0 {
			out = append(out, tok)
		}
	}
	return out
}

// opensAsTransition reports whether clean text opens with a transition or
// hedge of the list.
func opensAsTransition(clean string) bool {
	words := strings.FieldsFunc(strings.ToLower(clean), func(r rune) bool { return !unicode.IsLetter(r) })
	for n := 1; n <= 3 && n <= len(words); n++ {
		if transitions[strings.Join(words[:n], " ")] {
			return true
		}
	}
	return false
}

var quantities = setOf(`percent percentage hundred hundreds thousand thousands million millions billion billions
	trillion trillions dozen dozens twice thrice half majority minority average`)

var verbs = setOf(`cause causes caused causing lead leads led leading result results resulted resulting
	drive drives drove driven driving trigger triggers triggered contribute contributes contributed contributing
	affect affects affected produce produces produced prevent prevents prevented reduce reduces reduced reducing
	increase increases increased increasing decrease decreases decreased decreasing rise rises rose risen rising
	fall falls fell fallen falling grow grows grew grown growing decline declines declined declining
	drop drops dropped double doubles doubled doubling triple tripled halve halved exceed exceeds exceeded
	reach reaches reached accelerate accelerates accelerated accelerating slow slows slowed
	improve improves improved outperform outperforms outperformed achieve achieves achieved
	replace replaces replaced replacing introduce introduces introduced measure measures measured measuring
	estimate estimates estimated record records recorded observe observes observed show shows showed shown
	find finds found report reports reported demonstrate demonstrates demonstrated confirm confirms confirmed
	predict predicts predicted discover discovers discovered publish publishes published kill kills killed`)

// transitions open a sentence that, without a mark, states nothing to
// check: summaries, hedges, signposts of the text itself.
var transitions = func() map[string]bool {
	m := map[string]bool{}
	for _, p := range strings.Split(`however|overall|in summary|in short|in sum|in brief|in conclusion|to summarize|
		to summarise|to conclude|to sum up|on balance|taken together|that said|in other words|perhaps|maybe|
		possibly|arguably|it is unclear|it is uncertain|it is possible|it is worth|it remains|it seems|it appears|
		this section|this summary|this report|this review|this overview|this answer|this document|the following|
		below|here|we|let|more research|further research|more work|further work|more evidence|further evidence|
		questions remain|much remains`, "|") {
		m[strings.TrimSpace(p)] = true
	}
	return m
}()

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

func skipSpace(text string, i, end int) int {
	for i < end && isSpace(text[i]) {
		i++
	}
	return i
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

func isASCIILetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
