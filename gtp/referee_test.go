package gtp_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"tabula/games"
	"tabula/games/gogame"
	"tabula/gtp"
	"tabula/internal/refdata/refdatatest"
	"tabula/players"
)

// side is one engine as the referee sees it.
type side interface {
	do(name string, args ...string) (string, error)
	close()
}

// outside is an engine process. GRhino passes by itself for a side with
// no move and refuses "play COLOR pass" as a syntax error, so passes are not
// sent to it (implicitPass).
type outside struct {
	c            *gtp.Client
	implicitPass bool
}

func (o outside) do(name string, args ...string) (string, error) {
	if o.implicitPass && name == "play" && len(args) == 2 && strings.EqualFold(args[1], "pass") {
		return "", nil
	}
	return o.c.Do(context.Background(), 30*time.Second, name, args...)
}
func (o outside) close() { _ = o.c.Close() }

// inside is our Engine, served over pipes by Engine.Run as `play gtp`
// serves it over stdin and stdout.
type inside struct {
	w    io.WriteCloser
	rr   *gtp.ResponseReader
	done chan error
}

func serve(t *testing.T, e *gtp.Engine) *inside {
	t.Helper()
	cr, cw := io.Pipe()
	rr, rw := io.Pipe()
	in := &inside{w: cw, rr: gtp.NewResponseReader(rr), done: make(chan error, 1)}
	go func() {
		err := e.Run(context.Background(), cr, rw)
		rw.Close()
		in.done <- err
	}()
	return in
}

func (in *inside) do(name string, args ...string) (string, error) {
	line := gtp.Command{Name: name, Args: args}.String()
	if _, err := io.WriteString(in.w, line+"\n"); err != nil {
		return "", err
	}
	r, err := in.rr.Read()
	if err != nil {
		return "", err
	}
	if !r.Success {
		return "", fmt.Errorf("? %s", r.Text)
	}
	return r.Text, nil
}

func (in *inside) close() {
	_, _ = in.do("quit")
	in.w.Close()
	<-in.done
}

// playout plays like a random playout: a uniformly random legal point that
// does not fill one of its own eyes, and passes only when there is none. It
// never passes early, so it plays the game out until no dead stones are
// left, as area scoring needs for both sides to count alike.
type playout struct{ rng *rand.Rand }

func (p playout) ChooseAction(_ context.Context, s games.State) (int, error) {
	return s.(*gogame.State).RandomMove(p.rng), nil
}

// referee plays a whole game between black and white, checking that each
// side accepts every move of the other, and returns the moves. genmove
// names the command each side generates with.
func referee(t *testing.T, d *gtp.Dialect, black, white side, genmove [2]string, maxMoves int, over func() bool) []string {
	t.Helper()
	sides := [2]side{black, white}
	for _, s := range sides {
		for _, c := range [][]string{{"boardsize", fmt.Sprint(d.Size())}, {"clear_board"}, {"komi", fmt.Sprint(d.Komi())}} {
			if _, err := s.do(c[0], c[1:]...); err != nil {
				t.Fatalf("setup %v: %v", c, err)
			}
		}
	}
	var moves []string
	passes := 0
	for turn := 0; passes < 2 && (over == nil || !over()); turn ^= 1 {
		if len(moves) >= maxMoves {
			t.Fatalf("no end after %d moves: %s", len(moves), strings.Join(moves, " "))
		}
		color := gtp.ColorName(turn)
		mv, err := sides[turn].do(genmove[turn], color)
		if err != nil {
			t.Fatalf("move %d: %s %s: %v (moves %s)", len(moves)+1, genmove[turn], color, err, strings.Join(moves, " "))
		}
		if strings.EqualFold(mv, "resign") {
			t.Logf("%s resigned after %d moves", color, len(moves))
			return moves
		}
		if _, err := sides[turn^1].do("play", color, mv); err != nil {
			t.Fatalf("move %d: play %s %s refused: %v (moves %s)", len(moves)+1, color, mv, err, strings.Join(moves, " "))
		}
		moves = append(moves, mv)
		if strings.EqualFold(mv, "pass") {
			passes++
		} else {
			passes = 0
		}
	}
	return moves
}

