package rank

import (
	"math"
	"slices"
	"strings"
	"testing"
)

const eps = 1e-12

func near(a, b float64) bool { return math.Abs(a-b) <= eps }

func TestTrustWeight(t *testing.T) {
	t.Parallel()
	tests := []struct {
		level string
		want  float64
	}{
		{Primary, 1.0},
		{Government, 0.95},
		{Academic, 0.90},
		{Trusted, 0.75},
		{Low, 0.40},
		{Unverified, 0.30},
		{Blocked, 0},
		{"", 0.30},        // no domain row: as UNVERIFIED
		{"SUSPECT", 0.30}, // unknown level: as UNVERIFIED
		{"primary", 0.30}, // levels are stored upper case; others are unknown
	}
	for _, tt := range tests {
		if got := TrustWeight(tt.level); got != tt.want {
			t.Errorf("TrustWeight(%q) = %v, want %v", tt.level, got, tt.want)
		}
	}
}

func TestExcludedLevels(t *testing.T) {
	t.Parallel()
	if got := ExcludedLevels(); !slices.Equal(got, []string{Blocked}) {
		t.Errorf("ExcludedLevels() = %v, want [BLOCKED]", got)
	}
}

func TestQueryHash(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		same bool
	}{
		{"Sea ice is melting", "Sea ice is melting", true},
		{"Sea ice is melting", "  sea ICE\tis\n melting ", true},
		{"Sea ice is melting", "Sea ice is not melting", false},
		{"Sea ice", "Seaice", false},
		{"", "   ", true},
	}
	for _, tt := range tests {
		ha, hb := QueryHash(tt.a), QueryHash(tt.b)
		if len(ha) != 64 || strings.Trim(ha, "0123456789abcdef") != "" {
			t.Errorf("QueryHash(%q) = %q, want 64 hex digits", tt.a, ha)
		}
		if (ha == hb) != tt.same {
			t.Errorf("QueryHash(%q) == QueryHash(%q) is %v, want %v", tt.a, tt.b, ha == hb, tt.same)
		}
	}
}

func TestNormalizeByMax(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []float64
		want []float64
	}{
		{"empty", []float64{}, []float64{}},
		{"best becomes 1", []float64{0.2, 0.1, 0.05}, []float64{1, 0.5, 0.25}},
		{"single", []float64{0.3}, []float64{1}},
		{"all zero", []float64{0, 0}, []float64{0, 0}},
		{"negative, NaN and Inf count as 0", []float64{-1, math.NaN(), math.Inf(1), 0.4}, []float64{0, 0, 0, 1}},
		{"ties", []float64{0.1, 0.1}, []float64{1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := NormalizeByMax(tt.in)
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if !near(got[i], tt.want[i]) {
					t.Errorf("got %v, want %v", got, tt.want)
					break
				}
			}
		})
	}
}

func TestCombine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		w, lex, cos, want float64
	}{
		{0.3, 1, 0, 0.3},
		{0.3, 0, 1, 0.7},
		{0.3, 0.5, 0.5, 0.5},
		{0.3, 1, 0.6, 0.72},
		{0, 1, 0.2, 0.2},
		{1, 0.4, 0.9, 0.4},
	}
	for _, tt := range tests {
		if got := Combine(tt.w, tt.lex, tt.cos); !near(got, tt.want) {
			t.Errorf("Combine(%v, %v, %v) = %v, want %v", tt.w, tt.lex, tt.cos, got, tt.want)
		}
	}
}

// Unit vectors whose cosine with query is 1, 0.6 and 0.
var (
	query = []float32{1, 0}
	cos1  = []float32{1, 0}
	cos06 = []float32{0.6, 0.8}
	cos0  = []float32{0, 1}
)

func fragmentIDs(es []Entry) []int64 {
	out := make([]int64, len(es))
	for i, e := range es {
		out[i] = e.FragmentID
	}
	return out
}

