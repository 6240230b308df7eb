package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"tabula/games"
	"tabula/gtp"
	"tabula/internal/refdata/refdatatest"
	"tabula/match"
	"tabula/nn"
	"tabula/players"
)

func TestGTPVerb(t *testing.T) {
	var out, errOut strings.Builder
	script := "1 name\n2 boardsize 7\n3 komi 9\n4 play b D4\n5 genmove w\n6 play w D4\n7 bogus\n8 final_score\n9 quit\n10 name\n"
	err := run(context.Background(), []string{"gtp", "-game", "go:size=9", "-player", "alphabeta:depth=1", "-name", "tester"},
		strings.NewReader(script), &out, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	resp := strings.Split(strings.TrimSuffix(out.String(), "\n\n"), "\n\n")
	want := []string{"=1 tester", "=2 ", "=3 ", "=4 ", "=5 ", "?6 illegal move", "?7 unknown command", "=8 ", "=9 "}
	if len(resp) != len(want) {
		t.Fatalf("responses %q, want %d", resp, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(resp[i], w) {
			t.Errorf("response %d = %q, want %q...", i+1, resp[i], w)
		}
	}
	if len(resp[4]) < 5 || !strings.HasPrefix(resp[7], "=8 W+") && !strings.HasPrefix(resp[7], "=8 B+") {
		t.Errorf("genmove %q, final_score %q", resp[4], resp[7])
	}
	if strings.Contains(out.String(), "level=") || !strings.Contains(errOut.String(), "play gtp: ready") {
		t.Errorf("logs belong on stderr only; stdout %q, stderr %q", out.String(), errOut.String())
	}
}

func TestGTPVerbErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"gtp", "-game", "connect4", "-player", "random"}, "game connect4 has no GTP dialect"},
		{[]string{"gtp", "-game", "go:size=9"}, "-player is required"},
		{[]string{"gtp", "-game", "go:size=99", "-player", "random"}, "size=99 out of range"},
		{[]string{"gtp", "-game", "go:size=9", "-player", "alphabeta:depth=x"}, `depth="x"`},
	} {
		err := run(context.Background(), c.args, strings.NewReader(""), &strings.Builder{}, &strings.Builder{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.args, err, c.want)
		}
	}
	if err := run(context.Background(), []string{"gtp", "-h"}, strings.NewReader(""), &strings.Builder{}, &strings.Builder{}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
}

