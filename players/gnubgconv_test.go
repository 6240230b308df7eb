package players

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"tabula/games/backgammon"
)

// TestGnubgAction converts answers of gnubg 1.07 (recorded from
// gnubgplayer.py at 0 plies) into our decisions and plays the turn out as
// the player does: the turn must end at gnubg's position, the move written
// as gnubg wrote it.
func TestGnubgAction(t *testing.T) {
	g := backgammon.New(false)
	for _, c := range []struct {
		name, before string
		d1, d2       int
		answer       string
	}{
		{"opening", "4HPwATDgc/ABMA", 3, 1, "move 4HPwATCwZ/ABMA 8/5 6/5"},
		{"doubles", "4HPwATDgc/ABMA", 6, 6, "move 4HPwATDg28HBAA 24/18(2) 13/7(2)"},
		{"bar entry, one die usable", "E5+DBwDgc/ABYA", 3, 1, "move g8/BA0Dgc/ABRA bar/22*"},
		{"bar entry with doubles", "E5+DBwDgc/ABYA", 2, 2, "move E5+DBwCYc/ABGA bar/23(2) 6/4(2)"},
		{"bar entry of three with doubles", "22zABwDgc/AAcA", 4, 4, "move 22zABwDgc+EABw bar/21(3) 13/9"},
		{"bar entry, one of three", "22zABwDgc/AAcA", 6, 4, "move 22zABwDgc/AAYQ bar/21"},
		{"bearing off", "APB9HwB3tw0AAA", 6, 5, "move APB9HwB3twIAAA 6/off 5/off"},
		{"bearing off with doubles", "APB9HwD/MyUAAA", 4, 4, "move APB9HwD/1wAAAA 8/off 6/2 5/1"},
		{"one checker off with both dice", "APB9HwD/MyUAAA", 6, 2, "move APB9HwD/MwUAAA 8/off"},
		{"no move", "27bBAQDg/wcAQA", 3, 1, "pass"},
	} {
		for mover := 0; mover < 2; mover++ {
			pos, err := backgammon.ParsePositionID(c.before, mover)
			if err != nil {
				t.Fatal(err)
			}
			s, err := backgammon.NewState(g, pos, mover, c.d1, c.d2)
			if err != nil {
				t.Fatal(err)
			}
			var moves []string
			a, target, err := gnubgAction(s, s.TurnEnds(nil), c.answer)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			moves = append(moves, s.FormatMove(a))
			s.ApplyAction(a)
			if s.SecondHalf() {
				found := false
				for _, e := range s.TurnEnds(nil) {
					if e.Pos == target {
						moves = append(moves, s.FormatMove(e.Action))
						s.ApplyAction(e.Action)
						found = true
						break
					}
				}
				if !found {
					t.Fatalf("%s: the second half cannot reach gnubg's position", c.name)
				}
			}
			if !s.IsChanceNode() && !s.IsTerminal() {
				t.Fatalf("%s: the turn is not over", c.name)
			}
			got := s.Position()
			want := c.before
			if verb, rest, _ := strings.Cut(c.answer, " "); verb == "move" {
				want, _, _ = strings.Cut(rest, " ")
			}
			if id := backgammon.PositionID(&got, mover); id != want {
				t.Errorf("%s, mover %d: reached %s, want %s", c.name, mover, id, want)
			}
			t.Logf("%s, mover %d: %s played as %q", c.name, mover, c.answer, moves)
		}
	}
}

// TestGnubgActionRefused: answers that are not a legal turn are errors
// naming what is wrong.
func TestGnubgActionRefused(t *testing.T) {
	g := backgammon.New(false)
	start := backgammon.StartPosition()
	s, err := backgammon.NewState(g, start, 0, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	ends := s.TurnEnds(nil)
	for _, c := range []struct{ answer, want string }{
		{"move 4HPwATDg28HBAA 24/18(2) 13/7(2)", "played 24/18(2) 13/7(2) (position 4HPwATDg28HBAA) in 4HPwATDgc/ABMA with 3-1, which is none of the legal moves"},
		{"move 4HPwATDgc/ABMA", "none of the legal moves"},
		{"pass", "answered no move in 4HPwATDgc/ABMA with 3-1, which has legal moves"},
		{"move xyz 8/5", `answered "tabula-gnubg move xyz 8/5", not a move`},
		{"error invalid positionid", "refused the request for 4HPwATDgc/ABMA with 3-1: invalid positionid"},
		{"bestmove 8/5 6/5", `answered "tabula-gnubg bestmove 8/5 6/5", not a move`},
		{"", "not a move"},
	} {
		_, _, err := gnubgAction(s, ends, c.answer)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("answer %q: %v, want %q", c.answer, err, c.want)
		}
	}
}

// fakeGnubg speaks gnubgplayer.py's protocol, with lines of other output
// in between as gnubg writes them. MODE engine is a correct engine: ours,
// playing the turn that ends last in TurnEnds' order (doubles included),
// which a test can check the game against. At a request it dies
// (die), never answers (hang), answers a position no legal turn reaches
// (illegal), nonsense (garbage) or no move (pass); noready exits before it
// is ready.
//
// Each start appends a line to the file named by TABULA_FAKE_GNUBG_STARTS,
// if set.
func fakeGnubg(mode string) {
	if log := os.Getenv("TABULA_FAKE_GNUBG_STARTS"); log != "" {
		f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintln(f, os.Getpid())
			f.Close()
		}
	}
	fmt.Println(" GNU Backgammon  Position ID: 4HPwATDgc/ABMA")
	if mode == "noready" {
		fmt.Fprintln(os.Stderr, "fake engine: thinking in mode", mode)
		fmt.Fprintln(os.Stderr, "fake engine: this gnubg has no Python")
		os.Exit(4)
	}
	fmt.Println("tabula-gnubg ready")
	g := backgammon.New(false)
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		fmt.Println("Moves for gnubg must now be entered manually.")
		f := strings.Fields(sc.Text())
		if mode != "engine" {
			fmt.Fprintln(os.Stderr, "fake engine: thinking in mode", mode)
		}
		switch mode {
		case "die":
			fmt.Fprintln(os.Stderr, "fake engine: segmentation fault (not really)")
			os.Exit(3)
		case "hang":
			time.Sleep(time.Hour)
		case "illegal":
			fmt.Println("tabula-gnubg move 4HPwATDg28HBAA 24/18(2) 13/7(2)")
		case "garbage":
			fmt.Println("tabula-gnubg what")
		case "pass":
			fmt.Println("tabula-gnubg pass")
		case "engine":
			if len(f) != 4 {
				fmt.Println("tabula-gnubg error want POSITION_ID D1 D2 PLIES")
				continue
			}
			d1, _ := strconv.Atoi(f[1])
			d2, _ := strconv.Atoi(f[2])
			pos, err := backgammon.ParsePositionID(f[0], 0)
			var s *backgammon.State
			if err == nil {
				s, err = backgammon.NewState(g, pos, 0, d1, d2)
			}
			if err != nil {
				fmt.Println("tabula-gnubg error", err)
				continue
			}
			ends := s.TurnEnds(nil)
			e := ends[len(ends)-1]
			if e.Pos == pos {
				fmt.Println("tabula-gnubg pass")
				continue
			}
			fmt.Printf("tabula-gnubg move %s -\n", backgammon.PositionID(&e.Pos, 0))
		}
	}
}
