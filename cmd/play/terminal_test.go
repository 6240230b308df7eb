package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
	"time"
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
		"illegal move: move 4",
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
		{[]string{"-game", "chess", "-player", "random"}, `unknown game "chess"`},
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
