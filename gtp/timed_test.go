package gtp_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"tabula/games"
	"tabula/gtp"
	"tabula/mcts"
	"tabula/players"
)

// netPaced is the uniform evaluator at about a small network's pace on
// this machine (a millisecond a batch), so that the trees grow as a net
// player's do, not a thousand times faster.
type netPaced struct{ mcts.UniformEvaluator }

func (e netPaced) Evaluate(states []games.State, policies [][]float32, values []float32) error {
	time.Sleep(time.Millisecond)
	return e.UniformEvaluator.Evaluate(states, policies, values)
}

// newTimedEngine is an engine whose PUCT player would search for minutes
// (2^20 simulations a move) but for its own limit of 1.5 seconds a move:
// only the clock, or that limit, stops its searches.
func newTimedEngine(t *testing.T, spec string) *gtp.Engine {
	t.Helper()
	g, err := games.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	cfg := mcts.DefaultConfig()
	cfg.Simulations = 1 << 20
	cfg.BatchSize = 8
	cfg.MoveTime = 1500 * time.Millisecond
	f := players.PUCTFactory("puct", cfg, netPaced{})
	e, err := gtp.NewEngine(gtp.DefaultEngineConfig(), g, func(games.Game) (gtp.Chooser, error) {
		return f.New(rand.New(rand.NewPCG(1, 2)))
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// genmove asks for color's move and returns it with the time the answer
// took, measured as the controller sees it.
func (s *gtpSession) genmove(color string) (string, time.Duration) {
	s.t.Helper()
	start := time.Now()
	s.send("genmove " + color)
	a := s.answer()
	took := time.Since(start)
	if len(a) != 1 || !strings.HasPrefix(a[0], "= ") {
		s.t.Fatalf("genmove %s: %q", color, a)
	}
	return strings.TrimPrefix(a[0], "= "), took
}

// TestGameUnderAbsoluteClock plays a whole 7x7 game, the engine against
// itself, with 3 seconds a side: neither side's moves together take longer
// than its clock, as the controller measures them.
func TestGameUnderAbsoluteClock(t *testing.T) {
	const main = 3 * time.Second
	s := startSession(t, newTimedEngine(t, "go:size=7,komi=9"))
	s.send("time_settings 3 0 0")
	if a := s.answer(); len(a) != 1 || a[0] != "= " {
		t.Fatalf("time_settings: %q", a)
	}
	var used [2]time.Duration
	colors := [2]string{"b", "w"}
	moves, passes := 0, 0
	for passes < 2 && moves < 3*49 {
		c := moves % 2
		mv, took := s.genmove(colors[c])
		used[c] += took
		if used[c] >= main {
			t.Fatalf("%s lost on time at move %d: %v used of %v", colors[c], moves+1, used[c], main)
		}
		if strings.EqualFold(mv, "pass") {
			passes++
		} else {
			passes = 0
		}
		moves++
	}
	t.Logf("%d moves; black used %v, white %v of %v each", moves, used[0], used[1], main)
	if moves < 20 {
		t.Errorf("the game ended after %d moves: the test does not exercise the clock", moves)
	}
	// The clock is spent, not hoarded: together more than a fifth of it.
	if used[0]+used[1] < 2*main/5 {
		t.Errorf("the players used %v and %v of %v each: the time manager hoards the clock", used[0], used[1], main)
	}
}

// TestByoyomiAndTimeLeft: in Japanese byo-yomi of one second each move,
// genmove_analyze's too, takes less than the period (and most of it);
// time_left then cuts the time to 0.3 seconds, which the next move keeps
// to; with the clock off the player's own limit (1.5 s) is back.
func TestByoyomiAndTimeLeft(t *testing.T) {
	s := startSession(t, newTimedEngine(t, "go:size=9,komi=7"))
	s.send("kgs-time_settings byoyomi 0 1 1")
	if a := s.answer(); len(a) != 1 || a[0] != "= " {
		t.Fatalf("kgs-time_settings: %q", a)
	}
	for i, c := range []string{"b", "w", "b"} {
		_, took := s.genmove(c)
		t.Logf("byo-yomi move %d: %v", i+1, took)
		if took >= time.Second || took < 300*time.Millisecond {
			t.Errorf("move %d took %v of a 1s period", i+1, took)
		}
	}
	start := time.Now()
	s.send("kata-genmove_analyze w 10")
	var moved bool
	for {
		l := s.line()
		if l == "" {
			break
		}
		moved = moved || strings.HasPrefix(l, "play ")
	}
	if took := time.Since(start); !moved || took >= time.Second {
		t.Errorf("kata-genmove_analyze in byo-yomi: played %v, took %v of a 1s period", moved, took)
	}
	s.send("kgs-time_settings absolute 600")
	s.answer()
	s.send("time_left w 0.3 0")
	if a := s.answer(); len(a) != 1 || a[0] != "= " {
		t.Fatalf("time_left: %q", a)
	}
	if _, took := s.genmove("w"); took >= 300*time.Millisecond {
		t.Errorf("with 0.3s left the move took %v", took)
	}
	s.send("kgs-time_settings none")
	s.answer()
	if _, took := s.genmove("b"); took < 1200*time.Millisecond || took > 5*time.Second {
		t.Errorf("without a clock the move took %v, want the player's own 1.5s", took)
	}
	s.send("time_left w x 0")
	if a := s.answer(); len(a) != 1 || !strings.HasPrefix(a[0], "? syntax error") {
		t.Errorf("time_left w x 0: %q", a)
	}
}

// TestAlphaBetaUnderByoyomi: an alpha-beta player whose own limit is 10
// seconds a move plays Othello over GTP in byo-yomi of one second: the
// clock's share limits its searches.
func TestAlphaBetaUnderByoyomi(t *testing.T) {
	g, err := games.New("othello:size=8")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := players.ParseSpec("alphabeta:time=10s")
	if err != nil {
		t.Fatal(err)
	}
	f, err := players.Build(g, spec)
	if err != nil {
		t.Fatal(err)
	}
	e, err := gtp.NewEngine(gtp.DefaultEngineConfig(), g, func(games.Game) (gtp.Chooser, error) {
		return f.New(rand.New(rand.NewPCG(1, 2)))
	})
	if err != nil {
		t.Fatal(err)
	}
	s := startSession(t, e)
	s.send("kgs-time_settings byoyomi 0 1 1")
	if a := s.answer(); len(a) != 1 || a[0] != "= " {
		t.Fatalf("kgs-time_settings: %q", a)
	}
	for i, c := range []string{"b", "w", "b", "w"} {
		if _, took := s.genmove(c); took >= time.Second {
			t.Errorf("move %d took %v of a 1s period", i+1, took)
		}
	}
}
