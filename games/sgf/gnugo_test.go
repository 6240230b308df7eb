package sgf_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"tabula/games/gogame"
	"tabula/games/sgf"
	"tabula/internal/refdata/refdatatest"
)

// gnugo runs GNU Go in GTP mode with the given rules (chinese or
// japanese) on the given commands and returns the
// answers, one per command, without their "= ".
func gnugo(t *testing.T, path string, rules string, cmds ...string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--mode", "gtp", "--"+rules+"-rules", "--level", "1")
	cmd.Stdin = strings.NewReader(strings.Join(append(cmds, "quit"), "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gnugo: %v\n%s", err, stderr.String())
	}
	var answers []string
	for _, block := range strings.Split(strings.ReplaceAll(string(out), "\r", ""), "\n\n") {
		if block = strings.TrimSpace(block); block == "" {
			continue
		}
		if block[0] != '=' {
			t.Fatalf("gnugo failed: %q (commands %q)", block, cmds)
		}
		answers = append(answers, strings.TrimSpace(block[1:]))
	}
	if len(answers) != len(cmds)+1 {
		t.Fatalf("gnugo gave %d answers to %d commands: %q", len(answers), len(cmds)+1, answers)
	}
	return answers[:len(cmds)]
}

// stones returns the points of colour c (gogame.Black or White) in s as
// sorted GTP vertices.
func stones(g *gogame.Game, s *gogame.State, c int) []string {
	var out []string
	for p := range g.Size() * g.Size() {
		if s.At(p) == c {
			out = append(out, g.FormatAction(p))
		}
	}
	slices.Sort(out)
	return out
}

func sortedFields(s string) []string {
	f := strings.Fields(strings.ToUpper(s))
	slices.Sort(f)
	return f
}

// TestGNUGoLoadsOurs writes random Go games (captures, passes, ko fights
// the superko rule allows) as SGF and checks that GNU Go's loadsgf
// reproduces our final position stone for stone.
func TestGNUGoLoadsOurs(t *testing.T) {
	path := refdatatest.Program(t, "gnugo", "apt-get install gnugo")
	rng := rand.New(rand.NewPCG(7, 8))
	dir := t.TempDir()
	for i, size := range []int{9, 13, 19} {
		g, _ := gogame.New(size, 7.5, 0)
		acts, vals := randomGame(g, 40*size, rng, g.Pass())
		rec, err := sgf.FromActions(g, acts, vals)
		if err != nil {
			t.Fatal(err)
		}
		rec.Black, rec.White = "random", "random"
		var b bytes.Buffer
		if err := sgf.Write(&b, rec); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, "game"+string(rune('0'+i))+".sgf")
		if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		s, _ := rec.Replay()
		gs := s.(*gogame.State)
		ans := gnugo(t, path, "chinese", "loadsgf "+file, "list_stones black", "list_stones white", "query_boardsize", "get_komi")
		if ans[3] != strconv.Itoa(size) {
			t.Errorf("size %d: GNU Go's board is %s", size, ans[3])
		}
		if ans[4] != "7.5" {
			t.Errorf("size %d: GNU Go's komi is %s", size, ans[4])
		}
		for c, a := range []string{ans[1], ans[2]} {
			got, want := sortedFields(a), stones(g, gs, c+1)
			if !slices.Equal(got, want) {
				t.Errorf("size %d, %d moves, colour %d: GNU Go has %v, we have %v\n%s", size, len(acts), c, got, want, b.String())
			}
		}
	}
}

// TestReadsGNUGo reads what GNU Go's printsgf writes after a game it played
// against itself, and checks the position against GNU Go's own stones.
func TestReadsGNUGo(t *testing.T) {
	path := refdatatest.Program(t, "gnugo", "apt-get install gnugo")
	file := filepath.Join(t.TempDir(), "gnugo.sgf")
	cmds := []string{"boardsize 9", "komi 6.5", "play b e5", "play w c3"}
	for range 10 {
		cmds = append(cmds, "genmove b", "genmove w")
	}
	cmds = append(cmds, "printsgf "+file, "get_komi", "list_stones black", "list_stones white")
	ans := gnugo(t, path, "chinese", cmds...)
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := sgf.Parse(src)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	// GNU Go folds the prisoners into the KM it prints (the position
	// stands alone), so KM is its komi only when no stone was captured.
	if g := rec.Game.(*gogame.Game); g.Size() != 9 || !strings.HasPrefix(rec.Application, "GNU Go") {
		t.Errorf("read game %s by %q; GNU Go's komi %s", g.Name(), rec.Application, ans[len(ans)-3])
	}
	s, err := rec.Replay()
	if err != nil {
		t.Fatal(err)
	}
	g := rec.Game.(*gogame.Game)
	for c, a := range ans[len(ans)-2:] {
		if got, want := stones(g, s.(*gogame.State), c+1), sortedFields(a); !slices.Equal(got, want) {
			t.Errorf("colour %d: we read %v, GNU Go has %v\n%s", c, got, want, src)
		}
	}
	if s.CurrentPlayer() != 0 {
		t.Errorf("white to move after GNU Go's %d moves, want black", 22)
	}
}
