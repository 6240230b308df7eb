package endgame

import (
	"fmt"
	"testing"

	"tabula/games"
	"tabula/games/connect4"
	"tabula/internal/refdata/refdatatest"
	"tabula/mcts"
	"tabula/search/c4solver"
)

func loadPons(tb testing.TB, name string) []c4solver.Position {
	tb.Helper()
	path := refdatatest.Path(tb, "connect4", name)
	ps, err := c4solver.ReadSetFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	for _, p := range ps {
		if !p.HasScore {
			tb.Fatalf("%s line %d: %q: no score", path, p.Line, p.Moves)
		}
	}
	return ps
}

// forPlayer0 turns a value for the player to move of st into one for
// player 0, the prover's convention.
func forPlayer0(st games.State, v float32) float32 {
	if st.CurrentPlayer() != 0 {
		return -v
	}
	return v
}

// TestProveConnect4AgreesWithPons checks the Connect Four prover's verdicts
// against the published scores of Pons' end and middle sets (1-27 empty
// cells), and that it declines every position beyond its reach.
func TestProveConnect4AgreesWithPons(t *testing.T) {
	g := newGame(t, "connect4")
	cfg := mcts.DefaultConfig()
	cfg.Endgame = 16
	if err := Configure(&cfg, g); err != nil {
		t.Fatal(err)
	}
	pr := cfg.Prover.NewProver().(*Connect4)
	seen := map[float32]int{}
	declined := 0
	for _, set := range []string{"Test_L3_R1", "Test_L2_R1"} {
		for i, p := range loadPons(t, set) {
			v, ok := pr.Prove(p.State)
			empties := connect4.Cells - p.State.MoveNumber()
			if empties > cfg.Endgame {
				if ok {
					t.Fatalf("%s #%d: %d empties proven (%v) beyond endgame=%d", set, i+1, empties, v, cfg.Endgame)
				}
				declined++
				continue
			}
			if !ok {
				t.Fatalf("%s #%d: %d empties not proven", set, i+1, empties)
			}
			if want := forPlayer0(p.State, float32(max(-1, min(1, p.Score)))); v != want {
				t.Fatalf("%s #%d (%d empties): prover says %v for player 0, Pons' score %d gives %v", set, i+1, empties, v, p.Score, want)
			}
			seen[v]++
		}
	}
	if seen[1] == 0 || seen[-1] == 0 || seen[0] == 0 || declined == 0 {
		t.Errorf("verdicts %v, %d declined: want wins, draws and losses for player 0, and some declined", seen, declined)
	}
	if pr.Solved != int64(seen[1]+seen[0]+seen[-1]) || pr.Nodes() == 0 {
		t.Errorf("Solved %d, Nodes %d: want one count per proof and nodes searched", pr.Solved, pr.Nodes())
	}
}

// TestSearchWithEndgameConnect4 searches Pons positions whose moves differ
// in outcome with a network that misleads (value 0 and a prior of 0.99 on a
// worse move). With endgame on and every child within reach, the network is
// asked about the root alone and the move played achieves the position's
// outcome; without it the favoured move draws many visits.
func TestSearchWithEndgameConnect4(t *testing.T) {
	g := newGame(t, "connect4")
	ref, err := c4solver.New(20)
	if err != nil {
		t.Fatal(err)
	}
	tested := 0
	for _, p := range loadPons(t, "Test_L2_R1") {
		if tested == 25 {
			break
		}
		if connect4.Cells-p.State.MoveNumber() > 15 {
			continue
		}
		vals := map[int]float32{}
		best := float32(-2)
		for c, o := range ref.OutcomeMoves(p.State) {
			if o != c4solver.Invalid {
				vals[c] = float32(o)
				best = max(best, float32(o))
			}
		}
		favour, fv := -1, float32(-2)
		for a, v := range vals {
			if v < best && (v > fv || v == fv && a < favour) {
				favour, fv = a, v
			}
		}
		if favour < 0 {
			continue // every move has the same outcome
		}
		tested++
		res, calls := searchMisled(t, g, p.State, 200, 14, favour, uint64(tested))
		if calls != 1 {
			t.Errorf("position %d: the network was asked about %d positions, want 1 (the root)", tested, calls)
		}
		if vals[res.Action] != best || res.Value != best {
			t.Errorf("position %d: played %d worth %v (root value %v), the best move is worth %v (all: %v)\n%v",
				tested, res.Action, vals[res.Action], res.Value, best, vals, p.State)
		}
	}
	if tested < 10 {
		t.Fatalf("only %d positions with moves of different outcomes", tested)
	}
}

// BenchmarkProveConnect4 measures one weak solve of Pons positions (middle
// and end sets) with a given number of empty cells, with a prover's own
// 2^14-entry table kept across positions as in a search: what a leaf costs
// against a network evaluation. The table is cleared whenever the positions
// come round again, so none is found solved.
func BenchmarkProveConnect4(b *testing.B) {
	g := newGame(b, "connect4")
	var all []c4solver.Position
	for _, set := range []string{"Test_L3_R1", "Test_L2_R1", "Test_L2_R2"} {
		all = append(all, loadPons(b, set)...)
	}
	for _, empties := range []int{8, 12, 14, 16, 18, 20} {
		b.Run(fmt.Sprintf("e%d", empties), func(b *testing.B) {
			var pos []games.State
			for _, p := range all {
				if connect4.Cells-p.State.MoveNumber() == empties {
					pos = append(pos, p.State)
				}
			}
			if len(pos) == 0 {
				b.Skipf("no Pons position with %d empties", empties)
			}
			cfg := mcts.DefaultConfig()
			cfg.Endgame = empties
			if err := Configure(&cfg, g); err != nil {
				b.Fatal(err)
			}
			pr := cfg.Prover.NewProver().(*Connect4)
			benchProofs(b, pr, pr.solver.Reset, pos)
		})
	}
}
