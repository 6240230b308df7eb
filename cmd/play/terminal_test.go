package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"tabula/games"
	"tabula/games/sgf"
)

// playSession runs the terminal verb with script on stdin.
func playSession(t *testing.T, script string, args ...string) (string, error) {
	t.Helper()
	var out, errOut strings.Builder
	err := run(context.Background(), args, strings.NewReader(script), &out, &errOut)
	return out.String(), err
}

func TestTerminalScriptedSession(t *testing.T) {
	// Bad input first: a malformed move, an out-of-range column, undo
	// before any move; then a move, a hint, an undo, and moves that fill
	// column 4 until it is full.
	script := "z\n9\n" + strings.Repeat("4", 10000) + "\nundo\n4\nhint\nundo\n4\n4\n4\n4\n4\n4\nquit\n"
	out, err := playSession(t, script, "-game", "connect4", "-player", "alphabeta:depth=2")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"connect4: you play first against alphabeta:depth=2",
		`cannot read "z"`,
		`cannot read "9"`,
		"that line is longer than 4096 bytes",
		"nothing to undo: you have not moved yet.",
		"engine plays ",
		"(value ",
		"hint: ",
		"took back 4",
		"illegal move: 4 is not legal here; legal moves: 1 2 3 5 6 7; try again.",
		"you quit.",
		"game (connect4): 4",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the session lacks %q:\n%s", want, out)
		}
	}
	// The bad lines changed nothing: the game holds only legal moves,
	// six in column 4 from the person and the engine together.
	game := out[strings.LastIndex(out, "game (connect4): ")+len("game (connect4): "):]
	game = strings.TrimSpace(game)
	if strings.Count(game, "4") != 6 || strings.Count(out, "illegal move") < 1 {
		t.Errorf("game %q: want column 4 filled exactly (6 discs)", game)
	}
}

func TestTerminalWholeGameAgainstNet(t *testing.T) {
	ck := writeTestCheckpoint(t, t.TempDir(), "othello:size=6")
	// The person plays second and answers every position with each square
	// in turn; illegal ones are refused, so this plays the first legal
	// square of a1..f6 each turn, until the game ends.
	var b strings.Builder
	for range 40 {
		for r := '1'; r <= '6'; r++ {
			for c := 'a'; c <= 'f'; c++ {
				b.WriteString(string(c) + string(r) + "\n")
			}
		}
		b.WriteString("pass\n")
	}
	out, err := playSession(t, b.String(), "-game", "othello:size=6", "-player", "net:path="+ck+",sims=8", "-human", "second")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"top moves:", "(value ", "result: ", "game (othello:size=6): "} {
		if !strings.Contains(out, want) {
			t.Errorf("the session lacks %q:\n%s", want, out[max(0, len(out)-3000):])
		}
	}
}

func TestTerminalEndOfInputAndCancel(t *testing.T) {
	out, err := playSession(t, "4\n", "-game", "connect4", "-player", "random")
	if err != nil || !strings.Contains(out, "end of input: the game stops here.") || !strings.Contains(out, "game (connect4): 4") {
		t.Errorf("EOF: %v\n%s", err, out)
	}
	// Ctrl-C while waiting for the person: a clean stop.
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	defer pw.Close()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-game", "go:size=5", "-player", "random"}, pr, io.Discard, io.Discard)
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("after Ctrl-C: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Ctrl-C did not stop the session")
	}
}

func TestTerminalFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-game", "connect4"}, "-player is required"},
		{[]string{"-game", "shogi", "-player", "random"}, `unknown game "shogi"`},
		{[]string{"-game", "connect4", "-player", "wizard"}, `unknown kind "wizard"`},
		{[]string{"-game", "connect4", "-player", "random", "-human", "both"}, `-human "both": want first or second`},
		{[]string{"-game", "connect4", "-player", "random", "extra"}, "unexpected arguments"},
	} {
		_, err := playSession(t, "", c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.args, err, c.want)
		}
	}
	if _, err := playSession(t, "", "-h"); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
}

// TestTerminalWordsForNewcomers checks what a person new to the program
// reads: a hint's value is the person's, an engine move's the engine's; a
// refused move is named in the game's notation with the legal moves listed,
// not by its action number.
func TestTerminalWordsForNewcomers(t *testing.T) {
	out, err := playSession(t, "hint\nC3\nC3\nquit\n", "-game", "go:size=5,komi=7.5", "-player", "alphabeta:depth=2")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"hint: A5 (value -0.750 for you)",
		"engine plays A5 (value +0.722 for the engine)",
		"illegal move: C3 is not legal here; legal moves: B5 C5 D5 E5 A4 B4 C4 D4 E4 A3 B3 D3 E3 A2 B2 C2 D2 E2 A1 B1 and 4 more; try again.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the session lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"the side that moved", "action "} {
		if strings.Contains(out, bad) {
			t.Errorf("the session says %q:\n%s", bad, out)
		}
	}
}

