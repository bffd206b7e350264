package cost_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/cost"
)

func TestMeterCountsWhatClientsReport(t *testing.T) {
	t.Parallel()
	ctx, m := cost.WithMeter(context.Background())
	if cost.From(ctx) != m {
		t.Fatal("From does not return the meter WithMeter put in the context")
	}
	cost.From(ctx).Request(cost.ModelCall)
	cost.From(ctx).Request(cost.ModelCall)
	cost.From(ctx).Request(cost.AcademicCall)
	cost.From(ctx).Tokens(120, 30)
	cost.From(ctx).Tokens(7, -4) // a negative report counts as 0
	cost.From(ctx).Search()
	cost.From(ctx).Fetch(2048)
	cost.From(ctx).Fetch(-1)
	want := cost.Counts{ModelCalls: 2, TokensIn: 127, TokensOut: 30, Searches: 1, AcademicCalls: 1, Fetches: 2, FetchBytes: 2048}
	if got := m.Counts(); got != want {
		t.Errorf("counts %+v, want %+v", got, want)
	}
}

func TestNilMeterCountsNothing(t *testing.T) {
	t.Parallel()
	m := cost.From(context.Background())
	if m != nil {
		t.Fatalf("a context without a meter gave %v", m)
	}
	m.Request(cost.ModelCall)
	m.Tokens(1, 1)
	m.Search()
	m.Fetch(10)
	if got := m.Counts(); !got.IsZero() {
		t.Errorf("a nil meter counted %+v", got)
	}
}

func TestMeterIsSafeForConcurrentUse(t *testing.T) {
	t.Parallel()
	ctx, m := cost.WithMeter(context.Background())
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 100 {
				cost.From(ctx).Request(cost.ModelCall)
				cost.From(ctx).Tokens(3, 1)
				cost.From(ctx).Fetch(5)
			}
		})
	}
	wg.Wait()
	want := cost.Counts{ModelCalls: 1600, TokensIn: 4800, TokensOut: 1600, Fetches: 1600, FetchBytes: 8000}
	if got := m.Counts(); got != want {
		t.Errorf("counts %+v, want %+v", got, want)
	}
}

func TestCountsPlusAndItems(t *testing.T) {
	t.Parallel()
	a := cost.Counts{ModelCalls: 1, TokensIn: 2, TokensOut: 3, Searches: 4, AcademicCalls: 5, Fetches: 6, FetchBytes: 7}
	if got, want := a.Plus(a), (cost.Counts{2, 4, 6, 8, 10, 12, 14}); got != want {
		t.Errorf("Plus %+v, want %+v", got, want)
	}
	if a.IsZero() || !(cost.Counts{}).IsZero() {
		t.Error("IsZero is wrong")
	}
	// Items name Values in order, as the JSON names of Counts.
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var byName map[string]int64
	if err := json.Unmarshal(b, &byName); err != nil {
		t.Fatal(err)
	}
	vals := a.Values()
	if len(cost.Items) != len(vals) || len(byName) != len(vals) || reflect.TypeOf(a).NumField() != len(vals) {
		t.Fatalf("%d items, %d values, %d JSON fields", len(cost.Items), len(vals), len(byName))
	}
	for i, item := range cost.Items {
		if byName[item] != vals[i] {
			t.Errorf("item %s: JSON %d, Values %d (%s)", item, byName[item], vals[i], strings.Join(cost.Items, ","))
		}
	}
}
