package book

import (
	"strings"
	"testing"

	"tabula/games/chess"
)

// handGames: 1. e4 wins three games of four, so make-book's tally prefers
// it, but Black's one answer 1...c5 won its game; 1. d4 drew three times.
// Backed up, 1. e4 is worth a loss (Black answers c5) and 1. d4 a draw.
func handGames(t *testing.T) []chess.PGNGame {
	t.Helper()
	var b strings.Builder
	game := func(moves, result string) {
		b.WriteString("[Event \"hand\"]\n[Result \"" + result + "\"]\n\n" + moves + " " + result + "\n\n")
	}
	for range 3 {
		game("1. e4 e5 2. Nf3", "1-0")
		game("1. d4 d5", "1/2-1/2")
	}
	game("1. e4 c5", "0-1")
	games, err := chess.ParsePGN(b.String())
	if err != nil {
		t.Fatal(err)
	}
	return games
}

// startMoves builds a book from games and returns its moves at the start
// position as SAN with their weights.
func startMoves(t *testing.T, games []chess.PGNGame, cfg BuildConfig) (map[string]uint16, string) {
	t.Helper()
	entries, err := Build(games, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse(Marshal(entries))
	if err != nil {
		t.Fatal(err)
	}
	p := chess.StartPosition()
	out := map[string]uint16{}
	for _, m := range b.Moves(&p) {
		out[p.SAN(m.Move)] = m.Weight
	}
	best, _ := b.Best(&p)
	return out, p.SAN(best)
}

func TestNegamaxDiffersFromCounting(t *testing.T) {
	games := handGames(t)
	count, countBest := startMoves(t, games, BuildConfig{MaxPly: 20, MinGame: 1})
	if countBest != "e4" || count["e4"] != 6 || count["d4"] != 3 {
		t.Errorf("counting: %v, best %s; want e4 6 (2 x 3 wins), d4 3 (3 draws), best e4", count, countBest)
	}
	neg, negBest := startMoves(t, games, BuildConfig{MaxPly: 20, MinGame: 1, Mode: ModeNegamax})
	if negBest != "d4" || len(neg) != 1 || neg["d4"] != 32768 {
		t.Errorf("negamax: %v, best %s; want d4 alone, weight 32768 (a draw)", neg, negBest)
	}
	// With a margin of 2 every move stays, weighted by value: e4 (-1) gets 1.
	all, _ := startMoves(t, games, BuildConfig{MaxPly: 20, MinGame: 1, Mode: ModeNegamax, Margin: 2})
	if all["e4"] != 1 || all["d4"] != 32768 {
		t.Errorf("negamax, margin 2: %v; want e4 1, d4 32768", all)
	}
	// 1...c5 was played once: with a minimum of 2 games it leaves the
	// book, Black's book answer is 1...e5 (lost three times), and 1. e4 is
	// a win again.
	neg2, best2 := startMoves(t, games, BuildConfig{MaxPly: 20, MinGame: 2, Mode: ModeNegamax})
	if best2 != "e4" || neg2["e4"] != 65535 || len(neg2) != 1 {
		t.Errorf("negamax, 2 games at least: %v, best %s; want e4 alone, weight 65535", neg2, best2)
	}
	// The position after 1. e4: Black's book move is c5, as counting also
	// says, but its value backs up to the root only with negamax.
	entries, _ := Build(games, BuildConfig{MaxPly: 20, MinGame: 1, Mode: ModeNegamax})
	b, _ := Parse(Marshal(entries))
	p := chess.StartPosition()
	m, _ := p.ParseSAN("e4")
	p.Make(m)
	if best, ok := b.Best(&p); !ok || p.SAN(best) != "c5" {
		t.Errorf("after 1. e4: best %v %v, want c5", best, ok)
	}
}

// TestNegamaxLeavesAndRepetitions: a line that goes back to a position
// being valued (knights out and back) ends at a leaf, and MaxPly cuts the
// tree.
func TestNegamaxLeavesAndRepetitions(t *testing.T) {
	var b strings.Builder
	for range 2 {
		b.WriteString("[Result \"1-0\"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. e4 1-0\n\n")
	}
	games, err := chess.ParsePGN(b.String())
	if err != nil {
		t.Fatal(err)
	}
	entries, err := Build(games, BuildConfig{MaxPly: 1024, MinGame: 1, Mode: ModeNegamax})
	if err != nil {
		t.Fatal(err)
	}
	// The start position (twice in each game), after Nf3, after Nf3 Nf6,
	// after Nf3 Nf6 Ng1: four positions, one move each.
	if len(entries) != 5 {
		t.Errorf("%d entries, want 5 (Nf3 and e4 at the start, and one move in each of three positions)", len(entries))
	}
	cut, _ := Build(games, BuildConfig{MaxPly: 1, MinGame: 1, Mode: ModeNegamax})
	if len(cut) != 1 || cut[0].Weight != 65535 {
		t.Errorf("MaxPly 1: %+v, want Nf3 alone, a won leaf", cut)
	}
	if _, err := Build(games, BuildConfig{MaxPly: 1, MinGame: 1, Mode: "minimax"}); err == nil {
		t.Error("mode minimax: no error")
	}
	if _, err := Build(games, BuildConfig{MaxPly: 1, MinGame: 1, Mode: ModeNegamax, Margin: -1}); err == nil {
		t.Error("margin -1: no error")
	}
}
