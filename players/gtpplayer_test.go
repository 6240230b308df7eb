package players

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"tabula/games"
	_ "tabula/games/gogame"
	"tabula/gtp"
	refdata "tabula/internal/refdata/refdatatest"
)

// TestMain lets the test binary play a fake GTP, UCI or gnubg engine: run
// with the arguments "fakegtp MODE", "fakeuci MODE" or "fakegnubg MODE ..."
// it answers the protocol on stdin/stdout and misbehaves as MODE says,
// instead of running the tests.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == "fakegtp" {
		fakeGTP(os.Args[2])
		os.Exit(0)
	}
	if len(os.Args) == 3 && os.Args[1] == "fakeuci" {
		fakeUCI(os.Args[2])
		os.Exit(0)
	}
	if len(os.Args) >= 3 && os.Args[1] == "fakegnubg" {
		fakeGnubg(os.Args[2])
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeGTP answers every command with success; at genmove it dies
// (MODE die), never answers (hang), names an occupied point (illegal),
// answers nonsense (garbage) or resigns (resign).
func fakeGTP(mode string) {
	if rest, ok := strings.CutPrefix(mode, "dieonce="); ok {
		// The first process dies at its first genmove (it leaves MARKER
		// behind); every later one is the correct engine of GAMESPEC.
		marker, spec, _ := strings.Cut(rest, "|")
		if _, err := os.Stat(marker); err == nil {
			mode = "engine=" + spec
		} else {
			if err := os.WriteFile(marker, nil, 0o644); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			mode = "die"
		}
	}
	if spec, ok := strings.CutPrefix(mode, "engine="); ok {
		// A correct engine: ours, playing uniformly random moves. Any
		// move that the client fails to tell it shows up as an illegal
		// move or a refused play.
		g, err := games.New(spec)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		e, err := gtp.NewEngine(gtp.DefaultEngineConfig(), g, func(games.Game) (gtp.Chooser, error) {
			return &randomPlayer{rng: rand.New(rand.NewPCG(7, 7))}, nil
		})
		if err == nil {
			err = e.Run(context.Background(), os.Stdin, os.Stdout)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		return
	}
	sc := bufio.NewScanner(os.Stdin)
	lastPlay := "A1"
	for sc.Scan() {
		cmd, ok, err := gtp.ParseCommand(sc.Text())
		if !ok || err != nil {
			continue
		}
		reply := ""
		switch cmd.Name {
		case "play":
			if !strings.EqualFold(cmd.Args[1], "pass") {
				lastPlay = cmd.Args[1]
			}
		case "genmove":
			fmt.Fprintln(os.Stderr, "fake engine: thinking in mode", mode)
			switch mode {
			case "die":
				fmt.Fprintln(os.Stderr, "fake engine: segmentation fault (not really)")
				os.Exit(3)
			case "hang":
				time.Sleep(time.Hour)
			case "illegal":
				reply = lastPlay // occupied, or A1 then A1 again
				lastPlay = reply
			case "garbage":
				reply = "Z99"
			case "resign":
				reply = "resign"
			}
		case "quit":
			gtp.WriteResponse(os.Stdout, cmd, true, "")
			return
		}
		gtp.WriteResponse(os.Stdout, cmd, true, reply)
	}
}

func TestGTPBuildErrors(t *testing.T) {
	for _, c := range []struct{ game, spec, want string }{
		{"go:size=9", "gtp:cmd=surely-no-such-engine-here", `engine program "surely-no-such-engine-here" not found on PATH or in /usr/games`},
		{"go:size=9", "gtp:args=x", "gtp needs cmd=PROGRAM"},
		{"othello:size=8", "gnugo:level=1", "GNU Go plays go, not othello:size=8"},
		{"othello:size=6", "grhino", "GRhino plays othello:size=8, not othello:size=6"},
		{"go:size=9", "grhino:level=2", "GRhino plays othello:size=8"},
		{"connect4", "gnugo", "game connect4 has no GTP dialect"},
	} {
		spec, err := ParseSpec(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Build(mustGame(t, c.game), spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s in %s: %v, want %q", c.spec, c.game, err, c.want)
		}
	}
	for _, bad := range []string{"gnugo:level=11", "grhino:level=0", "gtp:cmd=x,timeout=-1s"} {
		if _, err := ParseSpec(bad); err == nil {
			t.Errorf("ParseSpec(%q) accepted", bad)
		}
	}
}

// TestGTPPlayerFollowsWithoutSync drives the player the way a caller that
// does not know about Sync would: one position after another.
func TestGTPPlayerFollowsWithoutSync(t *testing.T) {
	refdata.Program(t, "gnugo", "apt-get install gnugo")
	g := mustGame(t, "go:size=7,komi=9")
	p := newEnginePlayer(t, g, "gnugo:level=0")
	s := g.NewInitialState()
	rng := rand.New(rand.NewPCG(2, 2))
	for i := 0; i < 10 && !s.IsTerminal(); i++ {
		a, err := p.ChooseAction(context.Background(), s.Clone())
		if err != nil {
			t.Fatalf("move %d: %v", i, err)
		}
		s.ApplyAction(a)
		legal := s.LegalActions(nil)
		s.ApplyAction(legal[rng.IntN(len(legal)-1)]) // never pass
	}
	// A position it cannot have reached by one move is an error, not a
	// forfeit.
	s2 := g.NewInitialState()
	for _, a := range s2.LegalActions(nil)[:3] {
		s2.ApplyAction(a)
	}
	if _, err := p.ChooseAction(context.Background(), s2); err == nil || !strings.Contains(err.Error(), "cannot follow the game") {
		t.Errorf("jump to another game: %v", err)
	}
}

// TestGTPPlayerSendsMovesBeforeItsPass checks the engine's board right
// after the player answered a forced pass without asking it: the
// opponent's move before the pass must have reached the engine.
func TestGTPPlayerSendsMovesBeforeItsPass(t *testing.T) {
	g := mustGame(t, "othello:size=6")
	spec, err := ParseSpec(fmt.Sprintf("gtp:cmd=%q,args=\"fakegtp engine=othello:size=6\",timeout=20s", os.Args[0]))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Build(g, spec)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	checked := 0
	for game := 0; game < 200 && checked < 3; game++ {
		pl, err := f.New(rng)
		if err != nil {
			t.Fatal(err)
		}
		p := pl.(*gtpPlayer)
		s := g.NewInitialState()
		var moves []int
		engine := game % 2
		for !s.IsTerminal() {
			var a int
			if s.CurrentPlayer() == engine {
				p.Sync(moves)
				if a, err = p.ChooseAction(context.Background(), s.Clone()); err != nil {
					t.Fatalf("game %d: %v", game, err)
				}
				if legal := s.LegalActions(nil); len(legal) == 1 && a == legal[0] && a == g.NumActions()-1 {
					score, err := p.client.Do(context.Background(), 5*time.Second, "final_score")
					if err != nil {
						t.Fatal(err)
					}
					want := gtp.FormatScore(float64(s.(interface{ DiscDifference() int }).DiscDifference()))
					if score != want {
						t.Fatalf("game %d: at our forced pass the engine counts %s, the game %s: a move did not reach it", game, score, want)
					}
					checked++
				}
			} else {
				legal := s.LegalActions(nil)
				a = legal[rng.IntN(len(legal))]
			}
			s.ApplyAction(a)
			moves = append(moves, a)
		}
		p.Close()
	}
	if checked == 0 {
		t.Fatal("no forced pass of the engine's side in 200 games")
	}
}

// TestGnuGoKeepsPositionalSuperko replays a 9x9 game in which GNU Go at
// level 10, with its default simple-ko rule, answered C5: a capture that
// would repeat the board after white's G3, illegal under our positional
// superko, so it forfeited (game 85 of a Go 9x9 evaluation).
// The gnugo preset now runs it with --positional-superko: it plays a legal
// move there.
func TestGnuGoKeepsPositionalSuperko(t *testing.T) {
	refdata.Program(t, "gnugo", "apt-get install gnugo")
	g := mustGame(t, "go:size=9,komi=7")
	moves, err := g.(games.Notation).ParseActions("C4 C8 F3 E5 G7 D5 G5 E4 C5 E6 E3 C6 B6 D4 C7 D3 B2 C3 B3 B5 D6 E7 D8 E8 D7 E2 C2 D2 F2 B4 D9 C6 C5 F5 G4 G3 C4 C6")
	if err != nil {
		t.Fatal(err)
	}
	s := g.NewInitialState()
	for _, a := range moves {
		if err := games.Play(s, a); err != nil {
			t.Fatal(err)
		}
	}
	c5, _ := g.(games.Notation).ParseAction("C5")
	if s.IsLegal(c5) {
		t.Fatal("C5 is legal here: the position no longer tests superko")
	}
	p := newEnginePlayer(t, g, "gnugo:level=10")
	p.(interface{ Sync([]int) }).Sync(moves)
	a, err := p.ChooseAction(context.Background(), s)
	if err != nil {
		t.Fatalf("GNU Go: %v", err)
	}
	if !s.IsLegal(a) {
		t.Errorf("GNU Go played %d, illegal here", a)
	}
}

// newEnginePlayer builds an outside-engine player from spec for game g; the
// engine is stopped when the test ends.
func newEnginePlayer(t *testing.T, g games.Game, spec string) Player {
	t.Helper()
	p, err := mustBuild(t, g, spec).New(rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.(interface{ Close() error }).Close() })
	return p
}
