package bearoff

import (
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"

	"tabula/games/backgammon"
	"tabula/internal/refdata/refdatatest"
)

var (
	dbOnce sync.Once
	theDB  *DB
	dbErr  error
	dbPath string
)

// TestMain removes the database file that the tests write.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "bearoff")
	if err != nil {
		panic(err)
	}
	dbPath = filepath.Join(dir, "bearoff.tbo")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// db builds the database once through LoadOrBuild, which also writes it.
func db(t *testing.T) *DB {
	t.Helper()
	dbOnce.Do(func() { theDB, dbErr = LoadOrBuild(dbPath) })
	if dbErr != nil {
		t.Fatal(dbErr)
	}
	return theDB
}

func BenchmarkBuild(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Build()
	}
}

func randomHome(rng *rand.Rand) Home {
	var h Home
	n := 1 + rng.IntN(MaxChecker)
	for i := 0; i < n; i++ {
		h[rng.IntN(HomePoints)]++
	}
	return h
}

func TestIndexIsABijection(t *testing.T) {
	seen := make([]bool, Positions)
	count := 0
	var rec func(h Home, i, left int)
	rec = func(h Home, i, left int) {
		if i == HomePoints {
			k := Index(h)
			if k < 0 || k >= Positions || seen[k] {
				t.Fatalf("Index(%v) = %d: out of range or taken", h, k)
			}
			seen[k] = true
			count++
			return
		}
		for c := 0; c <= left; c++ {
			h[i] = int8(c)
			rec(h, i+1, left-c)
		}
	}
	rec(Home{}, 0, MaxChecker)
	if count != Positions {
		t.Fatalf("%d positions, want %d", count, Positions)
	}
	if Index(Home{16}) != -1 || Index(Home{-1}) != -1 {
		t.Error("an impossible position was ranked")
	}
}

