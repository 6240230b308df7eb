package pipeline

import (
	"path/filepath"
	"testing"

	"tabula/games"
	"tabula/mcts"
	"tabula/nn"
	"tabula/replay"
)

// TestRecordExamplesAuxTargets checks the ownership and score targets of a
// hand-made Go game, from the point of view of the player to move at each
// example: black plays the centre of a 5x5 board and both pass, so black
// owns every point and wins by 25 - komi 0.5.
func TestRecordExamplesAuxTargets(t *testing.T) {
	g, err := games.New("go:size=5,komi=0.5")
	if err != nil {
		t.Fatal(err)
	}
	onehot := func(a int) []float32 {
		pi := make([]float32, g.NumActions())
		pi[a] = 1
		return pi
	}
	pass := g.NumActions() - 1
	rec := mcts.GameRecord{Game: g.Name(), Actions: []int{12, pass, pass},
		Policies: [][]float32{onehot(12), onehot(pass), onehot(pass)}, Returns: [2]float64{1, -1}, WouldResignMove: -1}
	ex, err := recordExamples(g, rec, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(ex) != 3 {
		t.Fatalf("%d examples, want 3", len(ex))
	}
	for i, e := range ex {
		sign := float32(1 - 2*(i%2)) // black moves at 0 and 2, white at 1
		if e.Value != sign {
			t.Errorf("example %d: value %v, want %v", i, e.Value, sign)
		}
		if e.Score != sign*24.5 {
			t.Errorf("example %d: score %v, want %v", i, e.Score, sign*24.5)
		}
		if len(e.Ownership) != 25 {
			t.Fatalf("example %d: %d ownership entries, want 25", i, len(e.Ownership))
		}
		for p, o := range e.Ownership {
			if o != sign {
				t.Fatalf("example %d: ownership of point %d = %v, want %v", i, p, o, sign)
			}
		}
	}

	// A resigned game has no final position to read: no targets.
	rec.Actions, rec.Policies, rec.Resigned = rec.Actions[:1], rec.Policies[:1], true
	if ex, err = recordExamples(g, rec, 0, false); err != nil || len(ex) != 1 || ex[0].Ownership != nil {
		t.Fatalf("resigned game: %d examples, ownership %v, %v", len(ex), ex[0].Ownership, err)
	}

	// Othello: ownership is the final discs, score the disc margin.
	og, err := games.New("othello:size=6")
	if err != nil {
		t.Fatal(err)
	}
	s := og.NewInitialState()
	var actions []int
	var pols [][]float32
	for !s.IsTerminal() {
		legal := s.LegalActions(nil)
		a := legal[0]
		pi := make([]float32, og.NumActions())
		pi[a] = 1
		actions, pols = append(actions, a), append(pols, pi)
		s.ApplyAction(a)
	}
	rec = mcts.GameRecord{Game: og.Name(), Actions: actions, Policies: pols, Returns: s.Returns(), WouldResignMove: -1}
	if ex, err = recordExamples(og, rec, 0, false); err != nil {
		t.Fatal(err)
	}
	final := s.(games.Outcomer).FinalScore()
	replayed := og.NewInitialState()
	for i, e := range ex {
		sign := float32(1)
		if replayed.CurrentPlayer() == 1 {
			sign = -1
		}
		if e.Score != sign*float32(final) || e.Value != sign*float32(s.Returns()[0]) {
			t.Fatalf("othello example %d: score %v value %v, want %v and %v", i, e.Score, e.Value, sign*float32(final), sign*float32(s.Returns()[0]))
		}
		var sum float32
		for _, o := range e.Ownership {
			sum += o
		}
		if sum != e.Score {
			t.Fatalf("othello example %d: ownership sums to %v, score %v", i, sum, e.Score)
		}
		replayed.ApplyAction(actions[i])
	}
}

// TestAuxSmoke runs the Go 7x7 and Othello 6x6 smoke configs with global
// pooling and both auxiliary heads through the pipeline: self-play writes
// the targets, training reports their losses, the checkpoints carry the new
// layers and the pooled tower plays the gating and ladder games.
func TestAuxSmoke(t *testing.T) {
	for _, name := range []string{"go7-smoke", "othello6-smoke"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			cfg, err := Load("../configs/"+name+".yaml", []string{"run_dir=" + dir,
				"network.blocks=2", "network.ownership=true", "network.score=true", "network.global_pooling=true"})
			if err != nil {
				t.Fatal(err)
			}
			runOnce(t, cfg)
			m := readMetrics(t, dir)
			if len(m) != 2 {
				t.Fatalf("%d metrics lines, want 2", len(m))
			}
			for i, rec := range m {
				tr := rec["train"].(map[string]any)
				own, ok1 := tr["loss_ownership"].(float64)
				sc, ok2 := tr["loss_score"].(float64)
				if !ok1 || !ok2 || !(own > 0) || !(sc > 0) {
					t.Fatalf("iteration %d: train %v, want positive ownership and score losses", i+1, tr)
				}
			}
			files, _ := filepath.Glob(filepath.Join(dir, replayDir, "*"+replay.ChunkSuffix))
			with := 0
			for _, f := range files {
				_, ex, err := replay.ReadChunkFile(f)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range ex {
					if e.Ownership != nil {
						with++
					}
				}
			}
			if with == 0 {
				t.Fatal("no example with auxiliary targets in the replay folder")
			}
			cks, _ := filepath.Glob(filepath.Join(dir, "checkpoints", "*.tbn"))
			if len(cks) == 0 {
				t.Fatal("no checkpoint")
			}
			ck, err := nn.LoadCheckpoint(cks[len(cks)-1])
			if err != nil {
				t.Fatal(err)
			}
			if c := ck.Weights.Config; !c.Ownership || !c.Score || !c.GlobalPooling || ck.Weights.Blocks[1].Pool == nil {
				t.Fatalf("checkpoint %s: config %+v", cks[len(cks)-1], c)
			}
		})
	}
}
