package connect4

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestPonsRoundTrip writes random games (wins of both players among them)
// and reads them back: the same moves and results.
func TestPonsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var games [][]int
	var b bytes.Buffer
	seen := map[string]bool{}
	for i := range 40 {
		s := NewState()
		var acts, buf []int
		for !s.IsTerminal() && !(i == 0 && len(acts) == 5) { // game 0 unfinished
			buf = s.LegalActions(buf)
			a := buf[rng.IntN(len(buf))]
			acts = append(acts, a)
			s.ApplyAction(a)
		}
		games = append(games, acts)
		if err := WritePons(&b, acts); err != nil {
			t.Fatal(err)
		}
	}
	back, err := ReadPons(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(games) {
		t.Fatalf("read %d games, wrote %d", len(back), len(games))
	}
	for i, g := range back {
		if !slices.Equal(g.Actions, games[i]) {
			t.Errorf("game %d: read %v, wrote %v", i, g.Actions, games[i])
		}
		seen[g.Result] = true
	}
	for _, r := range []string{"1-0", "0-1", "*"} {
		if !seen[r] {
			t.Errorf("no game with result %s among %v", r, seen)
		}
	}
	if line := strings.SplitN(b.String(), "\n", 2)[0]; line != (Game{}).FormatActions(games[0])+" *" {
		t.Errorf("line 1 %q", line)
	}
}

// TestPonsErrors checks that wrong records are refused with the line.
func TestPonsErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"4444444 *\n", "line 1: connect4: move 7"},
		{"# c\n\n4455667 0-1\n", "line 3: result \"0-1\", the moves give \"1-0\""},
		{"4453\n", "not \"MOVES RESULT\""},
		{"4458 *\n", "not a column"},
	} {
		_, err := ReadPons(strings.NewReader(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
	if err := WritePons(new(bytes.Buffer), []int{0, 0, 0, 0, 0, 0, 0}); err == nil {
		t.Error("WritePons wrote an illegal game")
	}
}
