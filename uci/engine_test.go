package uci

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"tabula/games/chess"
	"tabula/internal/version"
)

// firstMover plays the first legal move. With block it waits for the
// context to end first, as a search under go infinite does.
type firstMover struct {
	block bool
	opts  Options
	calls int
}

func (f *firstMover) Search(ctx context.Context, pos Position, lim Limits) (Result, error) {
	f.calls++
	if f.block {
		<-ctx.Done()
	}
	legal := pos.State.LegalActions(nil)
	return Result{Move: legal[0], Info: Info{Depth: 3, Nodes: 1000, Score: Score{Known: true, CP: -12}}}, nil
}

// runScript runs a whole session and returns the output lines.
func runScript(t *testing.T, build Builder, script string) []string {
	t.Helper()
	e, err := NewEngine(DefaultEngineConfig(), build)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var out strings.Builder
	done := make(chan error, 1)
	go func() { done <- e.Run(context.Background(), strings.NewReader(script), &out) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the engine hangs")
	}
	return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
}

func TestEngineSession(t *testing.T) {
	var built []Options
	build := func(o Options) (Searcher, error) {
		built = append(built, o)
		return &firstMover{opts: o}, nil
	}
	script := strings.Join([]string{
		"uci",
		"isready",
		"ucinewgame",
		"position startpos moves e2e4 e7e5",
		"go depth 2",
		"hello world",                           // unknown command
		"position startpos moves e2e4 e2e4",     // illegal second move: position unchanged
		"position startpos moves e2e4 e7e5 zz9", // not a move
		"position fen not a fen at all",
		"position sideways",
		"go depth 2",
		"go wtime x",
		"go sometimes 3",
		"setoption name Hash value 64",
		"setoption name Hash value 0",
		"setoption name Colour value blue",
		"position fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1 moves e1g1",
		"go wtime 1000 btime 1000 winc 10 binc 10 movestogo 5",
		"position fen 7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", // Black is mated
		"go movetime 50",
		"ponderhit",
		"stop",
		"\x00\xff\xfe garbage \x01",
		"",
		"quit",
		"isready", // after quit: not read
	}, "\n") + "\n"
	lines := runScript(t, build, script)
	want := []string{
		"id name tabula",
		"id author ",
		"option name Hash type spin default 16 min 1 max 4096",
		"option name Threads type spin default 1 min 1 max 1",
		"uciok",
		"readyok",
		"info depth 3 score cp -12 nodes 1000 nps ",
		"bestmove ",
		"info string error: unknown command \"hello\"",
		"info string error: position: move 2 e2e4 is not legal in",
		"info string error: position: move 3: move \"zz9\"",
		"info string error: position: fen",
		"info string error: position: \"sideways\": want startpos or fen",
		"info depth 3",
		"bestmove ",
		"info string error: go: wtime \"x\": want an integer; go ignored",
		"info string error: go: unknown or unsupported limit \"sometimes\"",
		"info string error: setoption Hash: value \"0\", want 1..4096",
		"info string error: setoption: unknown option \"Colour\"",
		"info depth 3",
		"bestmove e8",
		"info string error: the game is over (checkmate)",
		"bestmove (none)",
		"info string error: unknown command",
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), strings.Join(lines, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %q, want %q...", i+1, lines[i], w)
		}
	}
	// The two searches after e2e4 e7e5 (the illegal positions changed
	// nothing) play a legal White move there.
	s := chess.Game{}.NewInitialState().(*chess.State)
	for _, m := range []string{"e2e4", "e7e5"} {
		a, _ := s.ParseMove(m)
		s.ApplyAction(a)
	}
	for _, i := range []int{7, 14} {
		mv := strings.TrimPrefix(lines[i], "bestmove ")
		if a, err := s.ParseMove(mv); err != nil || !s.IsLegal(a) {
			t.Errorf("line %d: %q is not a legal move after 1. e4 e5", i+1, lines[i])
		}
	}
	// Built once at the first go, then again after setoption Hash.
	if len(built) != 2 || built[0].HashMB != 16 || built[1].HashMB != 64 {
		t.Errorf("searchers built with %+v, want Hash 16 then 64", built)
	}
}

// session drives an engine over pipes, one line at a time.
type session struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Scanner
	done chan error
}

func startSession(t *testing.T, build Builder) *session {
	e, err := NewEngine(DefaultEngineConfig(), build)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &session{t: t, in: inW, out: bufio.NewScanner(outR), done: make(chan error, 1)}
	go func() {
		err := e.Run(context.Background(), inR, outW)
		outW.Close()
		s.done <- err
	}()
	return s
}

