package chess

import (
	"os"
	"testing"
	"time"
)

// perftCases are the six positions of the Chess Programming Wiki's "Perft
// Results" page (https://www.chessprogramming.org/Perft_Results), with
// position 4's colour-mirrored twin, and their published node counts by
// depth (index 0 is depth 1).
var perftCases = []struct {
	name   string
	fen    string
	counts []uint64
	fast   int // the deepest depth run by go test without TABULA_LONG
}{
	{"start", StartFEN, []uint64{20, 400, 8902, 197281, 4865609, 119060324}, 4},
	{"kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -", []uint64{48, 2039, 97862, 4085603, 193690690}, 3},
	{"position3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -", []uint64{14, 191, 2812, 43238, 674624, 11030083, 178633661}, 5},
	{"position4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", []uint64{6, 264, 9467, 422333, 15833292, 706045033}, 4},
	{"position4-mirrored", "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1", []uint64{6, 264, 9467, 422333, 15833292, 706045033}, 4},
	{"position5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", []uint64{44, 1486, 62379, 2103487, 89941194}, 3},
	{"position6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", []uint64{46, 2079, 89890, 3894594, 164075551}, 3},
}

// long reports whether the slow, deep tests were asked for.
func long() bool { return os.Getenv("TABULA_LONG") == "1" }

func TestPerft(t *testing.T) {
	for _, c := range perftCases {
		t.Run(c.name, func(t *testing.T) {
			p, err := ParseFEN(c.fen)
			if err != nil {
				t.Fatal(err)
			}
			max := c.fast
			if long() {
				max = len(c.counts)
			}
			for d := 1; d <= max; d++ {
				start := time.Now()
				bulk := d != 2 // one depth checks Make on every leaf too
				if got := Perft(&p, d, bulk); got != c.counts[d-1] {
					t.Fatalf("perft(%d) = %d, want %d", d, got, c.counts[d-1])
				}
				if d > c.fast {
					t.Logf("perft(%d) = %d in %v", d, c.counts[d-1], time.Since(start).Round(time.Millisecond))
				}
			}
		})
	}
}

// TestHasLegalMove checks HasLegalMove against LegalMoves at every node of
// the perft trees of the standard positions to depth 3 (287,693 positions,
// 89 of them mates or stalemates), and on positions whose only legal moves
// are the ones it leaves to the full generation (a pinned pawn's, en
// passant) or that have none.
func TestHasLegalMove(t *testing.T) {
	nodes, none := 0, 0
	var walk func(p *Position, depth int)
	walk = func(p *Position, depth int) {
		var ml MoveList
		p.LegalMoves(&ml)
		nodes++
		if ml.N == 0 {
			none++
		}
		if got := p.HasLegalMove(); got != (ml.N > 0) {
			t.Fatalf("%s: HasLegalMove %v, %d legal moves", p.FEN(), got, ml.N)
		}
		if depth == 0 {
			return
		}
		for _, m := range ml.Moves[:ml.N] {
			child := *p
			child.Make(m)
			walk(&child, depth-1)
		}
	}
	for _, c := range perftCases {
		p, err := ParseFEN(c.fen)
		if err != nil {
			t.Fatal(err)
		}
		walk(&p, 3)
	}
	t.Logf("%d positions, %d without a legal move", nodes, none)
	if none == 0 {
		t.Error("no position without a legal move: the walk does not test the false answer")
	}
	for _, c := range []struct {
		fen, why string
		moves    int
	}{
		{"3rrr1k/8/8/8/8/8/4P3/4K3 w - - 0 1", "only the pinned pawn moves (e3, e4)", 2},
		{"k5r1/8/4p3/3pP3/8/8/r7/7K w - d6 0 1", "only en passant (exd6)", 1},
		{"7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "stalemate", 0},
		{"R6k/6pp/8/8/8/8/8/K7 b - - 0 1", "checkmate", 0},
	} {
		p, err := ParseFEN(c.fen)
		if err != nil {
			t.Fatal(err)
		}
		var ml MoveList
		p.LegalMoves(&ml)
		if ml.N != c.moves {
			t.Fatalf("%s (%s): %d legal moves, want %d", c.fen, c.why, ml.N, c.moves)
		}
		if got := p.HasLegalMove(); got != (c.moves > 0) {
			t.Errorf("%s (%s): HasLegalMove %v", c.fen, c.why, got)
		}
	}
}
