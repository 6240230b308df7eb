package mcts

import (
	"context"
	"math"
	"strings"
	"testing"

	"tabula/games"
)

// TestGraphEntriesSumTheirNodes checks graph search's bookkeeping on real
// searches: in a fresh tree every entry holds exactly the visits and values
// of the nodes that stand for its position (and more after tree reuse, which
// keeps the entries of the nodes it drops), the tree's own invariants hold,
// nodes of one position agree on a proof, and positions do recur (the test
// would say nothing in a tree without transpositions).
func TestGraphEntriesSumTheirNodes(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Simulations, cfg.BatchSize = 400, 8
	cfg.DirichletEpsilon = 0
	cfg.Graph = true
	s := newRolloutSearch(t, cfg)
	st := position(t, "44")
	shared := 0
	for move := range 4 {
		r, err := s.Run(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		tr := &s.sr.t
		checkTree(t, tr)
		n := make([]int32, len(tr.tps))
		w := make([]float64, len(tr.tps))
		nodes := make([]int, len(tr.tps))
		for i, nd := range tr.nodes {
			if nd.status == nodeTerminal {
				continue
			}
			if nd.tp < 0 {
				if nd.n > 0 {
					t.Fatalf("move %d: node %d has %d visits but no entry", move, i, nd.n)
				}
				continue
			}
			te := tr.tps[nd.tp]
			if te.player != nd.player {
				t.Fatalf("move %d: node %d (player %d) shares an entry of player %d", move, i, nd.player, te.player)
			}
			if nd.solved && (!te.solved || te.sv != nd.sv) {
				t.Fatalf("move %d: node %d is solved at %v, its entry %+v", move, i, nd.sv, te)
			}
			n[nd.tp] += nd.n
			w[nd.tp] += float64(nd.w)
			nodes[nd.tp]++
		}
		for k, te := range tr.tps {
			if nodes[k] > 1 {
				shared++
			}
			fresh := move == 0 // no tree reuse yet: nothing was dropped
			if fresh && (te.n != n[k] || math.Abs(float64(te.w)-w[k]) > 1e-3*float64(te.n+1)) {
				t.Fatalf("move %d: entry %d holds n=%d w=%v, its %d nodes n=%d w=%v", move, k, te.n, te.w, nodes[k], n[k], w[k])
			}
			if te.n < n[k] {
				t.Fatalf("move %d: entry %d holds n=%d, fewer than its %d nodes' %d", move, k, te.n, nodes[k], n[k])
			}
		}
		st.ApplyAction(r.Action)
		if st.IsTerminal() {
			break
		}
		if err := s.Advance(r.Action); err != nil {
			t.Fatal(err)
		}
	}
	if shared == 0 {
		t.Fatal("no position had two nodes: no transposition was met")
	}
}

// TestGraphSolverAgreesWithMinimax checks that graph search proves the same
// values and plays moves of the same worth as minimax, and that sharing the
// proofs across transpositions solves the positions in fewer simulations
// than the tree does (measured: 80,256 against 385,736; without sharing
// the proofs, 397,598).
func TestGraphSolverAgreesWithMinimax(t *testing.T) {
	g := connect4Game(t)
	rng := newRNG(11)
	var legal []int
	var positions []games.State
	for len(positions) < 30 {
		s := g.NewInitialState()
		for !s.IsTerminal() && emptyCells(s) > 13 {
			legal = s.LegalActions(legal[:0])
			s.ApplyAction(legal[rng.IntN(len(legal))])
		}
		if !s.IsTerminal() {
			positions = append(positions, s)
		}
	}
	memo := map[uint64]int8{}
	sims := map[bool]int{}
	for _, graph := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.Simulations = 1 << 20
		cfg.DirichletEpsilon, cfg.TemperatureMoves = 0, 0
		cfg.Graph = graph
		for k, s := range positions {
			search, r := runSearch(t, cfg, UniformEvaluator{}, uint64(k), s)
			if !search.sr.t.nodes[0].solved {
				t.Fatalf("graph=%v, position %d (%v): not solved after %d simulations", graph, k, s, r.Simulations)
			}
			want := float32(negamax(s, memo))
			if r.Value != want {
				t.Errorf("graph=%v, position %d (%v): value %v, negamax %v", graph, k, s, r.Value, want)
			}
			c := s.Clone()
			c.ApplyAction(r.Action)
			got := float32(0)
			if c.IsTerminal() {
				got = float32(c.Returns()[s.CurrentPlayer()])
			} else {
				got = -float32(negamax(c, memo))
			}
			if got != want {
				t.Errorf("graph=%v, position %d (%v): move %d is worth %v, the position %v", graph, k, s, r.Action, got, want)
			}
			sims[graph] += r.Simulations
		}
	}
	t.Logf("simulations to solve %d positions: tree %d, graph %d", len(positions), sims[false], sims[true])
	if 2*sims[true] > sims[false] {
		t.Errorf("graph search took %d simulations to solve the positions, the tree %d: proofs are not shared (want at most half)", sims[true], sims[false])
	}
}