func (s *session) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

// expect reads lines until one starts with prefix, within d.
func (s *session) expect(prefix string, d time.Duration) string {
	s.t.Helper()
	got := make(chan string, 1)
	go func() {
		for s.out.Scan() {
			if strings.HasPrefix(s.out.Text(), prefix) {
				got <- s.out.Text()
				return
			}
		}
		close(got)
	}()
	select {
	case line, ok := <-got:
		if !ok {
			s.t.Fatalf("output ended before %q", prefix)
		}
		return line
	case <-time.After(d):
		s.t.Fatalf("no %q within %v", prefix, d)
	}
	return ""
}

// TestEngineStopDuringSearch: go infinite searches until stop; isready is
// answered meanwhile; stop brings bestmove at once; ponderhit does not end
// an infinite search.
func TestEngineStopDuringSearch(t *testing.T) {
	s := startSession(t, func(Options) (Searcher, error) { return &firstMover{block: true}, nil })
	s.send("position startpos")
	s.send("go infinite")
	s.send("ponderhit")
	s.send("go depth 1")
	s.expect("info string error: go ignored: a search is running", 2*time.Second)
	s.send("position startpos moves e2e4")
	s.expect("info string error: position ignored: a search is running", 2*time.Second)
	s.send("isready")
	s.expect("readyok", 2*time.Second)
	start := time.Now()
	s.send("stop")
	line := s.expect("bestmove ", 2*time.Second)
	if d := time.Since(start); d > time.Second {
		t.Errorf("bestmove %v after stop", d)
	}
	if line != "bestmove a2a3" && !strings.HasPrefix(line, "bestmove ") {
		t.Errorf("bestmove line %q", line)
	}
	// go movetime ends by itself; go ponder waits for ponderhit.
	s.send("go movetime 100")
	s.expect("bestmove ", 2*time.Second)
	s.send("go ponder movetime 20")
	time.Sleep(100 * time.Millisecond)
	s.send("ponderhit")
	s.expect("bestmove ", 2*time.Second)
	// quit during a search stops it and ends the session.
	s.send("go infinite")
	s.send("quit")
	s.expect("bestmove ", 2*time.Second)
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("quit during a search did not end the session")
	}
}

// TestEngineEndOfInputDuringSearch: the input ending stops the search.
func TestEngineEndOfInputDuringSearch(t *testing.T) {
	lines := runScript(t, func(Options) (Searcher, error) { return &firstMover{block: true}, nil }, "go infinite\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "bestmove ") {
		t.Errorf("output %q, want an info line and bestmove", lines)
	}
}

func TestEngineLongLine(t *testing.T) {
	lines := runScript(t, func(Options) (Searcher, error) { return &firstMover{}, nil },
		"position startpos moves"+strings.Repeat(" e2e4", MaxLineBytes/4)+"\nisready\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "info string error: line longer than") || lines[1] != "readyok" {
		t.Errorf("output %q", lines)
	}
}

func TestBudget(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		lim  Limits
		side chess.Color
		want time.Duration
		ok   bool
	}{
		{Limits{MoveTime: 1000 * ms}, chess.White, 950 * ms, true},
		{Limits{MoveTime: 10 * ms}, chess.White, 9 * ms, true},
		{Limits{WTime: 30000 * ms, BTime: 600 * ms}, chess.White, 1000 * ms, true},
		{Limits{WTime: 30000 * ms, BTime: 600 * ms, BInc: 100 * ms}, chess.Black, 95 * ms, true},
		{Limits{WTime: 10000 * ms, MovesToGo: 1}, chess.White, 9900 * ms, true},
		{Limits{Depth: 5}, chess.White, 0, false},
		{Limits{Infinite: true, MoveTime: ms}, chess.White, 0, false},
	} {
		got, ok := c.lim.Budget(c.side)
		if got != c.want || ok != c.ok {
			t.Errorf("%+v side %d: %v %v, want %v %v", c.lim, c.side, got, ok, c.want, c.ok)
		}
	}
}

