package search

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFitLinearRecovers fits data made from a known line with Gaussian
// noise and checks the slope, intercept and noise come back.
func TestFitLinearRecovers(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const a, b, sigma = 0.85, 0.04, 0.07
	var x, y []float64
	for range 20000 {
		v := 2*rng.Float64() - 1
		x = append(x, v)
		y = append(y, a*v+b+sigma*rng.NormFloat64())
	}
	ga, gb, gs, r, err := FitLinear(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(ga-a) > 0.005 || math.Abs(gb-b) > 0.003 || math.Abs(gs-sigma) > 0.003 || r < 0.95 {
		t.Errorf("fit a=%v b=%v sigma=%v r=%v, want about a=%v b=%v sigma=%v", ga, gb, gs, r, a, b, sigma)
	}
	if _, _, _, _, err := FitLinear([]float64{1, 1, 1}, []float64{0, 1, 2}); err == nil {
		t.Error("fit of constant x: no error")
	}
	if _, _, _, _, err := FitLinear([]float64{1, 2}, []float64{0, 1}); err == nil {
		t.Error("fit of 2 points: no error")
	}
}

// TestFitProbCutStages gives two stages different relations between depth
// values and checks that each stage's fit finds its own, that proven values
// are left out, and that a stage without data gets no fit.
func TestFitProbCutStages(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var samples []ProbCutSample
	for i := range 4000 {
		e := 20 + i%20 // stages 20..29 and 30..39
		v := 1.6*rng.Float64() - 0.8
		a, b := 1.1, -0.05
		if e >= 30 {
			a, b = 0.7, 0.1
		}
		vals := []float64{math.NaN(), v, math.NaN(), a*v + b + 0.02*rng.NormFloat64()}
		if i%50 == 0 {
			vals[3] = WinValue // proven: must not enter the fit
		}
		samples = append(samples, ProbCutSample{Empties: e, Values: vals})
	}
	pc, err := FitProbCut(samples, [][2]int{{3, 1}}, [][2]int{{20, 29}, {30, 39}, {40, 49}})
	if err != nil {
		t.Fatal(err)
	}
	if len(pc.Checks) != 1 || len(pc.Checks[0].Fits) != 2 {
		t.Fatalf("fits %+v, want one check with two stages", pc)
	}
	for i, want := range [][2]float64{{1.1, -0.05}, {0.7, 0.1}} {
		f := pc.Checks[0].Fits[i]
		if math.Abs(f.A-want[0]) > 0.01 || math.Abs(f.B-want[1]) > 0.01 || f.Sigma > 0.025 {
			t.Errorf("stage %d..%d: a=%v b=%v sigma=%v, want a=%v b=%v sigma about 0.02", f.MinEmpties, f.MaxEmpties, f.A, f.B, f.Sigma, want[0], want[1])
		}
	}
	if _, err := FitProbCut(samples, [][2]int{{2, 1}}, [][2]int{{20, 39}}); err == nil {
		t.Error("pair without values: no error")
	}
}

// testProbCut is a fit as from real data, v_deep = v_shallow with error
// sigma, for every stage, at heights 3 and 4.
func testProbCut(sigma float64) ProbCut {
	f := []LinearFit{{MinEmpties: 0, MaxEmpties: 64, A: 1, B: 0, Sigma: sigma, N: 100}}
	return ProbCut{Checks: []ProbCutCheck{{Deep: 3, Shallow: 1, Fits: f}, {Deep: 4, Shallow: 2, Fits: f}}}
}

// TestProbCutFiresOnlyBeyondBound searches Othello positions with ProbCut
// and checks every cut: the fit's prediction from the shallow value lies
// beyond the window by at least t*sigma, on the side of the cut. It also
// checks that cuts do happen, and that they save nodes.
func TestProbCutFiresOnlyBeyondBound(t *testing.T) {
	g := newGame(t, "othello")
	cfg := Config{Depth: 6, TableBits: 14, Ordering: true, Killers: true, History: true, PVS: true}
	var cuts, high int
	var nodesPC, nodesPlain int64
	for _, tc := range []struct{ sigma, t float64 }{{0.05, 1}, {0.1, 1.5}, {0.02, 0}} {
		for _, s := range randomPositions(t, g, 6, 8, 30, 7) {
			sr, err := New(g, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := sr.SetProbCut(testProbCut(tc.sigma), tc.t); err != nil {
				t.Fatal(err)
			}
			sr.pc.hook = func(ev probCutEvent) {
				cuts++
				pred := ev.fit.A*ev.v + ev.fit.B
				margin := ev.t * ev.fit.Sigma
				if ev.high {
					high++
					if pred < ev.beta+margin-1e-9 {
						t.Errorf("cut at beta %v: prediction %v from shallow value %v is not beta + t*sigma (%v) or more", ev.beta, pred, ev.v, margin)
					}
				} else if pred > ev.alpha-margin+1e-9 {
					t.Errorf("cut at alpha %v: prediction %v from shallow value %v is not alpha - t*sigma (%v) or less", ev.alpha, pred, ev.v, margin)
				}
			}
			res, err := sr.Search(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			nodesPC += res.Nodes
			nodesPlain += searchOnce(t, g, cfg, s).Nodes
		}
	}
	if cuts == 0 || high == 0 || high == cuts {
		t.Errorf("%d cuts, %d of them at beta: want cuts on both sides", cuts, high)
	}
	if nodesPC >= nodesPlain {
		t.Errorf("ProbCut searched %d nodes, plain alpha-beta %d: want fewer", nodesPC, nodesPlain)
	}
}

// TestProbCutWithoutCutsEqualsPlain checks that a search where no check
// cuts returns plain alpha-beta's value at the same depth, and that
// searches where checks cut are present too (so both cases are exercised).
func TestProbCutWithoutCutsEqualsPlain(t *testing.T) {
	g := newGame(t, "othello")
	cfg := Config{Depth: 5, TableBits: 14, Ordering: true, Killers: true, History: true, PVS: true}
	var quiet, cutting int
	for _, s := range randomPositions(t, g, 30, 6, 40, 11) {
		sr, err := New(g, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := sr.SetProbCut(testProbCut(0.1), 2); err != nil {
			t.Fatal(err)
		}
		cuts := 0
		sr.pc.hook = func(probCutEvent) { cuts++ }
		res, err := sr.Search(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if cuts > 0 {
			cutting++
			continue
		}
		quiet++
		want, _, _ := AlphaBeta(s, res.Depth)
		if res.Depth != cfg.Depth || res.Value != want {
			t.Errorf("%v: ProbCut without a cut: value %v at depth %d, plain alpha-beta %v at depth %d", s, res.Value, res.Depth, want, cfg.Depth)
		}
	}
	if quiet == 0 || cutting == 0 {
		t.Errorf("%d positions without a cut, %d with: want both", quiet, cutting)
	}
}

// TestProbCutErrors checks that an empty ProbCut turns it off and that bad
// models and games without empty squares are refused.
func TestProbCutErrors(t *testing.T) {
	g := newGame(t, "othello")
	sr, err := New(g, Config{Depth: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := sr.SetProbCut(ProbCut{}, 1); err != nil || sr.pc != nil {
		t.Errorf("empty ProbCut: err %v, on %v", err, sr.pc != nil)
	}
	bad := testProbCut(0.1)
	bad.Checks[0].Fits[0].A = -1
	if err := sr.SetProbCut(bad, 1); err == nil || !strings.Contains(err.Error(), "slope") {
		t.Errorf("negative slope: err %v", err)
	}
	if err := sr.SetProbCut(testProbCut(0.1), -1); err == nil {
		t.Error("negative t: no error")
	}
	c4, err := New(newGame(t, "connect4"), Config{Depth: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := c4.SetProbCut(testProbCut(0.1), 1); err == nil || !strings.Contains(err.Error(), "empty squares") {
		t.Errorf("connect4: err %v", err)
	}
}

// TestProbCutFile writes a model, reads it back, and checks that edits,
// other formats and garbage are refused with a clear error.
func TestProbCutFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pc.json")
	m := ProbCutModel{Game: "othello", MadeBy: "test", Positions: 100, ProbCut: testProbCut(0.1), MPC: testProbCut(0.2)}
	if err := WriteProbCut(path, m); err != nil {
		t.Fatal(err)
	}
	got, err := LoadProbCut(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Game != "othello" || got.MPC.Checks[1].Fits[0].Sigma != 0.2 || got.Format != FormatProbCut {
		t.Errorf("read back %+v", got)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		data, want string
	}{
		"edited":  {strings.Replace(string(data), `"sigma": 0.2`, `"sigma": 0.02`, 1), "checksum mismatch"},
		"garbage": {"\x00\x01 not json", "not a ProbCut file"},
		"other":   {`{"format":"polyglot"}`, "not a ProbCut file"},
		"missing": {`{"sha256":"00"}`, "want the fields"},
	} {
		if tc.data == string(data) {
			t.Fatalf("%s: the edit changed nothing", name)
		}
		if _, err := ParseProbCut([]byte(tc.data)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", name, err, tc.want)
		}
	}
}

// TestShippedProbCut checks data/othello/probcut.json: it loads, is for
// Othello, and every fit has a clear positive correlation between the
// shallow and the deep value (the weakest, the opening stage, is about 0.6).
func TestShippedProbCut(t *testing.T) {
	m, err := LoadProbCut(filepath.Join("..", "data", "othello", "probcut.json"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Game != "othello:size=8" || m.Positions < 1000 {
		t.Errorf("game %q, %d positions", m.Game, m.Positions)
	}
	for _, pc := range []ProbCut{m.ProbCut, m.MPC} {
		for _, c := range pc.Checks {
			for _, f := range c.Fits {
				if f.R < 0.5 || f.N < minFitPoints {
					t.Errorf("deep %d shallow %d empties %d..%d: r %v over %d positions", c.Deep, c.Shallow, f.MinEmpties, f.MaxEmpties, f.R, f.N)
				}
			}
		}
	}
}

// FuzzParseProbCut checks that no input makes the parser panic and that
// what it accepts is a usable model.
func FuzzParseProbCut(f *testing.F) {
	dir := f.TempDir()
	path := filepath.Join(dir, "pc.json")
	if err := WriteProbCut(path, ProbCutModel{Game: "othello:size=8", ProbCut: testProbCut(0.1), MPC: testProbCut(0.2)}); err != nil {
		f.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"sha256":"x","model":{}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseProbCut(b)
		if err != nil {
			return
		}
		if m.ProbCut.Validate() != nil || m.MPC.Validate() != nil {
			t.Errorf("accepted an invalid model: %+v", m)
		}
	})
}

// TestProbCutLazySMP gives the helpers of a threaded search the same
// ProbCut (run with -race: they share the checks read-only).
func TestProbCutLazySMP(t *testing.T) {
	g := newGame(t, "othello")
	sr, err := New(g, Config{Depth: 5, TableBits: 14, Ordering: true, PVS: true, Threads: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := sr.SetProbCut(testProbCut(0.05), 1); err != nil {
		t.Fatal(err)
	}
	for _, h := range sr.helpers {
		if h.pc != sr.pc {
			t.Fatal("a helper searches without the main search's ProbCut")
		}
	}
	for _, s := range randomPositions(t, g, 3, 10, 30, 3) {
		res, err := sr.Search(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if !s.IsLegal(res.Move) {
			t.Fatalf("illegal move %d", res.Move)
		}
	}
}
