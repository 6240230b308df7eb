package backgammon

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/gamestest"
)

func TestConformance(t *testing.T) {
	gamestest.Check(t, winLoss, gamestest.Config{Games: 40, Seed: 1, Transpositions: true})
	gamestest.Check(t, money, gamestest.Config{Games: 20, Seed: 2})
}

func TestRegistry(t *testing.T) {
	for spec, want := range map[string]string{"backgammon": "backgammon", "backgammon:scoring=money": "backgammon:scoring=money", "backgammon:scoring=winloss": "backgammon"} {
		g, err := games.New(spec)
		if err != nil || g.Name() != want {
			t.Errorf("games.New(%q) = %v, %v; want %s", spec, g, err, want)
		}
	}
	if _, err := games.New("backgammon:scoring=cube"); err == nil || !strings.Contains(err.Error(), "scoring") {
		t.Errorf("bad scoring accepted or unnamed: %v", err)
	}
	if !games.HasChance(winLoss) {
		t.Error("backgammon does not report chance")
	}
}

// decision returns a state of position q with player 0 to play d1-d2.
func decision(t *testing.T, q Position, d1, d2 int) *State {
	t.Helper()
	s, err := NewState(winLoss, q, 0, d1, d2)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// turns returns the distinct positions at the end of player 0's turn from
// s (both halves of doubles), each with the gnubg notation of the decisions.
func turns(s *State) map[Position][]string {
	out := map[Position][]string{}
	var rec func(s *State, path []string)
	rec = func(s *State, path []string) {
		for _, a := range s.LegalActions(nil) {
			c := s.Clone().(*State)
			txt := s.FormatMove(a)
			c.ApplyAction(a)
			if !c.IsTerminal() && !c.chance {
				rec(c, append(path, txt))
				continue
			}
			if _, dup := out[c.pos]; !dup {
				out[c.pos] = append(slices.Clone(path), txt)
			}
		}
	}
	rec(s, nil)
	return out
}

func TestOpeningMoves(t *testing.T) {
	start := StartPosition()
	for _, c := range []struct {
		d1, d2, n int
		some      string
	}{
		{3, 1, 16, "8/5 6/5"}, {6, 6, 11, "24/18(2)"}, {6, 5, 7, "24/13"}, {4, 4, 52, "24/20(2)"}, {2, 1, 15, "13/11 6/5"},
	} {
		s := decision(t, start, c.d1, c.d2)
		got := turns(s)
		if len(got) != c.n {
			t.Errorf("%d-%d from the start: %d turns, want %d", c.d1, c.d2, len(got), c.n)
		}
		if _, err := s.ParseMove(c.some); err != nil {
			t.Errorf("%d-%d: %q: %v", c.d1, c.d2, c.some, err)
		}
	}
}

func TestPositionID(t *testing.T) {
	s := winLoss.NewInitialState().(*State)
	if id := s.PositionID(); id != "4HPwATDgc/ABMA" {
		t.Fatalf("start position ID %s, want 4HPwATDgc/ABMA (gnubg)", id)
	}
	// Checked with gnubg's positionid: 15 checkers on the 1-point of the
	// player not on roll, 15 on the 6-point of the player on roll.
	var q Position
	q.Board[1][0], q.Board[0][5] = 15, 15
	if id := PositionID(&q, 0); id != "/38AAADg/w8AAA" {
		t.Fatalf("position ID %s, want /38AAADg/w8AAA", id)
	}
	rng := rand.New(rand.NewPCG(4, 5))
	for _, q := range randomPositions(rng, 300) {
		for p := 0; p < 2; p++ {
			id := PositionID(&q, p)
			back, err := ParsePositionID(id, p)
			if err != nil || back != q {
				t.Fatalf("round trip of %s: %v, %v", id, back, err)
			}
		}
	}
	for _, bad := range []string{"", "4HPwATDgc/ABM", "4HPwATDgc/AB!A", "//////////////"} {
		if _, err := ParsePositionID(bad, 0); err == nil {
			t.Errorf("ParsePositionID(%q) accepted", bad)
		}
	}
}

// randomPositions returns positions met in random games (both players'
// decisions).
func randomPositions(rng *rand.Rand, n int) []Position {
	var out []Position
	for len(out) < n {
		s := winLoss.NewInitialState().(*State)
		var buf []int
		for !s.IsTerminal() && len(out) < n {
			if s.chance {
				a, _ := games.SampleChance(s, rng)
				s.ApplyAction(a)
				continue
			}
			if rng.IntN(4) == 0 {
				out = append(out, s.pos)
			}
			buf = s.LegalActions(buf)
			s.ApplyAction(buf[rng.IntN(len(buf))])
		}
	}
	return out
}

// TestRules checks the rules one position at a time, boards written as
// point:count for player 0 (x) and player 1 (o) in their own numbering.
func TestRules(t *testing.T) {
	for _, c := range []struct {
		name   string
		x, o   string
		d1, d2 int
		want   []string // every legal turn, in any order
	}{
		{name: "bar first", x: "bar:1 6:14", o: "1:2 2:2 3:2 4:2 5:2 12:5", d1: 6, d2: 1,
			want: []string{"bar/18", "bar/19 6/5"}},
		{name: "higher die when only one can be played", x: "24:1 1:14", o: "12:2 2:13", d1: 6, d2: 5,
			want: []string{"24/18"}},
		{name: "lower die when the higher cannot be played", x: "24:1 1:14", o: "7:2 12:2 2:11", d1: 6, d2: 5,
			want: []string{"24/19"}},
		{name: "cannot move", x: "bar:1 6:14", o: "1:2 2:2 3:2 4:2 5:2 6:2 12:3", d1: 6, d2: 5,
			want: []string{"pass"}},
		{name: "bear off with a higher die", x: "4:1 2:1 off:13", o: "1:15", d1: 6, d2: 5,
			want: []string{"4/off 2/off"}},
		{name: "must use both dice", x: "10:1 off:14", o: "1:15", d1: 6, d2: 3,
			want: []string{"10/1"}},
		{name: "hit", x: "13:15", o: "14:1 24:14", d1: 2, d2: 1,
			want: []string{"13/11*/10", "13/12 13/11*", "13/10"}},
		{name: "doubles, only three moves", x: "24:1 1:14", o: "13:2 2:13", d1: 3, d2: 3,
			want: []string{"24/18 ; 18/15"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := parseBoard(t, c.x, c.o)
			s := decision(t, q, c.d1, c.d2)
			got := turns(s)
			var texts []string
			for _, path := range got {
				texts = append(texts, strings.Join(path, " ; "))
			}
			slices.Sort(texts)
			want := slices.Clone(c.want)
			slices.Sort(want)
			if !slices.Equal(texts, want) {
				t.Fatalf("turns %q, want %q\n%s", texts, want, s)
			}
		})
	}
}

func parseBoard(t *testing.T, x, o string) Position {
	t.Helper()
	var q Position
	for c, text := range []string{x, o} {
		for _, f := range strings.Fields(text) {
			k, v, _ := strings.Cut(f, ":")
			n := int8(mustAtoi(t, v))
			switch k {
			case "bar":
				q.Bar[c] = n
			case "off":
				q.Off[c] = n
			default:
				q.Board[c][mustAtoi(t, k)-1] = n
			}
		}
	}
	if err := q.Check(); err != nil {
		t.Fatal(err)
	}
	return q
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' {
			t.Fatalf("bad number %q", s)
		}
		n = n*10 + int(r-'0')
	}
	return n
}