func TestParseOptionAndInfo(t *testing.T) {
	o, err := ParseOption(strings.Fields("name Skill Level type spin default 20 min 0 max 20"))
	if err != nil || o.Name != "Skill Level" || o.Type != "spin" || o.Default != "20" || !o.HasRange || o.Min != 0 || o.Max != 20 {
		t.Errorf("option %+v, %v", o, err)
	}
	o, err = ParseOption(strings.Fields("name UCI_Variant type combo default chess var chess var atomic"))
	if err != nil || o.Name != "UCI_Variant" || o.HasRange {
		t.Errorf("option %+v, %v", o, err)
	}
	in := ParseInfo(strings.Fields("depth 12 seldepth 15 multipv 1 score mate -3 nodes 5000 nps 10 pv e2e4"))
	if in.Depth != 12 || in.Nodes != 5000 || !in.Score.Known || in.Score.Mate != -3 {
		t.Errorf("info %+v", in)
	}
	if got := (Limits{Depth: 3, WTime: 2 * time.Second, Infinite: true}).String(); got != "infinite depth 3 wtime 2000" {
		t.Errorf("limits %q", got)
	}
}

// FuzzEngine feeds arbitrary sessions to the engine: it must neither
// crash nor hang, and every go gets a bestmove.
func FuzzEngine(f *testing.F) {
	f.Add("position startpos moves e2e4\ngo depth 1\n")
	f.Add("position fen 8/8/8/8/8/8/8/8 w - - 0 1\ngo\n")
	f.Add("position fen 4k3/8/8/8/8/8/8/4K3 w - - 0 1 moves e1e2 e8e7\ngo nodes 5\n")
	f.Add("setoption name Hash value 99999999999999999999\nsetoption name\nsetoption\ngo movetime -5\n")
	f.Add("position startpos moves e7e8q\nposition startpos moves a2a4 b7b5 a4b5 a7a5 b5a6\ngo\n")
	f.Fuzz(func(t *testing.T, script string) {
		e, err := NewEngine(DefaultEngineConfig(), func(Options) (Searcher, error) { return &firstMover{}, nil })
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		done := make(chan error, 1)
		go func() { done <- e.Run(context.Background(), strings.NewReader(script), &out) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the engine hangs")
		}
	})
}

// slowSearcher takes 100ms and fails if stopped before.
type slowSearcher struct{}

func (slowSearcher) Search(ctx context.Context, pos Position, _ Limits) (Result, error) {
	select {
	case <-ctx.Done():
		return Result{}, ctx.Err()
	case <-time.After(100 * time.Millisecond):
	}
	return Result{Move: pos.State.LegalActions(nil)[0]}, nil
}

// TestEngineEndOfInputFinishesSearch: a search with limits (or none) runs to
// its end when the input ends; quit stops it at once.
func TestEngineEndOfInputFinishesSearch(t *testing.T) {
	build := func(Options) (Searcher, error) { return slowSearcher{}, nil }
	if lines := runScript(t, build, "go depth 3\n"); len(lines) != 2 || lines[1] != "bestmove b1a3" {
		t.Errorf("at the end of input: %q, want the search's move", lines)
	}
	if lines := runScript(t, build, "go depth 3\nquit\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], "info string error: the search failed") {
		t.Errorf("after quit: %q, want the search stopped", lines)
	}
}

// TestEngineIDName: "id name" is the engine's name and the build's revision
// (version.Revision, what -version prints and GTP's version answers); a
// configured version follows the name, none leaves the name alone, and a
// version of two lines is refused.
func TestEngineIDName(t *testing.T) {
	build := func(o Options) (Searcher, error) { return &firstMover{opts: o}, nil }
	lines := runScript(t, build, "uci\nquit\n")
	if want := "id name tabula " + version.Revision(); lines[0] != want {
		t.Errorf("uci answers %q, want %q", lines[0], want)
	}
	for _, c := range []struct{ name, version, want string }{
		{"tester", "", "id name tester"},
		{"tester", "3f2a1c0 (2026-12-01T23:10:00Z)", "id name tester 3f2a1c0 (2026-12-01T23:10:00Z)"},
	} {
		cfg := DefaultEngineConfig()
		cfg.Name, cfg.Version = c.name, c.version
		e, err := NewEngine(cfg, build)
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		if err := e.Run(context.Background(), strings.NewReader("uci\nquit\n"), &out); err != nil {
			t.Fatal(err)
		}
		e.Close()
		if got, _, _ := strings.Cut(out.String(), "\n"); got != c.want {
			t.Errorf("name %q, version %q: uci answers %q, want %q", c.name, c.version, got, c.want)
		}
	}
	cfg := DefaultEngineConfig()
	cfg.Version = "1\nuciok"
	if _, err := NewEngine(cfg, build); err == nil || !strings.Contains(err.Error(), "version") {
		t.Errorf("a version of two lines: %v, want refused", err)
	}
}
