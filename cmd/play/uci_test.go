package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tabula/games/chess"
	"tabula/internal/refdata/refdatatest"
	"tabula/internal/version"
	"tabula/match"
	"tabula/players"
	"tabula/search"
	"tabula/uci"
)

func TestUCIVerb(t *testing.T) {
	var out, errOut strings.Builder
	script := "uci\nisready\nposition startpos moves e2e4 e7e5 g1f3\ngo depth 3\nposition startpos moves e2e4 e7e5 e1e3\nfoo\ngo movetime 20\nquit\n"
	err := run(context.Background(), []string{"uci", "-player", "random", "-name", "tester"}, strings.NewReader(script), &out, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if idName := "id name tester " + version.Revision(); lines[0] != idName {
		t.Errorf("uci answers %q, want %q (-name, then the build's revision)", lines[0], idName)
	}
	want := []string{"id name tester", "id author tabula (random)", "option name Hash", "option name Threads", "uciok", "readyok",
		"info time", "bestmove ", "info string error: position: move 3 e1e3 is not legal", "info string error: unknown command \"foo\"", "info time", "bestmove "}
	if len(lines) != len(want) {
		t.Fatalf("output %q, want %d lines", lines, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %q, want %q...", i+1, lines[i], w)
		}
	}
	s, _ := chess.Game{}.NewState("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2")
	for _, i := range []int{7, 11} {
		if a, err := s.ParseMove(strings.TrimPrefix(lines[i], "bestmove ")); err != nil || !s.IsLegal(a) {
			t.Errorf("%q is not a legal move after 1. e4 e5 2. Nf3", lines[i])
		}
	}
	if !strings.Contains(errOut.String(), "play uci: ready") {
		t.Errorf("stderr %q", errOut.String())
	}
	err = run(context.Background(), []string{"uci", "-player", "gtp:cmd=x"}, strings.NewReader(""), &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "play uci:") {
		t.Errorf("a player that cannot play chess: %v", err)
	}
}

// TestUCISpecFor checks how go limits and options adjust the player's spec.
func TestUCISpecFor(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		spec string
		lim  uci.Limits
		opts uci.Options
		want string
	}{
		{"alphabeta:depth=3", uci.Limits{}, uci.Options{HashMB: 4, Threads: 1}, "alphabeta:depth=3"},
		{"alphabeta:depth=3,tt=12", uci.Limits{Depth: 5}, uci.Options{HashMB: 1, Threads: 1}, "alphabeta:tt=12,depth=5"},
		{"alphabeta:time=1s", uci.Limits{Nodes: 5000}, uci.Options{HashMB: 4, Threads: 1}, "alphabeta:nodes=5000"},
		{"alphabeta", uci.Limits{MoveTime: 100 * ms}, uci.Options{HashMB: 4, Threads: 1}, "alphabeta:depth=64"},
		{"alphabeta", uci.Limits{Infinite: true}, uci.Options{HashMB: 64, Threads: 2}, "alphabeta:depth=64,tt=20,threads=2"},
		{"alphabeta:nodes=100", uci.Limits{BTime: 100 * ms}, uci.Options{HashMB: 4, Threads: 1}, "alphabeta:nodes=100"},
		{"alphabeta:cpu=10ms", uci.Limits{WTime: 100 * ms}, uci.Options{HashMB: 4, Threads: 1}, "alphabeta:cpu=10ms"},
		{"alphabeta:cpu=10ms", uci.Limits{Depth: 5}, uci.Options{HashMB: 4, Threads: 1}, "alphabeta:depth=5"},
		{"random", uci.Limits{Depth: 3}, uci.Options{HashMB: 64, Threads: 4}, "random"},
		{"mcts:rollouts=10", uci.Limits{Depth: 3, MoveTime: ms}, uci.Options{HashMB: 16, Threads: 1}, "mcts:rollouts=10"},
	} {
		spec, err := players.ParseSpec(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		kind := kindInfo(spec.Kind)
		s := &uciSearcher{spec: spec, kind: kind, cfg: uciEngineConfig(spec, kind), opts: c.opts}
		if got := s.specFor(c.lim).String(); got != c.want {
			t.Errorf("%s with %+v, %+v: %s, want %s", c.spec, c.lim, c.opts, got, c.want)
		}
	}
}

// TestUCISearchInfo checks the score of alpha-beta values in info lines.
func TestUCISearchInfo(t *testing.T) {
	s := chess.Game{}.NewInitialState()
	s.ApplyAction(chess.ActionOf(chess.NewMove(12, 28, 0))) // e2e4: move number 1
	for _, c := range []struct {
		value float64
		want  string
	}{
		{0.0031, "depth 4 score cp 31 nodes 900 pv e7e5"},                                  // chess: a centipawn is 1e-4 of the search's units
		{search.WinValue - 4*search.MoveDecay, "depth 4 score mate 2 nodes 900 pv e7e5"},   // we mate at ply 4: moves 1 and 3 of ours
		{-search.WinValue + 5*search.MoveDecay, "depth 4 score mate -2 nodes 900 pv e7e5"}, // mated at ply 5
	} {
		in := searchInfo(search.Result{Depth: 4, Nodes: 900, Value: c.value, PV: []int{chess.ActionOf(chess.NewMove(52, 36, 0))}}, s)
		if got := in.String(); got != c.want {
			t.Errorf("value %v: %q, want %q", c.value, got, c.want)
		}
	}
}

// TestUCIVerbThroughClient plays `play uci` as a process through the
// arena's UCI client: every move it sends must pass our rules.
func TestUCIVerbThroughClient(t *testing.T) {
	g := chess.Game{MaxPlies: 60}
	spec := fmt.Sprintf("uci:cmd=%q,args=\"play-main uci -player random\",movetime=10ms,timeout=20s random", os.Args[0])
	specs, err := players.ParseSpecs(spec)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := players.BuildAll(g, specs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := match.Match(context.Background(), match.MatchConfig{Games: 2, Parallel: 2, Seed: 2, RandomPlies: 2}, g, ps)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Forfeits {
		t.Errorf("game %d forfeited by %s: %s\n%s", r.Index, r.Forfeit.Player, r.Forfeit.Reason, r.Forfeit.Stderr)
	}
}

// TestUCIVerbUnderPolyglot runs `play uci` under Debian's polyglot, a UCI
// host that speaks xboard to its side: the moves it is told reach our engine
// and its answers come back as legal xboard moves.
func TestUCIVerbUnderPolyglot(t *testing.T) {
	pg := refdatatest.Program(t, "polyglot", "apt-get install polyglot")
	dir := t.TempDir()
	ini := fmt.Sprintf("[PolyGlot]\nEngineCommand = %s play-main uci -player random -seed 3\nEngineDir = %s\nLog = false\nBook = false\n[Engine]\nHash = 8\n", os.Args[0], dir)
	if err := os.WriteFile(filepath.Join(dir, "tabula.ini"), []byte(ini), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, pg, filepath.Join(dir, "tabula.ini"))
	cmd.Dir = dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	}()
	sc := bufio.NewScanner(stdout)
	send := func(lines ...string) {
		for _, l := range lines {
			if _, err := io.WriteString(stdin, l+"\n"); err != nil {
				t.Fatalf("writing %q: %v", l, err)
			}
		}
	}
	// expect reads until a line starting with prefix; the scanner stops at
	// the context's deadline, when polyglot is killed.
	expect := func(prefix string) string {
		t.Helper()
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), prefix) {
				return sc.Text()
			}
		}
		t.Fatalf("no %q from polyglot; stderr:\n%s", prefix, stderr.String())
		return ""
	}
	send("xboard", "protover 2")
	expect("feature done=1")
	send("new", "level 0 1 0", "usermove e2e4")
	s := chess.Game{}.NewInitialState().(*chess.State)
	play := func(m string) {
		t.Helper()
		a, err := s.ParseMove(m)
		if err != nil {
			t.Fatalf("polyglot relayed %q: %v", m, err)
		}
		s.ApplyAction(a)
	}
	play("e2e4")
	for i := 0; i < 4 && !s.IsTerminal(); i++ {
		reply := strings.TrimPrefix(expect("move "), "move ")
		play(reply)
		if s.IsTerminal() {
			break
		}
		ours := chess.Game{}.FormatAction(s.LegalActions(nil)[0])
		send("usermove " + ours)
		play(ours)
	}
	send("ping 7")
	expect("pong 7")
	send("quit")
}