func TestScoring(t *testing.T) {
	for _, c := range []struct {
		name   string
		x, o   string
		points int
	}{
		{"single", "1:1 off:14", "6:14 off:1", 1},
		{"gammon", "1:1 off:14", "6:15", 2},
		{"backgammon (home board)", "1:1 off:14", "20:1 6:14", 3},
		{"backgammon (bar)", "1:1 off:14", "bar:1 6:14", 3},
	} {
		q := parseBoard(t, c.x, c.o)
		s := decision(t, q, 2, 1)
		a, err := s.ParseMove("1/off")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		s.ApplyAction(a)
		w, pts := s.Points()
		if !s.IsTerminal() || w != 0 || pts != c.points {
			t.Errorf("%s: winner %d points %d, want 0 and %d", c.name, w, pts, c.points)
		}
		if r := s.Returns(); r != [2]float64{1, -1} {
			t.Errorf("%s: winloss returns %v", c.name, r)
		}
		m, _ := NewState(money, q, 0, 2, 1)
		m.ApplyAction(a)
		if r := m.Returns(); r[0] != float64(c.points)/3 || r[1] != -r[0] {
			t.Errorf("%s: money returns %v, want %v", c.name, r, float64(c.points)/3)
		}
	}
}

func TestParseMoveErrors(t *testing.T) {
	s := decision(t, StartPosition(), 3, 1)
	for _, bad := range []string{"8/5 6/4", "7/4 6/5", "8/x", "8", "6/5(9", "13/10 13/11 13/12"} {
		if _, err := s.ParseMove(bad); err == nil {
			t.Errorf("ParseMove(%q) accepted", bad)
		}
	}
	_, err := s.ParseMove("24/21 24/22")
	if !errors.Is(err, games.ErrIllegalMove) {
		t.Errorf("an illegal move: %v does not wrap ErrIllegalMove", err)
	}
	// Equivalent spellings reach the same action.
	a, _ := s.ParseMove("8/5 6/5")
	b, _ := s.ParseMove("6/5* 8/5")
	if a != b {
		t.Errorf("8/5 6/5 and 6/5 8/5 differ: %d %d", a, b)
	}
	if got := s.FormatMove(a); got != "8/5 6/5" {
		t.Errorf("FormatMove = %q, want 8/5 6/5", got)
	}
}