func TestShortlist(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		cands   []Candidate
		w       float64
		n       int
		wantIDs []int64
		check   func(t *testing.T, got []Entry)
	}{
		{
			name: "cosine outweighs lexical at w 0.3",
			cands: []Candidate{
				{FragmentID: 1, Lexical: 0.4, Embedding: cos0, TrustLevel: Unverified},  // 0.3·1 + 0 = 0.3
				{FragmentID: 2, Lexical: 0.2, Embedding: cos1, TrustLevel: Unverified},  // 0.3·0.5 + 0.7 = 0.85
				{FragmentID: 3, Lexical: 0.1, Embedding: cos06, TrustLevel: Unverified}, // 0.3·0.25 + 0.42 = 0.495
			},
			w: 0.3, wantIDs: []int64{2, 3, 1},
			check: func(t *testing.T, got []Entry) {
				want := map[int64][3]float64{2: {0.5, 1, 0.85}, 3: {0.25, 0.6, 0.495}, 1: {1, 0, 0.3}}
				for _, e := range got {
					w := want[e.FragmentID]
					if !near(e.LexicalNorm, w[0]) || math.Abs(e.Cosine-w[1]) > 1e-6 || math.Abs(e.Stage2-w[2]) > 1e-6 {
						t.Errorf("fragment %d: norm %v cosine %v stage2 %v, want %v", e.FragmentID, e.LexicalNorm, e.Cosine, e.Stage2, w)
					}
				}
			},
		},
		{
			name: "w 1 is the lexical order",
			cands: []Candidate{
				{FragmentID: 1, Lexical: 0.1, Embedding: cos1},
				{FragmentID: 2, Lexical: 0.3, Embedding: cos0},
				{FragmentID: 3, Lexical: 0.2, Embedding: cos06},
			},
			w: 1, wantIDs: []int64{2, 3, 1},
		},
		{
			name: "w 0 is the cosine order",
			cands: []Candidate{
				{FragmentID: 1, Lexical: 0.1, Embedding: cos06},
				{FragmentID: 2, Lexical: 0.3, Embedding: cos0},
				{FragmentID: 3, Lexical: 0.2, Embedding: cos1},
			},
			w: 0, wantIDs: []int64{3, 1, 2},
		},
		{
			name: "no embedding scores cosine 0",
			cands: []Candidate{
				{FragmentID: 1, Lexical: 0.2, Embedding: nil},
				{FragmentID: 2, Lexical: 0.2, Embedding: cos06},
			},
			w: 0.3, wantIDs: []int64{2, 1},
			check: func(t *testing.T, got []Entry) {
				if e := got[1]; e.Cosine != 0 || !near(e.Stage2, 0.3) {
					t.Errorf("unembedded fragment: cosine %v stage2 %v, want 0 and 0.3", e.Cosine, e.Stage2)
				}
			},
		},
		{
			name: "ties go to the lower fragment id",
			cands: []Candidate{
				{FragmentID: 9, Lexical: 0.2, Embedding: cos06},
				{FragmentID: 4, Lexical: 0.2, Embedding: cos06},
				{FragmentID: 7, Lexical: 0.2, Embedding: cos06},
			},
			w: 0.3, wantIDs: []int64{4, 7, 9},
		},
		{
			name: "blocked fragments are dropped and do not set the lexical maximum",
			cands: []Candidate{
				{FragmentID: 1, Lexical: 0.8, Embedding: cos1, TrustLevel: Blocked},
				{FragmentID: 2, Lexical: 0.4, Embedding: cos0, TrustLevel: Low},
				{FragmentID: 3, Lexical: 0.2, Embedding: cos0, TrustLevel: Primary},
			},
			w: 0.3, wantIDs: []int64{2, 3},
			check: func(t *testing.T, got []Entry) {
				if !near(got[0].LexicalNorm, 1) || !near(got[1].LexicalNorm, 0.5) {
					t.Errorf("lexical norms %v, %v; want 1 and 0.5 (normalised among the kept)", got[0].LexicalNorm, got[1].LexicalNorm)
				}
				if got[0].TrustWeight != 0.40 || got[1].TrustWeight != 1.0 {
					t.Errorf("trust weights %v, %v; want 0.4 and 1", got[0].TrustWeight, got[1].TrustWeight)
				}
			},
		},
		{
			name: "n keeps the best n",
			cands: []Candidate{
				{FragmentID: 1, Lexical: 0.1}, {FragmentID: 2, Lexical: 0.4},
				{FragmentID: 3, Lexical: 0.3}, {FragmentID: 4, Lexical: 0.2},
			},
			w: 1, n: 2, wantIDs: []int64{2, 3},
		},
		{
			name:  "n 0 keeps all",
			cands: []Candidate{{FragmentID: 1, Lexical: 0.1}, {FragmentID: 2, Lexical: 0.4}},
			w:     1, n: 0, wantIDs: []int64{2, 1},
		},
		{
			name:  "no candidates",
			cands: nil, w: 0.3, n: 5, wantIDs: []int64{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Shortlist(tt.cands, query, tt.w, tt.n)
			if err != nil {
				t.Fatal(err)
			}
			if ids := fragmentIDs(got); !slices.Equal(ids, tt.wantIDs) {
				t.Fatalf("order %v, want %v", ids, tt.wantIDs)
			}
			if tt.check != nil {
				tt.check(t, got)
			}
		})
	}
}

