package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tabula/games"
	"tabula/players/playerstest"
)

// TestEvalCache saves a memo's searches and loads them into a memo whose
// search fails: the positions searched before are answered from the
// cache (a mirror image too), a new one is searched; a cache of another
// -eval spec is not taken; a damaged file is an error naming it.
func TestEvalCache(t *testing.T) {
	g := playerstest.MustGame(t, "othello")
	path := filepath.Join(t.TempDir(), "b.book.searches")
	calls := 0
	m := newEvalMemo(g, "alphabeta:depth=2", func(s games.State) (float64, error) {
		calls++
		return float64(len(s.LegalActions(nil))) / 20, nil
	})
	var positions []games.State
	s := g.NewInitialState()
	for range 6 {
		s.ApplyAction(s.LegalActions(nil)[0])
		positions = append(positions, s.Clone())
	}
	want := map[int]float64{}
	ev := m.Eval()
	for i, p := range positions {
		v, err := ev(p)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = v
		ev(p) // remembered
	}
	if calls != len(positions) || m.searches != calls {
		t.Fatalf("%d searches (%d counted) of %d positions, each asked twice", calls, m.searches, len(positions))
	}
	if err := m.save(path); err != nil {
		t.Fatal(err)
	}

	broken := errors.New("searched again")
	m2 := newEvalMemo(g, "alphabeta:depth=2", func(games.State) (float64, error) { return 0, broken })
	if reused, why, err := m2.load(path); !reused || err != nil {
		t.Fatalf("load: %v %q %v", reused, why, err)
	}
	ev2 := m2.Eval()
	for i, p := range positions {
		if v, err := ev2(p); err != nil || v != want[i] {
			t.Errorf("position %d from the cache: %v %v, want %v", i, v, err, want[i])
		}
	}
	// A mirror image of a cached position shares its value.
	sym := g.(games.Symmetric)
	if v, err := ev2(sym.TransformState(1, positions[3])); err != nil || v != want[3] {
		t.Errorf("a mirror image: %v %v, want %v", v, err, want[3])
	}
	s.ApplyAction(s.LegalActions(nil)[0])
	if _, err := ev2(s); !errors.Is(err, broken) {
		t.Errorf("a new position: %v, want it searched", err)
	}

	m3 := newEvalMemo(g, "alphabeta:depth=4", nil)
	if reused, why, err := m3.load(path); reused || err != nil || !strings.Contains(why, "depth=2") {
		t.Errorf("another -eval: %v %q %v, want not taken, saying why", reused, why, err)
	}
	data, _ := os.ReadFile(path)
	data[len(data)/2] ^= 1
	os.WriteFile(path, data, 0o644)
	if _, _, err := m2.load(path); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("a flipped bit: %v, want a checksum error", err)
	}
	os.WriteFile(path, []byte("TABBOOK1xxxxxxxxxxxxxxxxx"), 0o644)
	if _, _, err := m2.load(path); err == nil || !strings.Contains(err.Error(), "not a search cache") {
		t.Errorf("another file: %v, want refused", err)
	}
}
