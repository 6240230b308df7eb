package chess

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/gamestest"
)

// randomPositions plays n random games from the initial position and
// returns every position they pass through.
func randomPositions(n int, seed uint64) []Position {
	rng := rand.New(rand.NewPCG(seed, 1))
	var out []Position
	for i := 0; i < n; i++ {
		s := Game{}.NewInitialState().(*State)
		for !s.IsTerminal() {
			out = append(out, s.pos)
			legal := s.LegalActions(nil)
			s.ApplyAction(legal[rng.IntN(len(legal))])
		}
	}
	return out
}

func TestSANRoundTrip(t *testing.T) {
	for _, p := range randomPositions(20, 5) {
		var ml MoveList
		p.LegalMoves(&ml)
		for _, m := range ml.Slice() {
			san := p.SAN(m)
			got, err := p.ParseSAN(san)
			if err != nil || got != m {
				t.Fatalf("%s: SAN %q of %v read back as %v, %v", p.FEN(), san, m, got, err)
			}
		}
	}
}

func TestSAN(t *testing.T) {
	for _, c := range []struct{ fen, uci, san string }{
		{StartFEN, "g1f3", "Nf3"},
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1", "O-O"},
		{"r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8c8", "O-O-O"},
		{"6k1/8/8/8/8/8/8/R4RK1 w - - 0 1", "a1d1", "Rad1"},
		{"7k/8/8/8/8/5N2/8/1N2K3 w - - 0 1", "b1d2", "Nbd2"},
		{"7k/8/8/1N6/8/8/8/1N2K3 w - - 0 1", "b1c3", "N1c3"},
		{"1k6/8/8/8/Q7/8/8/Q5QK w - - 0 1", "a1d4", "Qa1d4"},
		{"7k/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", "exd6"},
		{"7k/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8q", "a8=Q+"},
		{"1n5k/P7/8/8/8/8/8/4K3 w - - 0 1", "a7b8n", "axb8=N"},
		{"6k1/5ppp/8/8/8/8/8/R3K3 w - - 0 1", "a1a8", "Ra8#"},
	} {
		p := MustParseFEN(c.fen)
		m, err := ParseUCI(c.uci)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.SAN(m); got != c.san {
			t.Errorf("%s %s: SAN %q, want %q", c.fen, c.uci, got, c.san)
		}
		if got, err := p.ParseSAN(c.san); err != nil || got != m {
			t.Errorf("%s: ParseSAN(%q) = %v, %v; want %v", c.fen, c.san, got, err, m)
		}
	}
	p := StartPosition()
	for _, bad := range []string{"Nd2", "e5", "Ke2", "O-O", "Qh5"} {
		if _, err := p.ParseSAN(bad); !errors.Is(err, games.ErrIllegalMove) {
			t.Errorf("ParseSAN(%q): %v, want ErrIllegalMove", bad, err)
		}
	}
	for _, bad := range []string{"", "N", "Zf3", "e4e5e6", "Nf3=Q"} {
		if _, err := p.ParseSAN(bad); err == nil {
			t.Errorf("ParseSAN(%q) accepted", bad)
		}
	}
	amb := MustParseFEN("7k/8/8/8/8/5N2/8/1N2K3 w - - 0 1")
	if _, err := amb.ParseSAN("Nd2"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("ambiguous Nd2: %v", err)
	}
	promo := MustParseFEN("7k/P7/8/8/8/8/8/4K3 w - - 0 1")
	if _, err := promo.ParseSAN("a8"); err == nil || !strings.Contains(err.Error(), "promote") {
		t.Errorf("a8 without promotion: %v", err)
	}
}