func TestShortlistRejectsBadWeight(t *testing.T) {
	t.Parallel()
	for _, w := range []float64{-0.1, 1.1, math.NaN()} {
		if _, err := Shortlist([]Candidate{{FragmentID: 1}}, query, w, 1); err == nil {
			t.Errorf("Shortlist with lexical weight %v: no error", w)
		}
	}
}

// entries fills in each entry's trust weight, as Shortlist would.
func entries(spec ...Entry) []Entry {
	out := make([]Entry, len(spec))
	for i, e := range spec {
		e.TrustWeight = TrustWeight(e.TrustLevel)
		out[i] = e
	}
	return out
}

func TestFinish(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		in        []Entry
		rerank    []float64
		k         int
		wantIDs   []int64
		wantFinal []float64
	}{
		{
			name:      "without trust differences the reranker decides",
			in:        entries(Entry{FragmentID: 1, TrustLevel: Trusted}, Entry{FragmentID: 2, TrustLevel: Trusted}, Entry{FragmentID: 3, TrustLevel: Trusted}),
			rerank:    []float64{1, 3, 2},
			wantIDs:   []int64{2, 3, 1},
			wantFinal: []float64{2.25, 1.5, 0.75},
		},
		{
			name:      "trust reorders close scores",
			in:        entries(Entry{FragmentID: 1, TrustLevel: Low}, Entry{FragmentID: 2, TrustLevel: Primary}),
			rerank:    []float64{2, 1},
			wantIDs:   []int64{2, 1},
			wantFinal: []float64{1, 0.8},
		},
		{
			name:      "trust does not overturn a large gap",
			in:        entries(Entry{FragmentID: 1, TrustLevel: Unverified}, Entry{FragmentID: 2, TrustLevel: Academic}),
			rerank:    []float64{10, 2},
			wantIDs:   []int64{1, 2},
			wantFinal: []float64{3, 1.8},
		},
		{
			name:      "equal final: higher stage 2 first",
			in:        entries(Entry{FragmentID: 1, Stage2: 0.2}, Entry{FragmentID: 2, Stage2: 0.9}),
			rerank:    []float64{1, 1},
			wantIDs:   []int64{2, 1},
			wantFinal: []float64{0.3, 0.3},
		},
		{
			name:      "equal final and stage 2: lower fragment id first",
			in:        entries(Entry{FragmentID: 8, Stage2: 0.5}, Entry{FragmentID: 3, Stage2: 0.5}, Entry{FragmentID: 5, Stage2: 0.5}),
			rerank:    []float64{0, 0, 0},
			wantIDs:   []int64{3, 5, 8},
			wantFinal: []float64{0, 0, 0},
		},
		{
			name:      "k keeps the best k",
			in:        entries(Entry{FragmentID: 1}, Entry{FragmentID: 2}, Entry{FragmentID: 3}, Entry{FragmentID: 4}),
			rerank:    []float64{4, 3, 2, 1},
			k:         2,
			wantIDs:   []int64{1, 2},
			wantFinal: []float64{1.2, 0.9},
		},
		{
			name:      "k larger than the entries keeps all",
			in:        entries(Entry{FragmentID: 1}, Entry{FragmentID: 2}),
			rerank:    []float64{1, 2},
			k:         10,
			wantIDs:   []int64{2, 1},
			wantFinal: []float64{0.6, 0.3},
		},
		{
			name: "negative scores are shifted so trust cannot favour the less trusted",
			// Raw product would give −1·0.4 = −0.4 > −1·1.0: LOW above PRIMARY at equal scores.
			in:        entries(Entry{FragmentID: 1, TrustLevel: Low}, Entry{FragmentID: 2, TrustLevel: Primary}, Entry{FragmentID: 3, TrustLevel: Primary}),
			rerank:    []float64{-1, -1, -3},
			wantIDs:   []int64{2, 1, 3},
			wantFinal: []float64{2, 0.8, 0},
		},
		{
			name:      "nothing to rank",
			in:        []Entry{},
			rerank:    []float64{},
			k:         5,
			wantIDs:   []int64{},
			wantFinal: []float64{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := slices.Clone(tt.in)
			got, err := Finish(tt.in, tt.rerank, tt.k)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(tt.in, before) {
				t.Errorf("Finish modified its input")
			}
			if ids := fragmentIDs(got); !slices.Equal(ids, tt.wantIDs) {
				t.Fatalf("order %v, want %v", ids, tt.wantIDs)
			}
			raw := map[int64]float64{}
			for i, e := range tt.in {
				raw[e.FragmentID] = tt.rerank[i]
			}
			for i, e := range got {
				if e.Rank != i+1 {
					t.Errorf("position %d has rank %d", i, e.Rank)
				}
				if !near(e.Final, tt.wantFinal[i]) {
					t.Errorf("fragment %d final %v, want %v", e.FragmentID, e.Final, tt.wantFinal[i])
				}
				// The raw rerank score and the weight are kept as they were.
				if e.Rerank != raw[e.FragmentID] || e.TrustWeight != TrustWeight(e.TrustLevel) {
					t.Errorf("fragment %d rerank %v weight %v, want raw %v and weight %v", e.FragmentID, e.Rerank, e.TrustWeight,
						raw[e.FragmentID], TrustWeight(e.TrustLevel))
				}
			}
		})
	}
}