func TestDistributions(t *testing.T) {
	d := db(t)
	for i := range d.dist {
		sum := 0.0
		for _, p := range d.dist[i] {
			sum += p
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Fatalf("position %d: probabilities sum to %v (MaxRolls too small?)", i, sum)
		}
	}
	// One checker on the 1-point: one roll. One on the 6-point: one roll
	// unless the dice make less than 6 pips (2-1, 3-1, 4-1, 3-2, 1-1: 9
	// chances in 36), then one more.
	if m := d.Mean(Home{1}); math.Abs(m-1) > 1e-12 {
		t.Errorf("mean rolls of one checker on the 1-point: %v", m)
	}
	if m := d.Mean(Home{5: 1}); math.Abs(m-(1+9.0/36)) > 1e-12 {
		t.Errorf("mean rolls of one checker on the 6-point: %v, want 1.25", m)
	}
	// Win probabilities: the side on roll with one checker on the 1-point
	// always wins; equal positions favour the side on roll.
	if p := d.WinProbability(Home{1}, Home{5: 15}); math.Abs(p-1) > 1e-12 {
		t.Errorf("certain win: %v", p)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 200; i++ {
		a, b := randomHome(rng), randomHome(rng)
		pa, pb := d.WinProbability(a, b), d.WinProbability(b, a)
		if pa < 0 || pa > 1+1e-12 || (a == b && pa < 0.5) {
			t.Fatalf("WinProbability(%v, %v) = %v", a, b, pa)
		}
		// Being on roll can only help.
		if pa+pb < 1-1e-12 {
			t.Fatalf("on roll both ways: %v + %v < 1 for %v, %v", pa, pb, a, b)
		}
	}
}

func TestSaveLoad(t *testing.T) {
	d := db(t) // built and written by LoadOrBuild
	f, err := Load(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	e, err := LoadOrBuild(dbPath) // now loads
	if err != nil {
		t.Fatal(err)
	}
	for i := range d.dist {
		if f.dist[i] != d.dist[i] || e.dist[i] != d.dist[i] || math.Abs(f.mean[i]-d.mean[i]) > 1e-12 {
			t.Fatalf("position %d differs after a round trip", i)
		}
	}
	path := filepath.Join(t.TempDir(), "damaged.tbo")
	data, _ := os.ReadFile(dbPath)
	data[len(data)/2] ^= 1
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil {
		t.Fatal("a damaged file loaded")
	}
	if _, err := LoadOrBuild(path); err == nil {
		t.Fatal("LoadOrBuild rebuilt over a damaged file silently")
	}
}

// TestMatchesGnubg checks expected rolls against gnubg's own one-sided
// database (gnubg_os0.bd, read with its bearoffdump tool) on a sample of
// positions.
func TestMatchesGnubg(t *testing.T) {
	dump := refdatatest.Program(t, "bearoffdump", "apt-get install gnubg")
	file := "/usr/share/gnubg/gnubg_os0.bd"
	if _, err := os.Stat(file); err != nil {
		if os.Getenv("TABULA_REQUIRE_ALL") == "1" {
			t.Fatalf("gnubg's bear-off database %s: %v", file, err)
		}
		t.Skipf("gnubg's bear-off database %s: %v (apt-get install gnubg-data)", file, err)
	}
	d := db(t)
	meanRe := regexp.MustCompile(`(?m)^Mean\s+([0-9.]+)\s+([0-9.]+)`)
	rng := rand.New(rand.NewPCG(7, 7))
	samples := []Home{{5: 15}, {0: 15}, {1, 1, 1, 1, 1, 1}}
	for len(samples) < 24 {
		samples = append(samples, randomHome(rng))
	}
	for _, h := range samples {
		var q backgammon.Position
		for c := 0; c < 2; c++ {
			n := 0
			for i, k := range h {
				q.Board[c][i] = k
				n += int(k)
			}
			q.Off[c] = int8(MaxChecker - n)
		}
		id := backgammon.PositionID(&q, 0)
		out, err := exec.Command(dump, file, "-p", id).CombinedOutput()
		if err != nil {
			t.Fatalf("bearoffdump %s: %v\n%s", id, err, out)
		}
		m := meanRe.FindSubmatch(out)
		if m == nil {
			t.Fatalf("bearoffdump %s: no Mean line in\n%s", id, out)
		}
		for _, col := range m[1:] {
			theirs, _ := strconv.ParseFloat(string(col), 64)
			if ours := d.Mean(h); math.Abs(ours-theirs) > 0.0015 {
				t.Errorf("%v (%s): mean rolls %.4f, gnubg %.3f", h, id, ours, theirs)
			}
		}
	}
	t.Logf("%d positions: expected rolls equal to gnubg's to 3 decimals", len(samples))
}

// TestEvaluate checks the exact evaluation on bear-off states: at a chance
// node it is 2P-1 from the one-sided distributions; playing each roll to the
// best winning chance (Evaluate at the decision, BestMove) can only do at
// least as well as the fastest bear-off the distributions assume.
func TestEvaluate(t *testing.T) {
	d := db(t)
	g := backgammon.New(false)
	rng := rand.New(rand.NewPCG(3, 3))
	better := 0
	for i := 0; i < 40; i++ {
		var q backgammon.Position
		hs := [2]Home{randomHome(rng), randomHome(rng)}
		for c := 0; c < 2; c++ {
			n := 0
			for k, v := range hs[c] {
				q.Board[c][k] = v
				n += int(v)
			}
			q.Off[c] = int8(MaxChecker - n)
		}
		s, err := backgammon.NewState(g, q, 0, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		v, ok := d.Evaluate(s)
		if !ok || math.Abs(v-(2*d.WinProbability(hs[0], hs[1])-1)) > 1e-12 {
			t.Fatalf("Evaluate at the chance node = %v, %v", v, ok)
		}
		exp := 0.0
		for _, o := range s.ChanceOutcomes(nil) {
			c := s.Clone().(*backgammon.State)
			c.ApplyAction(o.Action)
			w, ok := d.Evaluate(c)
			if !ok {
				t.Fatal("no exact value at a bear-off decision")
			}
			a, ok := d.BestMove(c)
			if !ok || !c.IsLegal(a) {
				t.Fatalf("BestMove = %d, %v", a, ok)
			}
			exp += o.Prob * w
		}
		if exp < v-1e-9 {
			t.Fatalf("best play over the rolls %v is worse than the fastest bear-off's %v", exp, v)
		}
		if exp > v+1e-9 {
			better++
		}
	}
	t.Logf("40 bear-off races: playing for the win beat playing for speed in %d", better)
	if _, ok := d.Evaluate(g.NewInitialState().(*backgammon.State)); ok {
		t.Error("the starting position got an exact bear-off value")
	}
}

// TestEvaluateMoney checks the money scale: with a checker off on each side
// (no gammon left) the exact value is the win/loss value over 3, the value
// of a single game, so that it agrees with the Returns the search scores
// the game's end with: a decision that bears off the last checker is worth
// what the terminal it leads to returns; with no checker off on a side it
// has no value (a gammon is still possible).
func TestEvaluateMoney(t *testing.T) {
	d := db(t)
	wl, money := backgammon.New(false), backgammon.New(true)
	rng := rand.New(rand.NewPCG(5, 5))
	for i := 0; i < 40; i++ {
		var q backgammon.Position
		for c := 0; c < 2; c++ {
			h := randomHome(rng)
			n := 0
			for k, v := range h {
				q.Board[c][k] = v
				n += int(v)
			}
			if n == MaxChecker {
				q.Board[c][0]--
				n--
			}
			q.Off[c] = int8(MaxChecker - n)
		}
		for _, chance := range []bool{true, false} {
			d1, d2 := 0, 0
			if !chance {
				d1, d2 = 1+rng.IntN(6), 1+rng.IntN(6)
			}
			sw, err := backgammon.NewState(wl, q, 0, d1, d2)
			if err != nil {
				t.Fatal(err)
			}
			sm, err := backgammon.NewState(money, q, 0, d1, d2)
			if err != nil {
				t.Fatal(err)
			}
			vw, okw := d.Evaluate(sw)
			vm, okm := d.Evaluate(sm)
			if !okw || !okm || math.Abs(vm-vw/3) > 1e-12 {
				t.Fatalf("%v: money %v (%v), want the win/loss value %v (%v) over 3", q, vm, okm, vw, okw)
			}
		}
	}
	// One checker left on the 1-point: any roll bears it off and wins a
	// single game.
	var q backgammon.Position
	q.Board[0][0], q.Off[0] = 1, 14
	q.Board[1][5], q.Off[1] = 2, 13
	s, err := backgammon.NewState(money, q, 0, 6, 5)
	if err != nil {
		t.Fatal(err)
	}
	v, ok := d.Evaluate(s)
	a, _ := d.BestMove(s)
	end := s.Clone().(*backgammon.State)
	for !end.IsTerminal() && end.CurrentPlayer() == 0 {
		end.ApplyAction(a)
		if !end.IsTerminal() && end.CurrentPlayer() == 0 {
			a, _ = d.BestMove(end)
		}
	}
	if !end.IsTerminal() || !ok || math.Abs(v-end.Returns()[0]) > 1e-12 || math.Abs(v-1.0/3) > 1e-12 {
		t.Fatalf("last checker: Evaluate %v (%v), the game's end returns %v (terminal %v), want 1/3", v, ok, end.Returns(), end.IsTerminal())
	}
	q.Off[1], q.Board[1][5] = 0, 15
	if s, err = backgammon.NewState(money, q, 0, 6, 5); err != nil {
		t.Fatal(err)
	}
	if v, ok := d.Evaluate(s); ok {
		t.Fatalf("a gammon is possible, yet Evaluate gave %v", v)
	}
}