func TestFEN(t *testing.T) {
	for _, c := range perftCases {
		p := MustParseFEN(c.fen)
		fen := p.FEN()
		q := MustParseFEN(fen)
		if q != p || q.FEN() != fen {
			t.Errorf("round trip of %q: %q", c.fen, q.FEN())
		}
	}
	for _, bad := range []struct{ fen, want string }{
		{"", "fields"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "7 ranks"},
		{"rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "neither"},
		{"rnbqkbnr/pppppppp/7/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "7 squares"},
		{"rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "more than 8"},
		{"rnbqqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "0 black kings"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side to move"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1", "without the king"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w QKkq - 0 1", "out of order"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1", "rank 6"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", "just moved"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1", "halfmove"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0", "fullmove"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", ""},
		{"4k3/8/8/8/8/8/8/4K2q w - - 0 1", ""},
		{"4k3/8/8/8/8/8/8/4K2q b - - 0 1", "not to move is in check"},
		{"P3k3/8/8/8/8/8/8/4K3 w - - 0 1", "first or last rank"},
	} {
		_, err := ParseFEN(bad.fen)
		switch {
		case bad.want == "" && err != nil:
			t.Errorf("ParseFEN(%q): %v", bad.fen, err)
		case bad.want != "" && (err == nil || !strings.Contains(err.Error(), bad.want)):
			t.Errorf("ParseFEN(%q): error %v, want one naming %q", bad.fen, err, bad.want)
		}
	}
}

func FuzzFEN(f *testing.F) {
	for _, c := range perftCases {
		f.Add(c.fen)
	}
	f.Add("8/8/8/1Pp4r/8/8/K7/7k w - c6 0 1")
	f.Add("4k3/8/8/8/8/8/8/4K2R w K - 99 120")
	f.Fuzz(func(t *testing.T, fen string) {
		p, err := ParseFEN(fen)
		if err != nil {
			return
		}
		out := p.FEN()
		q, err := ParseFEN(out)
		if err != nil {
			t.Fatalf("%q accepted, but its FEN %q is refused: %v", fen, out, err)
		}
		if q != p || q.FEN() != out {
			t.Fatalf("%q: round trip %q -> %q", fen, out, q.FEN())
		}
		if q.computeHash() != q.hash {
			t.Fatalf("%q: hash differs from recomputation", fen)
		}
		var ml MoveList
		q.LegalMoves(&ml) // must not panic
	})
}

func FuzzParseActions(f *testing.F) {
	f.Add("e2e4 e7e5 g1f3")
	f.Add("e7e8q,a2a1N")
	f.Fuzz(func(t *testing.T, text string) { gamestest.CheckParse(t, Game{}, text) })
}

const samplePGN = `[Event "Casual"]
[Site "?"]
[Date "1858.??.??"]
[Round "?"]
[White "Paul Morphy"]
[Black "Duke Karl / Count Isouard"]
[Result "1-0"]

1. e4 e5 2. Nf3 d6 {Philidor} 3. d4 Bg4 $6 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6
7. Qb3 qe7 8. Nc3 c6 9. Bg5 b5 (9... Qb4+ 10. Qxb4 (10. Kf1) Bxb4) 10. Nxb5 cxb5
11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7 14. Rd1 Qe6 15. Bxd7+ Nxd7 ; the sacrifice
16. Qb8+ Nxb8 17. Rd8# 1-0

[Event "Fragment"]
[SetUp "1"]
[FEN "4k3/P7/8/8/8/8/8/4K3 w - - 0 1"]

1. a8=Q+ Kd7 2. Qb7+ *
`

func TestPGN(t *testing.T) {
	text := strings.Replace(samplePGN, "qe7", "Qe7", 1)
	gs, err := ParsePGN(text)
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 2 || len(gs[0].Moves) != 33 || gs[0].Result != "1-0" || gs[0].Tag("White") != "Paul Morphy" {
		t.Fatalf("read %d games; first has %d moves, result %q", len(gs), len(gs[0].Moves), gs[0].Result)
	}
	end := gs[0].Start
	for _, m := range gs[0].Moves {
		end.Make(m)
	}
	s := Game{}.NewStateFrom(end)
	if s.Status() != Checkmate {
		t.Fatalf("Morphy's game does not end in mate: %v", s)
	}
	if len(gs[1].Moves) != 3 || gs[1].Result != "*" || gs[1].Start.FEN() != "4k3/P7/8/8/8/8/8/4K3 w - - 0 1" {
		t.Fatalf("second game: %d moves, result %q, start %s", len(gs[1].Moves), gs[1].Result, gs[1].Start.FEN())
	}
	// Round trip: write, read back, write again.
	for _, g := range gs {
		out := g.String()
		again, err := ParsePGN(out)
		if err != nil || len(again) != 1 {
			t.Fatalf("reading back\n%s: %v", out, err)
		}
		if again[0].String() != out || len(again[0].Moves) != len(g.Moves) {
			t.Fatalf("round trip differs:\n%s\n%s", out, again[0].String())
		}
		for _, line := range strings.Split(out, "\n") {
			if len(line) > 80 {
				t.Fatalf("line over 80 characters: %q", line)
			}
		}
	}
	// Errors name the move.
	if _, err := ParsePGN(samplePGN); err == nil || !strings.Contains(err.Error(), "qe7") {
		t.Fatalf("bad move: %v", err)
	}
	if _, err := ParsePGN("1. e4 (1. d4 e5"); err == nil {
		t.Fatal("unclosed variation accepted")
	}
	if _, err := ParsePGN("[Result \"1-0\"]\n1. e4 0-1"); err == nil {
		t.Fatal("result differing from its tag accepted")
	}
}

// TestPGNComments writes a game with comments on some moves and reads it
// back: each comment returns to its move, a '}' in one cannot end it early,
// and comments inside a variation are not the main line's.
func TestPGNComments(t *testing.T) {
	g := PGNGame{Start: StartPosition(), Result: "1/2-1/2"}
	p := StartPosition()
	for _, san := range []string{"e4", "e5", "Nf3", "Nc6"} {
		m, err := p.ParseSAN(san)
		if err != nil {
			t.Fatal(err)
		}
		p.Make(m)
		g.Moves = append(g.Moves, m)
	}
	g.Comments = []string{"value +0.125", "", "a } brace", "value -1.000"}
	out := g.String()
	back, err := ParsePGN(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := []string{"value +0.125", "", "a ) brace", "value -1.000"}
	if len(back) != 1 || strings.Join(back[0].Comments, "|") != strings.Join(want, "|") {
		t.Fatalf("comments read back %q, want %q\n%s", back[0].Comments, want, out)
	}
	v, err := ParsePGN("1. e4 {main} (1. d4 {side} d5) e5 {reply} *")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(v[0].Comments, "|"); got != "main|reply" {
		t.Errorf("comments with a variation: %q, want main|reply", got)
	}
	if v, _ := ParsePGN("1. e4 e5 *"); v[0].Comments != nil {
		t.Errorf("a game without comments has Comments %q, want nil", v[0].Comments)
	}
}
