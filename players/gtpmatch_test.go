package players_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"tabula/players/playerstest"
	"testing"
	"time"

	"tabula/games"
	_ "tabula/games/gogame"
	refdata "tabula/internal/refdata/refdatatest"
	"tabula/match"
	"tabula/players"
)

func TestGTPForfeits(t *testing.T) {
	g := playerstest.MustGame(t, "go:size=5,komi=0.5")
	for _, c := range []struct {
		mode, reason string
	}{
		{"die", "engine died"},
		{"hang", "engine timed out: no answer to"},
		{"illegal", "played the illegal move"},
		{"garbage", `answered genmove with "Z99", not a move`},
	} {
		t.Run(c.mode, func(t *testing.T) {
			spec, err := players.ParseSpec(fmt.Sprintf("gtp:cmd=%q,args=\"fakegtp %s\",timeout=300ms", os.Args[0], c.mode))
			if err != nil {
				t.Fatal(err)
			}
			checkForfeits(t, g, spec, c.mode, c.reason)
		})
	}
}

// playRecorded builds the players of specs and plays the match cfg
// describes, and returns its result and its games' records.
func playRecorded(t *testing.T, g games.Game, specs string, cfg match.MatchConfig) (*match.MatchResult, []match.GameRecord) {
	t.Helper()
	ps := playerstest.MustFactories(t, g, specs)
	var recs []match.GameRecord
	cfg.Record = func(r match.GameRecord) error { recs = append(recs, r); return nil }
	res, err := match.Match(context.Background(), cfg, g, ps)
	if err != nil {
		t.Fatal(err)
	}
	return res, recs
}

// TestGTPRestarts: an engine that dies is started again, told the game and
// asked again, restarts=N times a game, each recorded; past them its death
// is a forfeit.
func TestGTPRestarts(t *testing.T) {
	g := playerstest.MustGame(t, "go:size=5,komi=0.5")
	play := func(t *testing.T, spec string) match.GameRecord {
		t.Helper()
		res, recs := playRecorded(t, g, spec+" random", match.MatchConfig{Games: 1, Seed: 3, RandomPlies: 2})
		if len(recs) != 1 {
			t.Fatalf("%d records", len(recs))
		}
		if n := len(res.Restarted); n != min(1, len(recs[0].Restarts)) {
			t.Errorf("MatchResult.Restarted has %d games, the record %d restarts", n, len(recs[0].Restarts))
		}
		return recs[0]
	}
	t.Run("once", func(t *testing.T) {
		marker := filepath.Join(t.TempDir(), "died")
		rec := play(t, fmt.Sprintf("gtp:cmd=%q,args=\"fakegtp dieonce=%s|go:size=5,komi=0.5\",timeout=20s,restarts=1", os.Args[0], marker))
		if rec.Forfeit != nil {
			t.Fatalf("forfeit after a restart: %+v", rec.Forfeit)
		}
		if len(rec.Restarts) != 1 {
			t.Fatalf("restarts %+v, want one", rec.Restarts)
		}
		r := rec.Restarts[0]
		// The engine moves first in game 0; the random opening takes plies
		// 1 and 2, so its first move, where it dies, is 3.
		if r.Side != 0 || r.Move != 3 || !strings.Contains(r.Reason, "engine died") || !strings.Contains(r.Stderr, "segmentation fault") {
			t.Errorf("restart record %+v", r)
		}
		// The restarted engine (ours, random) was told every move: a move
		// it missed would have made it play an illegal move, a forfeit.
		if rec.Moves == "" || len(strings.Fields(rec.Moves)) < 10 {
			t.Errorf("game cut short: %q", rec.Moves)
		}
	})
	t.Run("past the limit", func(t *testing.T) {
		rec := play(t, fmt.Sprintf("gtp:cmd=%q,args=\"fakegtp die\",timeout=20s,restarts=2", os.Args[0]))
		if rec.Forfeit == nil || !strings.Contains(rec.Forfeit.Reason, "engine died") {
			t.Fatalf("forfeit %+v, want one for the third death", rec.Forfeit)
		}
		if len(rec.Restarts) != 2 || rec.Restarts[0].Move != rec.Restarts[1].Move {
			t.Errorf("restarts %+v, want two at the same move", rec.Restarts)
		}
	})
	for _, bad := range []string{"pachi:restarts=-1", "gnugo:restarts=101", "random:restarts=1"} {
		if _, err := players.ParseSpec(bad); err == nil {
			t.Errorf("ParseSpec(%q) accepted", bad)
		}
	}
}

