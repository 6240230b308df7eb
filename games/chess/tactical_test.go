package chess

import "testing"

func TestSEE(t *testing.T) {
	for _, tc := range []struct {
		fen, move string
		want      int
	}{
		// A pawn takes an undefended pawn.
		{"4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5", 100},
		// A queen takes a pawn defended by a pawn.
		{"4k3/8/4p3/3p4/8/8/8/3QK3 w - - 0 1", "d1d5", 100 - 900},
		// Rook takes a knight defended by a pawn: 320 - 500.
		{"6k1/8/3p4/4n3/8/8/8/4RK2 w - - 0 1", "e1e5", 320 - 500},
		// Two rooks against one defender: RxP, RxR, RxR wins a pawn.
		{"3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", 100},
		// X-rays on both sides: RxP RxR QxR RxQ, so White stops after
		// RxR and is a rook for a pawn down.
		{"3rk3/3r4/8/3p4/8/8/3R4/3QK3 w - - 0 1", "d2d5", 100 - 500},
		// En passant wins a pawn.
		{"4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", 100},
		// A quiet move to an attacked square loses the piece.
		{"4k3/8/3p4/8/8/8/8/2B1K3 w - - 0 1", "c1e3", 0},
		{"4k3/8/3p4/8/8/8/8/2B1K3 w - - 0 1", "c1f4", 0},
		{"4k3/8/8/3p4/8/8/8/2B1K3 w - - 0 1", "c1e3", 0},
		{"4k3/8/8/3p4/8/8/8/4K1N1 w - - 0 1", "g1f3", 0},
		{"4k3/8/8/8/3p4/8/8/4KN2 w - - 0 1", "f1e3", -320},
		// Promotion with capture on an undefended square.
		{"1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7b8q", 320 + 800},
	} {
		p := MustParseFEN(tc.fen)
		m, err := ParseUCI(tc.move)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.SEE(m); got != tc.want {
			t.Errorf("%s %s: SEE %d, want %d", tc.fen, tc.move, got, tc.want)
		}
	}
}

// TestNullMove checks a null move keeps the incremental hash right and
// that two of them give back the position.
func TestNullMove(t *testing.T) {
	for _, fen := range []string{StartFEN, "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"} {
		p := MustParseFEN(fen)
		q := p
		q.makeNull()
		if q.hash != q.computeHash() || q.side == p.side || q.ep != NoSquare {
			t.Errorf("%s: after a null move hash %x, recomputed %x, side %d, ep %v", fen, q.hash, q.computeHash(), q.side, q.ep)
		}
		q.makeNull()
		if p.ep == NoSquare && q.hash != p.hash {
			t.Errorf("%s: two null moves changed the hash", fen)
		}
	}
}

// TestEvaluateSymmetric checks the evaluation is colour-symmetric: the
// mirrored position with the other side to move scores the same.
func TestEvaluateSymmetric(t *testing.T) {
	for _, fen := range []string{
		StartFEN,
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
		"r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R b KQ - 0 8",
	} {
		p := MustParseFEN(fen)
		m := mirror(p)
		if a, b := p.Evaluate(&DefaultWeights), m.Evaluate(&DefaultWeights); a != b {
			t.Errorf("%s: %d, mirrored %d", fen, a, b)
		}
	}
	p := StartPosition()
	if got := p.Evaluate(&DefaultWeights); got != DefaultWeights.Tempo {
		t.Errorf("start position: %d, want the tempo bonus %d", got, DefaultWeights.Tempo)
	}
}

// mirror returns p with the board flipped top to bottom and the colours
// swapped.
func mirror(p Position) Position {
	var q Position
	for s := Square(0); s < 64; s++ {
		if pc := p.board[s]; pc != NoPiece {
			q.put(makePiece(pc.Color()^1, pc.Type()), s^56)
		}
	}
	q.side = p.side ^ 1
	q.ep = NoSquare
	return q
}

func BenchmarkEvaluate(b *testing.B) {
	p := MustParseFEN("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
	b.ReportAllocs()
	for b.Loop() {
		p.Evaluate(&DefaultWeights)
	}
}