// TestUCIStopRealSearch runs `play uci` with the alpha-beta player: go
// infinite searches until stop, which is answered with a legal bestmove at
// once; garbage lines after it get errors and the engine still answers
// isready.
func TestUCIStopRealSearch(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		var errOut strings.Builder
		err := run(context.Background(), []string{"uci", "-player", "alphabeta"}, inR, outW, &errOut)
		_ = outW.Close()
		done <- err
	}()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send := func(l string) {
		if _, err := io.WriteString(inW, l+"\n"); err != nil {
			t.Fatalf("writing %q: %v", l, err)
		}
	}
	expect := func(prefix string, within time.Duration) string {
		t.Helper()
		timer := time.After(within)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("output ended before %q", prefix)
				}
				if strings.HasPrefix(l, prefix) {
					return l
				}
			case <-timer:
				t.Fatalf("no %q within %v", prefix, within)
			}
		}
	}
	send("uci")
	expect("uciok", 5*time.Second)
	send("position startpos moves e2e4 e7e5")
	send("go infinite")
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	send("stop")
	best := expect("bestmove ", 3*time.Second)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("bestmove %v after stop", d)
	}
	s, _ := chess.Game{}.NewState("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
	if a, err := s.ParseMove(strings.TrimPrefix(best, "bestmove ")); err != nil || !s.IsLegal(a) {
		t.Errorf("%q is not a legal move after 1. e4 e5", best)
	}
	send("go sometimes")
	expect("info string error: go", 2*time.Second)
	send("\x00\xff garbage")
	expect("info string error: unknown command", 2*time.Second)
	send("isready")
	expect("readyok", 2*time.Second)
	send("quit")
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("quit did not end play uci")
	}
}