// TestGraphChangesTheSearch checks that the setting reaches the search: the
// same seeded search of a position with transpositions ends with another
// root value when the tree becomes a graph.
func TestGraphChangesTheSearch(t *testing.T) {
	values := map[bool]float32{}
	for _, graph := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.Simulations = 300
		cfg.DirichletEpsilon = 0
		cfg.Graph = graph
		s := newRolloutSearch(t, cfg)
		r, err := s.Run(context.Background(), position(t, "44"))
		if err != nil {
			t.Fatal(err)
		}
		values[graph] = r.Value
	}
	if values[false] == values[true] {
		t.Fatalf("root value %v with and without graph search", values[false])
	}
}

// TestGraphRefusesChance checks that graph search is refused, by name, for a
// game with dice.
func TestGraphRefusesChance(t *testing.T) {
	g, err := games.New("backgammon")
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	if err := CheckGame(cfg, g); err != nil {
		t.Fatalf("graph off: %v", err)
	}
	cfg.Graph = true
	if err := CheckGame(cfg, g); err == nil || !strings.Contains(err.Error(), "graph = true") {
		t.Fatalf("graph on backgammon: %v, want a refusal naming graph", err)
	}
	if err := CheckGame(cfg, connect4Game(t)); err != nil {
		t.Fatalf("graph on connect4: %v", err)
	}
}

// hashEvaluator gives every position priors and a value drawn from its hash:
// a fixed, varied "network", so that searches disagree with their proofs
// the way a real network's do.
type hashEvaluator struct{}

func (hashEvaluator) Evaluate(states []games.State, policies [][]float32, values []float32) error {
	for i, s := range states {
		h := s.Hash()
		next := func() uint64 {
			h = h*6364136223846793005 + 1442695040888963407
			return h >> 40
		}
		for a := range policies[i] {
			policies[i][a] = float32(next()) / (1 << 24)
		}
		values[i] = float32(next())/(1<<23) - 1
	}
	return nil
}

// TestGraphSelfPlayTargets plays self-play games with graph search, PUCT and
// Gumbel, with playout caps and reused visits as configs/connect4.yaml has
// them, and checks that every policy target is a distribution. A root kept
// by tree reuse can be solved through its position's entry with no child
// that shows the proof; before the search re-checked such a root, 1 (PUCT)
// and 2 (Gumbel) of these games' targets were NaN.
func TestGraphSelfPlayTargets(t *testing.T) {
	for _, search := range []string{SearchPUCT, SearchGumbel} {
		cfg := selfPlayConfig()
		cfg.Search, cfg.GumbelM = search, 8
		cfg.Simulations, cfg.GamesInFlight = 50, 16
		cfg.PlayoutCap, cfg.FullSearchFraction, cfg.FastSimulations = true, 0.5, 16
		cfg.CountReused, cfg.Graph = true, true
		for _, r := range playGames(t, cfg, hashEvaluator{}, 3, 256) {
			for m, p := range r.Policies {
				if p == nil {
					continue
				}
				var sum float64
				for _, x := range p {
					if !(x >= 0 && x <= 1) {
						t.Fatalf("%s: game %v, move %d: policy target %v", search, r.Actions, m, p)
					}
					sum += float64(x)
				}
				if math.Abs(sum-1) > 1e-4 {
					t.Fatalf("%s: game %v, move %d: policy target %v sums to %v", search, r.Actions, m, p, sum)
				}
			}
		}
	}
}