func TestGameLengths(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	longest, total := 0, 0
	const n = 200
	for i := 0; i < n; i++ {
		s := winLoss.NewInitialState().(*State)
		var buf []int
		for !s.IsTerminal() {
			if s.chance {
				a, _ := games.SampleChance(s, rng)
				s.ApplyAction(a)
				continue
			}
			buf = s.LegalActions(buf)
			s.ApplyAction(buf[rng.IntN(len(buf))])
		}
		if w, _ := s.Points(); w < 0 {
			t.Fatalf("a random game reached the cap of %d actions", maxGameLength)
		}
		longest = max(longest, s.MoveNumber())
		total += s.MoveNumber()
	}
	t.Logf("random games: %.0f actions on average, longest %d", float64(total)/n, longest)
}

// TestMoveNotation checks games.MoveNotation: rolls at chance nodes, moves
// in context, and the count of equal moves when one of them hits.
func TestMoveNotation(t *testing.T) {
	s := winLoss.NewInitialState()
	a, err := games.ParseMove(s, "6-3")
	if err != nil || games.FormatMove(s, a) != "6-3" {
		t.Fatalf("roll 6-3: %d, %v", a, err)
	}
	if _, err := games.ParseMove(s, "5-5"); !errors.Is(err, games.ErrIllegalMove) {
		t.Errorf("a double as the opening roll: %v", err)
	}
	if _, err := games.ParseMove(s, "7-1"); err == nil {
		t.Error("roll 7-1 accepted")
	}
	s.ApplyAction(a)
	m, err := games.ParseMove(s, "24/15")
	if err != nil || games.FormatMove(s, m) != "24/15" {
		t.Fatalf("24/15: %d, %v", m, err)
	}
	q := parseBoard(t, "13:15", "18:1 24:14")
	d := decision(t, q, 6, 6)
	h, err := d.ParseMove("13/7(2)")
	if err != nil {
		t.Fatal(err)
	}
	if got := d.FormatMove(h); got != "13/7*(2)" {
		t.Errorf("two checkers to a blot: %q, want 13/7*(2)", got)
	}
}
