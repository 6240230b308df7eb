package bench

import (
	"bufio"
	"context"
	"flag"
	"os"
	"strings"
	"tabula/players/playerstest"
	"testing"
	"time"

	"tabula/games"
	"tabula/games/connect4"
	_ "tabula/games/othello"
	refdata "tabula/internal/refdata/refdatatest"
	"tabula/search/c4solver"
)

var long = flag.Bool("long", false, "also run the slow checks (hard Connect Four benchmark sets)")

// readPrefix reads the first n positions of a Pons file.
func readPrefix(t *testing.T, name string, n int) ([]Position, []int) {
	t.Helper()
	path := refdata.Path(t, "connect4", name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	var scores []int
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(lines) < n {
		_, score, _, err := c4solver.ParsePosition(sc.Text())
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, sc.Text())
		scores = append(scores, score)
	}
	ps, err := ReadPositions(strings.NewReader(strings.Join(lines, "\n")), name)
	if err != nil {
		t.Fatal(err)
	}
	return ps, scores
}

// TestBenchSolverNoMistakes: the solver player makes no mistake on a prefix
// of each benchmark set, and a weak player does make some.
func TestBenchSolverNoMistakes(t *testing.T) {
	g := connect4.Game{}
	solver := playerstest.MustFactories(t, g, "solver:tt=22")[0]
	random := playerstest.MustFactories(t, g, "random")[0]
	sets := map[string]int{"Test_L3_R1": 20, "Test_L2_R1": 20, "Test_L2_R2": 5}
	if *long {
		// Early positions take the solver seconds to minutes each.
		sets["Test_L1_R1"], sets["Test_L1_R2"], sets["Test_L1_R3"] = 3, 2, 1
	}
	randomMistakes := 0
	for set, n := range sets {
		ps, scores := readPrefix(t, set, n)
		var recs []BenchRecord
		cfg := BenchConfig{SolverTableLog2: 22, Record: func(r BenchRecord) error { recs = append(recs, r); return nil }}
		start := time.Now()
		res, err := Bench(context.Background(), cfg, solver, ps)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d positions in %v", set, len(ps), time.Since(start))
		if res.Positions != len(ps) || res.Mistakes != 0 || len(recs) != len(ps) {
			t.Errorf("%s: solver: %d positions, %d mistakes, %d records", set, res.Positions, res.Mistakes, len(recs))
		}
		for i, r := range recs {
			if r.Position != ps[i].Moves || r.Value == nil || int(*r.Value) != maxScore(r.Outcomes) || r.Outcomes[r.Move-1] != maxScore(r.Outcomes) {
				t.Errorf("%s record %d: %+v", set, i, r)
			}
			// The best outcome agrees with the file's exact score.
			if maxScore(r.Outcomes) != outcomeClass(scores[i]) {
				t.Errorf("%s record %d: best outcome %d, file score %d", set, i, maxScore(r.Outcomes), scores[i])
			}
		}
		rr, err := Bench(context.Background(), BenchConfig{SolverTableLog2: 22, Seed: 3}, random, ps)
		if err != nil {
			t.Fatal(err)
		}
		randomMistakes += rr.Mistakes
	}
	if randomMistakes == 0 {
		t.Error("random play made no mistake at all: the verdicts are suspect")
	}
}

func maxScore(s [7]int) int {
	m := c4solver.Invalid
	for _, v := range s {
		m = max(m, v)
	}
	return m
}

func TestIsMistake(t *testing.T) {
	full := c4solver.Invalid
	for _, tc := range []struct {
		scores [7]int
		move   int
		want   bool
	}{
		{[7]int{-3, 0, 5, 2, full, -1, 0}, 2, false},
		{[7]int{-3, 0, 5, 2, full, -1, 0}, 3, false}, // a slower win is still a win
		{[7]int{-3, 0, 5, 2, full, -1, 0}, 1, true},  // draw when a win exists
		{[7]int{-3, 0, -5, -2, full, -1, 0}, 6, false},
		{[7]int{-3, 0, -5, -2, full, -1, 0}, 0, true}, // loss when a draw exists
		{[7]int{-3, -9, -5, -2, full, -1, -4}, 1, false},
	} {
		if got := IsMistake(tc.scores, tc.move); got != tc.want {
			t.Errorf("IsMistake(%v, %d) = %v, want %v", tc.scores, tc.move, got, tc.want)
		}
	}
}

func TestSolveMatchesRefdata(t *testing.T) {
	sv, err := c4solver.New(20)
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range []string{"Test_L3_R1", "Test_L2_R1", "Test_L1_R1"} {
		path := refdata.Path(t, "connect4", set)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitN(string(data), "\n", 11)[:10]
		var out strings.Builder
		// Trailing scores are ignored: feed half the lines without them.
		in := make([]string, len(lines))
		for i, l := range lines {
			in[i] = l
			if i%2 == 0 {
				in[i] = strings.Fields(l)[0]
			}
		}
		if err := Solve(context.Background(), strings.NewReader(strings.Join(in, "\n")+"\n\n"), set, &out, false, sv); err != nil {
			t.Fatal(err)
		}
		if got, want := strings.TrimSpace(out.String()), strings.Join(lines, "\n"); got != want {
			t.Errorf("%s: solve output\n%s\nwant\n%s", set, got, want)
		}
	}
}

func TestSolveErrorsNameLine(t *testing.T) {
	sv, _ := c4solver.New(12)
	var out strings.Builder
	err := Solve(context.Background(), strings.NewReader("2252576253462244111563365343671351441\n\n44444444\n"), "in.txt", &out, true, sv)
	if err == nil || !strings.Contains(err.Error(), "in.txt:3") {
		t.Errorf("error %v, want one naming in.txt:3", err)
	}
	if got := out.String(); !strings.HasPrefix(got, "2252576253462244111563365343671351441 ") || len(strings.Fields(got)) != 8 {
		t.Errorf("-all line %q, want the moves and 7 scores", got)
	}
	if _, err := ReadPositions(strings.NewReader("12\n1x\n"), "p"); err == nil || !strings.Contains(err.Error(), "p:2") {
		t.Errorf("ReadPositions error %v, want one naming p:2", err)
	}
}

// FuzzReadPositions checks the position reader never panics and that every
// position it accepts replays to the same state.
func FuzzReadPositions(f *testing.F) {
	for _, s := range []string{"4453 -2\n", "\n\n12\n", "4444444\n", "1x\n", "2252576253462244111563365343671351441 -1\n1 2 3\n"} {
		f.Add(s)
	}
	g := connect4.Game{}
	f.Fuzz(func(t *testing.T, text string) {
		ps, err := ReadPositions(strings.NewReader(text), "fuzz")
		if err != nil {
			return
		}
		for _, p := range ps {
			s, _, err := games.ParseAndReplay(g, p.Moves)
			if err != nil {
				t.Fatalf("accepted %q, which does not replay: %v", p.Moves, err)
			}
			if s.Hash() != p.State.Hash() {
				t.Fatalf("%q: state differs from its replay", p.Moves)
			}
		}
	})
}
