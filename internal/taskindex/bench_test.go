package taskindex

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchDocs are n fragments of 20 lexemes each out of a 5,000-word
// vocabulary (Zipf-like), with dim-dimensional unit vectors, all seeded.
func benchDocs(n, dim int) ([]Doc, []string) {
	r := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 5000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%d", i)
	}
	word := func() string { return vocab[int(float64(len(vocab))*r.Float64()*r.Float64())] }
	docs := make([]Doc, n)
	for i := range docs {
		d := Doc{ID: int64(i + 1), Domain: fmt.Sprintf("site%d.org", i%50), Vec: make([]float32, dim)}
		seen := map[string]bool{}
		for len(d.Lexemes) < 20 {
			if w := word(); !seen[w] {
				seen[w] = true
				d.Lexemes = append(d.Lexemes, w)
				d.Counts = append(d.Counts, 1+int32(r.IntN(3)))
			}
		}
		for k := range d.Vec {
			d.Vec[k] = float32(r.NormFloat64())
		}
		docs[i] = d
	}
	query := make([]string, 8)
	for i := range query {
		query[i] = word()
	}
	return docs, query
}

// BenchmarkBuild indexes 10,000 fragments of the built-in embedder's 356
// dimensions (the embeddings rounded to int8 as they are added).
func BenchmarkBuild(b *testing.B) {
	docs, _ := benchDocs(10000, 356)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Build(docs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCandidates recalls a claim of 8 lexemes among the 10,000
// fragments: BM25, the best 200, their cosines with the claim.
func BenchmarkCandidates(b *testing.B) {
	docs, lexemes := benchDocs(10000, 356)
	ix, err := Build(docs)
	if err != nil {
		b.Fatal(err)
	}
	q := Query{Lexemes: lexemes, Vec: docs[0].Vec}
	b.ReportAllocs()
	for b.Loop() {
		if len(ix.Candidates(q, 200)) == 0 {
			b.Fatal("no candidates")
		}
	}
}

// BenchmarkExtend adds one page version of 7 fragments to an index of
// 10,000 (a task whose crawl goes on), against BenchmarkBuild's 10,000 at
// once; the fragments come as Postgres's tsvector text, as they do in a
// worker.
func BenchmarkExtend(b *testing.B) {
	docs := pagedDocs(10007)
	for i := range docs {
		docs[i].Vec = append(docs[i].Vec, make([]float32, 356-len(docs[i].Vec))...)
	}
	ix, err := Build(docs[:10000])
	if err != nil {
		b.Fatal(err)
	}
	last := docs[10000:]
	texts := make([][]byte, len(last))
	for i, d := range last {
		texts[i] = []byte(tsvectorText(d))
	}
	changed, more, _ := ix.Changes(counts(docs))
	b.ReportAllocs()
	for b.Loop() {
		x := ix.Extend(changed, more)
		for i, d := range last {
			if err := x.Add(d.PageVersion, d.ID, []byte(d.Domain), texts[i], d.Vec); err != nil {
				b.Fatal(err)
			}
		}
		if x.Finish().Len() != len(docs) {
			b.Fatal("fragments lost")
		}
	}
}
