package bench

import (
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tabula/games/othello"
	"tabula/players"
)

func othelloGame(t testing.TB, size int) *othello.Game {
	t.Helper()
	g, err := othello.New(size)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// tinySet generates a small labelled 6x6 set.
func tinySet(t testing.TB) *OthelloSet {
	t.Helper()
	sets, stats, err := GenerateOthelloSets(context.Background(), OthelloSetsConfig{
		Game: othelloGame(t, 6), Buckets: []OthelloBucket{{5, 8, 30}}, Seed: 3,
		Players: []string{"random", "alphabeta:depth=2"}, OpeningPlies: 4, Epsilon: 0.1, TTBits: 12, Workers: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Games < 30 || len(sets) != 1 || len(sets[0].Positions) != 30 {
		t.Fatalf("%d games, %d sets", stats.Games, len(sets))
	}
	return sets[0]
}

// naiveScores is the exact score of every legal move by plain minimax (FFO
// convention: empties to the winner).
func naiveScores(st *othello.State) map[int]int {
	out := map[int]int{}
	for _, a := range st.LegalActions(nil) {
		c := st.Clone().(*othello.State)
		c.ApplyAction(a)
		out[a] = -naiveValue(c)
	}
	return out
}

func naiveValue(st *othello.State) int {
	legal := st.LegalActions(nil)
	if len(legal) == 0 {
		g := st.Game().(*othello.Game)
		p, o := st.Boards()
		np, no := othello.Count(p), othello.Count(o)
		e := g.Size()*g.Size() - np - no
		switch {
		case np > no:
			return np - no + e
		case np < no:
			return np - no - e
		}
		return 0
	}
	best := math.MinInt
	for _, a := range legal {
		c := st.Clone().(*othello.State)
		c.ApplyAction(a)
		best = max(best, -naiveValue(c))
	}
	return best
}

func TestGenerateWriteRead(t *testing.T) {
	set := tinySet(t)
	seen := map[string]bool{}
	for _, p := range set.Positions {
		if e := p.Empties(); e < 5 || e > 8 {
			t.Errorf("%s: %d empties", p.Moves, e)
		}
		if len(p.Labels) < 2 {
			t.Errorf("%s: %d moves", p.Moves, len(p.Labels))
		}
		want := naiveScores(p.State)
		for _, l := range p.Labels {
			if want[l.Action] != l.Score {
				t.Errorf("%s: move %s labelled %d, minimax %d", p.Moves, set.Game.FormatAction(l.Action), l.Score, want[l.Action])
			}
		}
		if seen[p.State.String()] {
			t.Errorf("%s: position twice", p.Moves)
		}
		seen[p.State.String()] = true
	}
	set.Header = []string{"a note"}
	data := WriteOthelloSet(set)
	back, err := ReadOthelloSet(bytes.NewReader(data), "tiny.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	if back.Name != "tiny" || back.Game.Name() != "othello:size=6" || back.Bucket() != "5-8" || !slices.Equal(back.Header, []string{"a note"}) {
		t.Errorf("read back: name %s game %s bucket %s header %q", back.Name, back.Game.Name(), back.Bucket(), back.Header)
	}
	if len(back.Positions) != len(set.Positions) {
		t.Fatalf("read back %d positions, wrote %d", len(back.Positions), len(set.Positions))
	}
	for i, p := range back.Positions {
		q := set.Positions[i]
		if p.Moves != q.Moves || !slices.Equal(p.Labels, q.Labels) || p.State.Hash() != q.State.Hash() {
			t.Errorf("position %d: read %s %v, wrote %s %v", i, p.Moves, p.Labels, q.Moves, q.Labels)
		}
	}
	if !bytes.Equal(WriteOthelloSet(back), data) {
		t.Error("writing the set read back gives other bytes")
	}
	// The same config gives the same set, whatever the workers.
	again := tinySet(t)
	again.Header = set.Header
	if !bytes.Equal(WriteOthelloSet(again), data) {
		t.Error("a second generation with the same seed differs")
	}
}

func TestGenerateCritical(t *testing.T) {
	sets, _, err := GenerateOthelloSets(context.Background(), OthelloSetsConfig{
		Game: othelloGame(t, 6), Buckets: []OthelloBucket{{5, 8, 10}}, Seed: 3, Critical: true,
		Players: []string{"random", "alphabeta:depth=2"}, OpeningPlies: 4, Epsilon: 0.1, TTBits: 12, Workers: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sets[0].Positions) != 10 {
		t.Fatalf("%d positions, want 10", len(sets[0].Positions))
	}
	for _, p := range sets[0].Positions {
		if !p.critical() {
			t.Errorf("%s: no move is a mistake: %v", p.Moves, p.Labels)
		}
	}
}

func TestReadOthelloSetErrors(t *testing.T) {
	const head = "# game othello:size=6\n# empties 20-32\n"
	good := "e4 e3:+0 c5:+0 e5:-2"
	for _, tc := range []struct {
		name, text, want string
	}{
		{"no game", "c4 c3:1\n", "x.txt:1: no game"},
		{"bad game", "# game chess\n", "x.txt:1: game line"},
		{"not othello", "# game connect4\n", "not othello"},
		{"bad range", "# empties 9-4\n", "x.txt:1: empties line"},
		{"bad move", head + "e4z9 a1:+2\n", "x.txt:3: move 2"},
		{"illegal move", head + "e4a1 a1:+2\n", "x.txt:3: move 2 (a1)"},
		{"label syntax", head + "e4 e3=2\n", "x.txt:3: label \"e3=2\": want MOVE:SCORE"},
		{"label score", head + "e4 e3:x\n", "score \"x\""},
		{"label range", head + "e4 e3:+40\n", "score \"+40\""},
		{"label illegal", head + "e4 a1:+2\n", "a1 is not a legal move"},
		{"label twice", head + "e4 e3:+2 e3:+2\n", "e3 labelled twice"},
		{"label missing", head + "e4 e3:+2\n", "legal moves without a label: c5 e5"},
		{"outside bucket", "# game othello:size=6\n# empties 8-12\n" + good + "\n", "x.txt:3: position e4 has 31 empty squares, outside the set's 8-12"},
		{"second line bad", head + good + "\ne4 e3:+0\n", "x.txt:4:"},
		{"game after data", head + good + "\n# game othello:size=6\n", "x.txt:4: game line after positions"},
		{"other game", "# game othello\n", "the set is of othello:size=8, not othello:size=6"},
		{"crc syntax", head + good + "\n# crc32 xyz\n", "x.txt:4: crc32"},
		{"crc mismatch", head + good + "\n# crc32 00000000\n", "x.txt:4: checksum mismatch"},
		{"text after crc", head + "# crc32 " + crcOf(head) + "\n" + good + "\n", "x.txt:4: text after the crc32 line"},
	} {
		g := othelloGame(t, 6)
		if tc.name == "no game" {
			g = nil
		}
		_, err := ReadOthelloSet(strings.NewReader(tc.text), "x.txt", g)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	// A good file, with and without its checksum.
	for _, text := range []string{head + good + "\n", head + good + "\n# crc32 " + crcOf(head+good+"\n") + "\n\n"} {
		set, err := ReadOthelloSet(strings.NewReader(text), "x.txt", nil)
		if err != nil || len(set.Positions) != 1 || set.Positions[0].Line != 3 {
			t.Errorf("good file: %v", err)
		}
	}
}

func crcOf(s string) string {
	return fmt.Sprintf("%08x", crc32.ChecksumIEEE([]byte(s)))
}

func FuzzReadOthelloSet(f *testing.F) {
	f.Add("# game othello:size=6\n# empties 20-32\ne4 e3:+0 c5:+0 e5:-2\n")
	f.Add("e4 e3:+0 c5:+0 e5:-2\n# crc32 00000000\n")
	f.Add("# game othello\nf5d6c3 pass:4\n")
	f.Add("- c4:+2 d3:1 e3 f4:\n")
	g := mustOthello(6)
	f.Fuzz(func(t *testing.T, text string) {
		set, err := ReadOthelloSet(strings.NewReader(text), "fuzz", g)
		if err != nil {
			return
		}
		// What parses writes back to a file that parses to the same.
		back, err := ReadOthelloSet(bytes.NewReader(WriteOthelloSet(set)), "fuzz2", g)
		if err != nil {
			t.Fatalf("written set does not parse: %v", err)
		}
		if len(back.Positions) != len(set.Positions) {
			t.Fatalf("%d positions, read back %d", len(set.Positions), len(back.Positions))
		}
		for i := range set.Positions {
			if !slices.Equal(back.Positions[i].Labels, set.Positions[i].Labels) {
				t.Fatalf("position %d: labels %v, read back %v", i, set.Positions[i].Labels, back.Positions[i].Labels)
			}
		}
	})
}

func mustOthello(size int) *othello.Game {
	g, err := othello.New(size)
	if err != nil {
		panic(err)
	}
	return g
}

// TestBenchOthello: the solver as a player makes no mistake and loses no
// disc; random's mistake rate and disc loss average, over many seeds, to
// what the labels say they should.
func TestBenchOthello(t *testing.T) {
	set := tinySet(t)
	g := set.Game
	ctx := context.Background()
	solver, err := players.Build(g, players.Spec{Kind: "solver", Params: []players.Param{{Key: "tt", Value: "12"}}})
	if err != nil {
		t.Fatal(err)
	}
	var recs []OthelloRecord
	res, err := BenchOthello(ctx, OthelloBenchConfig{Record: func(r OthelloRecord) error { recs = append(recs, r); return nil }}, solver, set)
	if err != nil {
		t.Fatal(err)
	}
	if res.Positions != len(set.Positions) || res.Mistakes != 0 || res.DiscLoss != 0 || res.Perfect != res.Positions || len(recs) != res.Positions {
		t.Errorf("solver: %+v, %d records", res, len(recs))
	}
	if recs[0].Set != set.Name || recs[0].Bucket != "5-8" || recs[0].Value == nil || *recs[0].Value != float64(recs[0].Best) {
		t.Errorf("record: %+v", recs[0])
	}
	// Random, judged by the labels: expectations per position.
	var wantMistakes, wantLoss float64
	critical := 0
	for _, p := range set.Positions {
		best := p.Best()
		k := float64(len(p.Labels))
		crit := false
		for _, l := range p.Labels {
			if IsOthelloMistake(best, l.Score) {
				wantMistakes += 1 / k
				crit = true
			}
			wantLoss += float64(best-l.Score) / k
		}
		if crit {
			critical++
		}
	}
	if critical == 0 {
		t.Fatal("no position where a mistake is possible: the test proves nothing")
	}
	random, err := players.Build(g, players.Spec{Kind: "random"})
	if err != nil {
		t.Fatal(err)
	}
	const runs = 300
	var mistakes, loss float64
	for seed := range uint64(runs) {
		res, err := BenchOthello(ctx, OthelloBenchConfig{Seed: seed}, random, set)
		if err != nil {
			t.Fatal(err)
		}
		if res.Critical != critical {
			t.Fatalf("critical %d, want %d", res.Critical, critical)
		}
		mistakes += float64(res.Mistakes)
		loss += float64(res.DiscLoss)
	}
	n := float64(len(set.Positions))
	gotRate, wantRate := mistakes/runs/n, wantMistakes/n
	gotLoss, wantMean := loss/runs/n, wantLoss/n
	if math.Abs(gotRate-wantRate) > 0.03 || math.Abs(gotLoss-wantMean) > 0.1*wantMean+0.2 {
		t.Errorf("random: mistake rate %.3f, mean disc loss %.2f; expected %.3f, %.2f", gotRate, gotLoss, wantRate, wantMean)
	}
	// A player whose move is not labelled (a wrong set) is an error.
	set.Positions[0].Labels = set.Positions[0].Labels[:1]
	first, err := players.Build(g, players.Spec{Kind: "solver", Params: []players.Param{{Key: "tt", Value: "12"}}})
	if err != nil {
		t.Fatal(err)
	}
	set.Positions[0].Labels[0].Action = g.Pass() // never the solver's choice here
	if _, err := BenchOthello(ctx, OthelloBenchConfig{}, first, set); err == nil || !strings.Contains(err.Error(), ":") {
		t.Errorf("unlabelled move: error %v", err)
	}
}

// TestShippedOthelloSets checks the sets in data/othello: each parses with
// its checksum, holds its bucket, and a sample of every bucket agrees with
// the solver (a narrow-window search around each label proves it exact).
func TestShippedOthelloSets(t *testing.T) {
	files, err := filepath.Glob("../data/othello/othello*-e*.txt") // the sets, not the openings
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"othello6-e08-12", "othello6-e13-16", "othello6-e17-20", "othello6-e21-24", "othello8-e08-12", "othello8-e13-16", "othello8-e17-20",
		"othello6-critical-e08-12", "othello6-critical-e13-16", "othello6-critical-e17-20", "othello8-critical-e08-12", "othello8-critical-e13-16",
		"othello6-heldout-e08-12", "othello6-heldout-e13-16", "othello6-heldout-e17-20", "othello8-heldout-e08-12", "othello8-heldout-e13-16", "othello8-heldout-e17-20"} {
		if !slices.Contains(files, "../data/othello/"+want+".txt") {
			t.Errorf("data/othello/%s.txt is missing", want)
		}
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte("\n# crc32 ")) {
			t.Errorf("%s: no checksum line", file)
		}
		set, err := ReadOthelloSet(bytes.NewReader(data), file, nil)
		if err != nil {
			t.Fatal(err)
		}
		if set.MaxEmpties == 0 || len(set.Positions) < 40 {
			t.Errorf("%s: bucket %s, %d positions", file, set.Bucket(), len(set.Positions))
		}
		if strings.Contains(set.Name, "critical") {
			for _, p := range set.Positions {
				if !p.critical() {
					t.Errorf("%s:%d: no move is a mistake in a critical set", file, p.Line)
				}
			}
		}
		sv, err := NewOthelloSolver(set.Game, 18)
		if err != nil {
			t.Fatal(err)
		}
		// The sample: the positions with the fewest empties (cheap), a
		// few of them, one in the costly buckets.
		sample := slices.Clone(set.Positions)
		slices.SortStableFunc(sample, func(a, b OthelloPosition) int { return a.Empties() - b.Empties() })
		n := 3
		if set.MaxEmpties > 16 {
			n = 1
		}
		if testing.Short() && set.MaxEmpties > 20 {
			continue
		}
		rng := rand.New(rand.NewPCG(1, 2))
		picks := []OthelloPosition{sample[0]}
		for len(picks) < n {
			picks = append(picks, sample[rng.IntN(len(sample)/4+1)])
		}
		for _, p := range picks {
			for _, l := range p.Labels {
				c := p.State.Clone().(*othello.State)
				c.ApplyAction(l.Action)
				mover, opp := c.Boards()
				// The child's score for its mover is -l.Score: a search
				// with window (-l-1, -l+1) returns it exactly.
				v, _ := sv.Search(mover, opp, -l.Score-1, -l.Score+1)
				if -v != l.Score {
					t.Errorf("%s:%d (%s): move %s labelled %+d, the solver says %+d (window search)",
						file, p.Line, p.Moves, set.Game.FormatAction(l.Action), l.Score, -v)
				}
			}
		}
	}
}
