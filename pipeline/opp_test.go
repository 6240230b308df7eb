package pipeline

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"tabula/games"
	"tabula/mcts"
	"tabula/nn"
	"tabula/replay"
)

// TestRecordExamplesOpponentTargets: in a Connect Four game where every
// third move had a fast search (no policy), each example's opponent-policy
// target is the next move's search policy, or a one-hot on the next move
// where that search was a fast one; the last move has none; and without
// experimental.opponent_policy no example has one.
func TestRecordExamplesOpponentTargets(t *testing.T) {
	g, err := games.New("connect4")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	s := g.NewInitialState()
	var rec mcts.GameRecord
	rec.Game, rec.WouldResignMove = g.Name(), -1
	for !s.IsTerminal() {
		legal := s.LegalActions(nil)
		a := legal[rng.IntN(len(legal))]
		var pi []float32
		if len(rec.Actions)%3 != 1 {
			pi = make([]float32, g.NumActions())
			for _, l := range legal {
				pi[l] = 1 / float32(len(legal))
			}
		}
		rec.Actions, rec.Policies = append(rec.Actions, a), append(rec.Policies, pi)
		s.ApplyAction(a)
	}
	rec.Returns = s.Returns()
	ex, err := recordExamples(g, rec, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	k, last := 0, len(rec.Actions)-1
	for i, pi := range rec.Policies {
		if pi == nil {
			continue
		}
		got := ex[k].OppPolicy
		k++
		var want []float32
		switch {
		case i == last:
		case rec.Policies[i+1] != nil:
			want = rec.Policies[i+1]
		default:
			want = make([]float32, g.NumActions())
			want[rec.Actions[i+1]] = 1
		}
		if !slices.Equal(got, want) {
			t.Fatalf("move %d of %d: opponent target %v, want %v", i, len(rec.Actions), got, want)
		}
	}
	if k != len(ex) || k < 5 {
		t.Fatalf("%d examples for %d moves with a policy", len(ex), k)
	}
	if ex, err = recordExamples(g, rec, 0, false); err != nil || slices.ContainsFunc(ex, func(e replay.Example) bool { return e.OppPolicy != nil }) {
		t.Fatalf("without opponent targets: %v", err)
	}
}

// TestOpponentPolicySmoke runs the Connect Four smoke config with the
// opponent-policy head: self-play stores the targets, training reports the
// head's loss and the checkpoints carry the layer; without the head, no
// example stores a target.
func TestOpponentPolicySmoke(t *testing.T) {
	for _, on := range []bool{true, false} {
		dir := t.TempDir()
		runOnce(t, smoke(t, dir, fmt.Sprintf("experimental.opponent_policy=%v", on), "ladder.every=0", "bench.every=0"))
		for i, rec := range readMetrics(t, dir) {
			tr := rec["train"].(map[string]any)
			l, ok := tr["loss_opp_policy"].(float64)
			if on != ok || (on && !(l > 0)) {
				t.Fatalf("opponent_policy=%v, iteration %d: train %v", on, i+1, tr)
			}
		}
		files, _ := filepath.Glob(filepath.Join(dir, replayDir, "*"+replay.ChunkSuffix))
		with, without := 0, 0
		for _, f := range files {
			_, ex, err := replay.ReadChunkFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range ex {
				if e.OppPolicy != nil {
					with++
				} else {
					without++
				}
			}
		}
		// Every game's last move has no reply.
		if (on && (with == 0 || without == 0 || with < 2*without)) || (!on && with != 0) {
			t.Fatalf("opponent_policy=%v: %d examples with a target, %d without", on, with, without)
		}
		ck, err := nn.LoadCheckpoint(filepath.Join(dir, checkpointDir, "ckpt-000002.tbn"))
		if err != nil {
			t.Fatal(err)
		}
		if ck.Weights.Config.OpponentPolicy != on || (ck.Weights.OppPolicyFC != nil) != on {
			t.Fatalf("opponent_policy=%v: checkpoint config %+v", on, ck.Weights.Config)
		}
	}
}