func TestFinishRejectsBadScores(t *testing.T) {
	t.Parallel()
	in := entries(Entry{FragmentID: 1}, Entry{FragmentID: 2})
	tests := []struct {
		name   string
		rerank []float64
	}{
		{"too few", []float64{1}},
		{"too many", []float64{1, 2, 3}},
		{"NaN", []float64{1, math.NaN()}},
		{"Inf", []float64{math.Inf(-1), 1}},
	}
	for _, tt := range tests {
		if _, err := Finish(in, tt.rerank, 0); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}

// The whole pipeline on one example: trust changes the order and nothing else.
func TestTrustChangesOnlyTheOrder(t *testing.T) {
	t.Parallel()
	cands := []Candidate{
		{FragmentID: 1, Lexical: 0.3, Embedding: cos1, TrustLevel: Unverified},
		{FragmentID: 2, Lexical: 0.3, Embedding: cos1, TrustLevel: Unverified},
	}
	run := func(levels ...string) []Entry {
		t.Helper()
		cs := slices.Clone(cands)
		for i := range cs {
			cs[i].TrustLevel = levels[i]
		}
		s, err := Shortlist(cs, query, 0.3, 0)
		if err != nil {
			t.Fatal(err)
		}
		// The reranker prefers fragment 1 a little.
		scores := make([]float64, len(s))
		for i, e := range s {
			scores[i] = map[int64]float64{1: 0.8, 2: 0.7}[e.FragmentID]
		}
		out, err := Finish(s, scores, 0)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	plain := run(Unverified, Unverified)
	trusted := run(Unverified, Government)
	if got := fragmentIDs(plain); !slices.Equal(got, []int64{1, 2}) {
		t.Fatalf("equal trust: order %v, want [1 2]", got)
	}
	if got := fragmentIDs(trusted); !slices.Equal(got, []int64{2, 1}) {
		t.Fatalf("fragment 2 on a GOVERNMENT domain: order %v, want [2 1]", got)
	}
	byID := func(es []Entry) map[int64]Entry {
		m := map[int64]Entry{}
		for _, e := range es {
			m[e.FragmentID] = e
		}
		return m
	}
	p, q := byID(plain), byID(trusted)
	for id := range p {
		a, b := p[id], q[id]
		if a.Lexical != b.Lexical || a.LexicalNorm != b.LexicalNorm || a.Cosine != b.Cosine || a.Stage2 != b.Stage2 || a.Rerank != b.Rerank {
			t.Errorf("fragment %d: stage scores changed with trust: %+v vs %+v", id, a, b)
		}
	}
}