// TestMain lets the test binary be the play command: run with the first
// argument "play-main" it runs play with the rest of the arguments.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "play-main" {
		os.Args = append(os.Args[:1], os.Args[2:]...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestGTPVerbAgainstEngines runs `play gtp` as a process and plays it
// through arena's GTP client against GNU Go and GRhino: no forfeits (every
// move our engine sends passes our rules), games to the end.
func TestGTPVerbAgainstEngines(t *testing.T) {
	for _, c := range []struct {
		game, ours, theirs, program, install string
	}{
		{"go:size=7,komi=9", "alphabeta:depth=1", "gnugo:level=1", "gnugo", "apt-get install gnugo"},
		{"othello:size=8", "alphabeta:depth=2", "grhino:level=1", "gtp-rhino", "apt-get install grhino"},
	} {
		t.Run(c.game, func(t *testing.T) {
			refdatatest.Program(t, c.program, c.install)
			g, err := games.New(c.game)
			if err != nil {
				t.Fatal(err)
			}
			ours := fmt.Sprintf("gtp:cmd=%q,args=\"play-main gtp -game %s -player %s\",timeout=30s", os.Args[0], c.game, c.ours)
			specs, err := players.ParseSpecs(ours + " " + c.theirs)
			if err != nil {
				t.Fatal(err)
			}
			ps, err := players.BuildAll(g, specs)
			if err != nil {
				t.Fatal(err)
			}
			res, err := match.Match(context.Background(), match.MatchConfig{Games: 2, Parallel: 2, Seed: 9, RandomPlies: 2}, g, ps)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res.Forfeits {
				t.Errorf("game %d forfeited by %s: %s\n%s", r.Index, r.Forfeit.Player, r.Forfeit.Reason, r.Forfeit.Stderr)
			}
			if n := res.Total(0).Games(); n != 2 {
				t.Errorf("%d games played, want 2", n)
			}
		})
	}
}

// TestGTPGameFromCheckpoint checks that `play gtp` with a net player and no
// -game plays its checkpoint's game, as terminal play does, and that an
// Othello engine accepts the komi that controllers send to every game.
func TestGTPGameFromCheckpoint(t *testing.T) {
	ck := writeTestCheckpoint(t, t.TempDir(), "othello:size=8")
	var out, errOut strings.Builder
	err := run(context.Background(), []string{"gtp", "-player", "net:path=" + ck + ",sims=2"},
		strings.NewReader("1 komi 5\n2 play b f5\n3 genmove w\n4 quit\n"), &out, &errOut)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	resp := strings.Split(strings.TrimSuffix(out.String(), "\n\n"), "\n\n")
	if len(resp) != 4 || resp[0] != "=1 " || resp[1] != "=2 " || !strings.HasPrefix(resp[2], "=3 ") || len(resp[2]) != 5 {
		t.Errorf("responses %q, want komi and f5 accepted and an Othello reply", resp)
	}
	if !strings.Contains(errOut.String(), "othello:size=8") {
		t.Errorf("the engine does not say it plays othello:size=8:\n%s", errOut.String())
	}
}

// TestGTPAnalysisWithNet offers the analysis commands for a net player and
// answers lz-genmove_analyze with reports and the move.
func TestGTPAnalysisWithNet(t *testing.T) {
	ck := writeTestCheckpoint(t, t.TempDir(), "go:size=9")
	var out, errOut strings.Builder
	err := run(context.Background(), []string{"gtp", "-player", "net:path=" + ck + ",sims=16"},
		strings.NewReader("1 known_command lz-analyze\n2 lz-genmove_analyze b 1\n3 kata-analyze w 1\n4 showboard\n5 quit\n"), &out, &errOut)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	resp := strings.Split(strings.TrimSuffix(out.String(), "\n\n"), "\n\n")
	if len(resp) != 5 || resp[0] != "=1 true" || !strings.HasPrefix(resp[1], "=2\n") || !strings.Contains(resp[1], "\nplay ") ||
		!strings.HasPrefix(resp[2], "=3") || !strings.HasPrefix(resp[3], "=4 ") {
		t.Errorf("responses %q", resp)
	}
	for _, l := range strings.Split(resp[1], "\n")[1:] {
		if !strings.HasPrefix(l, "info move ") && !strings.HasPrefix(l, "play ") {
			t.Errorf("line %q in lz-genmove_analyze's answer", l)
		}
	}
}

// TestGTPKataAnalyzeHeads checks that `play gtp` hands a network's
// ownership and score heads to the engine: kata-genmove_analyze with
// ownership true reports scoreLead and 49 ownership values on 7x7.
func TestGTPKataAnalyzeHeads(t *testing.T) {
	ck := writeCheckpointConfig(t, t.TempDir(), "go:size=7",
		nn.Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8, Ownership: true, Score: true})
	var out, errOut strings.Builder
	err := run(context.Background(), []string{"gtp", "-player", "net:path=" + ck + ",sims=16"},
		strings.NewReader("1 kata-genmove_analyze b 1 ownership true\n2 quit\n"), &out, &errOut)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	lines := strings.Split(strings.Split(out.String(), "\n\n")[0], "\n")
	if len(lines) < 3 || lines[0] != "=1" || !strings.HasPrefix(lines[len(lines)-1], "play ") {
		t.Fatalf("answer %q", lines)
	}
	last := lines[len(lines)-2]
	info, own, ok := strings.Cut(last, " ownership ")
	if !ok || !strings.Contains(info, " scoreLead ") || len(strings.Fields(own)) != 49 {
		t.Errorf("report without scoreLead or 49 ownership values: %q", last)
	}
}

// TestGTPWrapperKeepsInterfaces checks that the wrapper `play gtp` puts
// around a player keeps what the engine looks for: the clock's time limit
// for the searches that take one, the analysis commands for the net player.
func TestGTPWrapperKeepsInterfaces(t *testing.T) {
	ck := writeCheckpointConfig(t, t.TempDir(), "go:size=7",
		nn.Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8, Ownership: true, Score: true})
	g, err := games.New("go:size=7")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		spec                    string
		timed, analyze, outcome bool
	}{
		{"net:path=" + ck + ",sims=16", true, true, true},
		{"alphabeta:depth=2", true, false, false},
		{"random", false, false, false},
	} {
		spec, err := players.ParseSpec(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		f, err := players.Build(g, spec)
		if err != nil {
			t.Fatal(err)
		}
		p, err := f.New(rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		w := wrapGTP(p, f)
		_, timed := w.(gtp.TimeLimiter)
		_, analyze := w.(gtp.Analyzer)
		_, outcome := w.(gtp.OutcomeAnalyzer)
		if timed != c.timed || analyze != c.analyze || outcome != c.outcome {
			t.Errorf("%s: wrapped as TimeLimiter %v, Analyzer %v, OutcomeAnalyzer %v; want %v, %v, %v",
				c.spec, timed, analyze, outcome, c.timed, c.analyze, c.outcome)
		}
		if err := w.(io.Closer).Close(); err != nil {
			t.Error(err)
		}
	}
}

// TestGTPClockReachesNetPlayer plays a move under a GTP clock: the engine
// warns when the player takes no time limit, and must not for a net player.
func TestGTPClockReachesNetPlayer(t *testing.T) {
	ck := writeCheckpointConfig(t, t.TempDir(), "go:size=7",
		nn.Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8})
	var out, errOut strings.Builder
	err := run(context.Background(), []string{"gtp", "-player", "net:path=" + ck + ",sims=64"},
		strings.NewReader("1 time_settings 60 0 0\n2 genmove b\n3 quit\n"), &out, &errOut)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), "=2 ") {
		t.Fatalf("no move under the clock: %q", out.String())
	}
	if strings.Contains(errOut.String(), "takes no time limit") {
		t.Errorf("the net player's time limit did not reach the engine: %s", errOut.String())
	}
}