// TestGTPMatchesAgainstEngines plays a few short games through Match
// against GNU Go and GRhino, from random opening plies (replayed to the
// engine with play): no forfeits, and the engines win most games.
func TestGTPMatchesAgainstEngines(t *testing.T) {
	for _, c := range []struct {
		game, spec, program, install string
		minWins                      int
	}{
		{"go:size=7,komi=9", "gnugo:level=1", "gnugo", "apt-get install gnugo", 2},
		{"othello:size=8", "grhino:level=1", "gtp-rhino", "apt-get install grhino", 2},
		// The generic kind, its arguments quoted. GNU Go asked with plain
		// genmove passes with dead stones on the board, which our rules
		// count as alive, so it may lose to random: only the games count.
		{"go:size=5,komi=0.5", `gtp:cmd=gnugo,args="--mode gtp --chinese-rules --level 0",timeout=20s`, "gnugo", "apt-get install gnugo", 0},
	} {
		t.Run(c.spec, func(t *testing.T) {
			refdata.Program(t, c.program, c.install)
			g := playerstest.MustGame(t, c.game)
			res, recs := playRecorded(t, g, c.spec+" random", match.MatchConfig{Games: 2, Parallel: 2, Seed: 5, RandomPlies: 3})
			if len(res.Forfeits) != 0 {
				t.Fatalf("forfeits: %+v", res.Forfeits[0].Forfeit)
			}
			if w := res.WDL[0][1]; w.Wins < c.minWins || w.Games() != 2 || len(recs) != 2 {
				t.Errorf("%s against random: %+v; games %+v", c.spec, w, recs)
			}
		})
	}
}

// TestGTPForfeitShellScriptHang uses a shell-script engine whose genmove
// waits on a child process that holds its output open: the time cap still
// ends the game, and the child is killed with the engine.
func TestGTPForfeitShellScriptHang(t *testing.T) {
	sh := refdata.Program(t, "sh", "a POSIX shell")
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	script := filepath.Join(dir, "engine.sh")
	body := "#!" + sh + `
while read -r line; do
  case "$line" in
    *genmove*) echo "script engine: waiting for a child" >&2; sleep 30 & echo $! > ` + pidFile + `; wait ;;
    *) printf '= \n\n' ;;
  esac
done
`
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	g := playerstest.MustGame(t, "go:size=5")
	spec, err := players.ParseSpec(fmt.Sprintf("gtp:cmd=%q,timeout=300ms", script))
	if err != nil {
		t.Fatal(err)
	}
	ps, err := players.BuildAll(g, []players.Spec{spec, {Kind: "random"}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := match.Match(context.Background(), match.MatchConfig{Games: 1, Parallel: 1, Seed: 1}, g, ps)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Forfeits) != 1 || !strings.Contains(res.Forfeits[0].Forfeit.Reason, "timed out") ||
		!strings.Contains(res.Forfeits[0].Forfeit.Stderr, "script engine: waiting for a child") {
		t.Fatalf("forfeits %+v", res.Forfeits)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the match took %v", d)
	}
	pid, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	// SIGKILL takes effect when the child next runs: allow a loaded
	// machine a few seconds.
	proc := "/proc/" + strings.TrimSpace(string(pid)) + "/stat"
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		st, err := os.ReadFile(proc)
		if err != nil || strings.Contains(string(st), ") Z ") || strings.Contains(string(st), ") X ") {
			break // gone, or dead and not yet reaped
		}
		if time.Now().After(deadline) {
			t.Fatalf("the engine's child %s still runs after the game: %s", strings.TrimSpace(string(pid)), st)
		}
	}
}

// TestGTPPlayerPasses plays Othello 6x6 games between a GTP engine (ours
// behind the protocol, in GRhino's dialect: passes are never sent) and
// random, with passes on both sides: the engine must be told every move
// before a pass of its own, or it plays an illegal move and forfeits.
func TestGTPPlayerPasses(t *testing.T) {
	g := playerstest.MustGame(t, "othello:size=6")
	spec, err := players.ParseSpec(fmt.Sprintf("gtp:cmd=%q,args=\"fakegtp engine=othello:size=6\",timeout=20s", os.Args[0]))
	if err != nil {
		t.Fatal(err)
	}
	ps, err := players.BuildAll(g, []players.Spec{spec, {Kind: "random"}})
	if err != nil {
		t.Fatal(err)
	}
	passes := 0
	res, err := match.Match(context.Background(), match.MatchConfig{Games: 16, Parallel: 2, Seed: 11, RandomPlies: 2,
		Record: func(r match.GameRecord) error { passes += strings.Count(r.Moves, "pass"); return nil }}, g, ps)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Forfeits {
		t.Errorf("game %d forfeited: %s after %s", r.Index, r.Forfeit.Reason, r.Moves)
	}
	if passes < 2 {
		t.Errorf("only %d passes in 16 games: the test does not exercise them", passes)
	}
	t.Logf("%d passes in 16 games", passes)
}