// TestGoAgainstGNUGo plays whole 7x7 and 9x9 games between our engine and
// GNU Go (which cleans up dead stones before it passes, as on KGS): every
// move is accepted by both, and both count the same area score.
func TestGoAgainstGNUGo(t *testing.T) {
	gnugo := refdatatest.Program(t, "gnugo", "apt-get install gnugo")
	for i, c := range []struct {
		game    string
		oursBlk bool
	}{{"go:size=7,komi=9,max_moves=900", true}, {"go:size=9,komi=7,max_moves=1600", false}} {
		t.Run(c.game, func(t *testing.T) {
			g, err := games.New(c.game)
			if err != nil {
				t.Fatal(err)
			}
			d, _ := gtp.NewDialect(g)
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			e, err := gtp.NewEngine(gtp.DefaultEngineConfig(), g, func(games.Game) (gtp.Chooser, error) { return playout{rng}, nil })
			if err != nil {
				t.Fatal(err)
			}
			ours := serve(t, e)
			defer ours.close()
			cl, err := gtp.Start(gtp.ClientConfig{Path: gnugo, Args: []string{"--mode", "gtp", "--chinese-rules", "--level", "1"}})
			if err != nil {
				t.Fatal(err)
			}
			theirs := outside{c: cl}
			defer theirs.close()
			black, white := side(ours), side(theirs)
			gen := [2]string{"genmove", "kgs-genmove_cleanup"}
			if !c.oursBlk {
				black, white = theirs, ours
				gen = [2]string{"kgs-genmove_cleanup", "genmove"}
			}
			moves := referee(t, d, black, white, gen, g.MaxGameLength(), nil)
			s1, err := ours.do("final_score")
			if err != nil {
				t.Fatal(err)
			}
			s2, err := theirs.do("final_score")
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d moves, our score %s, GNU Go's %s", len(moves), s1, s2)
			v1, err1 := gtp.ParseScore(s1)
			v2, err2 := gtp.ParseScore(s2)
			if err1 != nil || err2 != nil || v1 != v2 {
				t.Errorf("final scores differ: ours %q, GNU Go's %q (moves %s)", s1, s2, strings.Join(moves, " "))
			}
		})
	}
}

// TestOthelloAgainstGRhino plays a whole Othello 8x8 game between our
// engine (the alpha-beta player) and GRhino.
func TestOthelloAgainstGRhino(t *testing.T) {
	rhino := refdatatest.Program(t, "gtp-rhino", "apt-get install grhino")
	g, err := games.New("othello:size=8")
	if err != nil {
		t.Fatal(err)
	}
	d, _ := gtp.NewDialect(g)
	spec, err := players.ParseSpec("alphabeta:depth=2")
	if err != nil {
		t.Fatal(err)
	}
	e, err := gtp.NewEngine(gtp.DefaultEngineConfig(), g, func(g games.Game) (gtp.Chooser, error) {
		f, err := players.Build(g, spec)
		if err != nil {
			return nil, err
		}
		return f.New(rand.New(rand.NewPCG(1, 2)))
	})
	if err != nil {
		t.Fatal(err)
	}
	ours := serve(t, e)
	defer ours.close()
	cl, err := gtp.Start(gtp.ClientConfig{Path: rhino, Args: []string{"-l", "1"}})
	if err != nil {
		t.Fatal(err)
	}
	theirs := outside{c: cl, implicitPass: true}
	defer theirs.close()
	moves := referee(t, d, theirs, ours, [2]string{"genmove", "genmove"}, g.MaxGameLength(), func() bool { return e.Position().State().IsTerminal() })
	s1, err := ours.do("final_score")
	if err != nil {
		t.Fatal(err)
	}
	s2, err := theirs.do("final_score")
	t.Logf("%d moves %s; our score %s, GRhino's %q (%v)", len(moves), strings.Join(moves, " "), s1, s2, err)
	if !e.Position().State().IsTerminal() {
		t.Errorf("the game is not over for our engine")
	}
	if v1, err1 := gtp.ParseScore(s1); err != nil || err1 != nil || s1 != s2 {
		t.Errorf("final scores differ: ours %q (%v), GRhino's %q (%v)", s1, err1, s2, err)
	} else if v1 == 0 && len(moves) < 58 {
		t.Errorf("implausible result %v after %d moves", v1, len(moves))
	}
}