// TestTerminalEarlyPass checks that a pass that lets the engine end a Go
// game at once, lost for the person, is played only when typed twice, with
// the count explained; that another move is still possible after the
// warning; and that the result of a game ended by passes gives the score.
func TestTerminalEarlyPass(t *testing.T) {
	args := []string{"-game", "go:size=5,komi=7.5", "-player", "alphabeta:depth=2"}
	out, err := playSession(t, "C3\npass\npass\n", args...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"careful: after pass the engine can end the game at once by playing pass, and you would lose " +
			"(W+7.5 by area scoring: every stone on the board counts as alive); type pass again to play it anyway, or another move.",
		"engine plays pass",
		"result: the engine wins (W+7.5 by area scoring: every stone on the board counts as alive).",
		"game (go:size=5,komi=7.5,max_moves=75): C3 A5 pass pass",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("pass, pass: the session lacks %q:\n%s", want, out)
		}
	}
	out, err = playSession(t, "C3\npass\nB3\nquit\n", args...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "careful: ") || !strings.Contains(out, "game (go:size=5,komi=7.5,max_moves=75): C3 A5 B3 ") {
		t.Errorf("pass, then B3: the game did not go on with B3:\n%s", out)
	}
}

// TestTerminalSGF plays a whole Othello game with -sgf and reads the record
// back: the moves printed at the end, the engine's values on its moves.
func TestTerminalSGF(t *testing.T) {
	dir := t.TempDir()
	ck := writeTestCheckpoint(t, dir, "othello:size=6")
	var b strings.Builder
	for range 40 {
		for r := '1'; r <= '6'; r++ {
			for c := 'a'; c <= 'f'; c++ {
				b.WriteString(string(c) + string(r) + "\n")
			}
		}
		b.WriteString("pass\n")
	}
	file := filepath.Join(dir, "game.sgf")
	out, err := playSession(t, b.String(), "-game", "othello:size=6", "-player", "net:path="+ck+",sims=8", "-human", "second", "-sgf", file)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatalf("%v\n%s", err, out[max(0, len(out)-500):])
	}
	defer f.Close()
	rec, err := sgf.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := games.New("othello:size=6")
	line := "game (othello:size=6): " + g.(games.Notation).FormatActions(rec.Actions()) + "\n"
	if !strings.Contains(out, line) || rec.White != "you" || rec.Result == "?" {
		t.Errorf("record %q (white %q, result %q) does not match the session:\n%s", line, rec.White, rec.Result, out[max(0, len(out)-500):])
	}
	valued := 0
	for _, m := range rec.Moves {
		if m.HasValue && m.Color != 0 {
			t.Errorf("move %+v: a value on the person's move", m)
		}
		if m.HasValue {
			valued++
		}
	}
	if valued == 0 {
		t.Errorf("no engine move has its value")
	}
}

// TestTerminalChess plays chess in the terminal: the board is drawn with
// its coordinates, moves are read in SAN and in UCI notation, the engine's
// moves are shown in both, and a refused move lists every legal move in SAN.
func TestTerminalChess(t *testing.T) {
	out, err := playSession(t, "xx\ne4\nNf6\ng1f3\nquit\n", "-game", "chess", "-player", "random", "-seed", "3")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"8 r n b q k b n r",
		"1 R N B Q K B N R",
		"  a b c d e f g h",
		`cannot read "xx"`,
		"legal moves: Na3 Nc3 Nf3 Nh3 a3 a4 b3 b4 c3 c4 d3 d4 e3 e4 f3 f4 g3 g4 h3 h4 (type help",
		"illegal move: Nf6 is not legal here; legal moves: ",
		"you quit.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the session lacks %q:\n%s", want, out)
		}
	}
	if n := len(regexp.MustCompile(`engine plays [a-h][1-8][a-h][1-8] \([a-hBKNQRx1-8+#]+\)`).FindAllString(out, -1)); n != 2 {
		t.Errorf("%d engine moves shown, want 2 with their SAN:\n%s", n, out)
	}
	game := strings.Fields(out[strings.LastIndex(out, "game (chess): ")+len("game (chess): "):])
	if len(game) != 4 || game[0] != "e2e4" || game[2] != "g1f3" {
		t.Errorf("game %v, want e2e4, a reply, g1f3 and a reply", game)
	}
}
