package book

import (
	"slices"
	"strings"
	"testing"

	"tabula/games/chess"
)

// polyglotKeys are the test keys of "Polyglot book format"
// (http://hgm.nubati.net/book_format.html, section "Test data"; Debian's
// /usr/share/doc/polyglot/book_format.html): each FEN is the position after
// the UCI moves before it.
var polyglotKeys = []struct {
	moves, fen string
	key        uint64
}{
	{"", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 0x463b96181691fc9c},
	{"e2e4", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", 0x823c9b50fd114196},
	{"e2e4 d7d5", "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2", 0x0756b94461c50fb0},
	{"e2e4 d7d5 e4e5", "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2", 0x662fafb965db29d4},
	{"e2e4 d7d5 e4e5 f7f5", "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", 0x22a48b5a8e47ff78},
	{"e2e4 d7d5 e4e5 f7f5 e1e2", "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR b kq - 0 3", 0x652a607ca3f242c1},
	{"e2e4 d7d5 e4e5 f7f5 e1e2 e8f7", "rnbq1bnr/ppp1pkpp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR w - - 0 4", 0x00fdd303c946bdd9},
	{"a2a4 b7b5 h2h4 b5b4 c2c4", "rnbqkbnr/p1pppppp/8/8/PpP4P/8/1P1PPPP1/RNBQKBNR b KQkq c3 0 3", 0x3c8123ea7b067637},
	{"a2a4 b7b5 h2h4 b5b4 c2c4 b4c3 a1a3", "rnbqkbnr/p1pppppp/8/8/P6P/R1p5/1P1PPPP1/1NBQKBNR b Kkq - 0 4", 0x5c3f9b829b279560},
}

// TestPublishedKeys checks Key on each published FEN and KeyAfter along
// each published line against the format's test keys.
func TestPublishedKeys(t *testing.T) {
	for _, tc := range polyglotKeys {
		p, err := chess.ParseFEN(tc.fen)
		if err != nil {
			t.Fatal(err)
		}
		if got := Key(&p); got != tc.key {
			t.Errorf("Key(%s) = %016x, want %016x", tc.fen, got, tc.key)
		}
		pos := chess.StartPosition()
		k := Key(&pos)
		moves, err := chess.Game{}.ParseActions(tc.moves)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range moves {
			pos, k = KeyAfter(&pos, chess.MoveOf(a))
		}
		if k != tc.key {
			t.Errorf("KeyAfter along %q = %016x, want %016x", tc.moves, k, tc.key)
		}
		// The published FENs give halfmove clocks of 0 throughout, so only
		// the board, side to move and castling fields are compared.
		if got, want := strings.Fields(pos.FEN())[:3], strings.Fields(tc.fen)[:3]; !slices.Equal(got, want) {
			t.Errorf("after %q: %s, want %s", tc.moves, pos.FEN(), tc.fen)
		}
	}
}

// pinnedLine ends with a double push f7f5 beside White's e5 pawn, which is
// pinned by the queen on c7 against the king on g3: the format counts the en
// passant file although exf6 is illegal.
const pinnedLine = "e2e4 c7c6 e4e5 d8c7 e1e2 a7a6 e2f3 a6a5 f3g3 f7f5"

// TestPinnedEnPassant checks the format's rule where it parts from FEN's:
// KeyAfter adds the f-file key, Key (which sees no legal capture) does not,
// and the probe keys include KeyAfter's.
func TestPinnedEnPassant(t *testing.T) {
	moves, err := chess.Game{}.ParseActions(pinnedLine)
	if err != nil {
		t.Fatal(err)
	}
	pos := chess.StartPosition()
	var k uint64
	for _, a := range moves {
		pos, k = KeyAfter(&pos, chess.MoveOf(a))
	}
	if pos.EnPassant() != chess.NoSquare {
		t.Fatalf("%s: en passant target %v, want none (the capture is illegal)", pos.FEN(), pos.EnPassant())
	}
	plain := Key(&pos)
	if k != plain^random64[offEnPassant+5] {
		t.Errorf("KeyAfter = %016x, want Key %016x with the f-file en passant key", k, plain)
	}
	keys := probeKeys(&pos)
	if len(keys) != 2 || keys[0] != plain || keys[1] != k {
		t.Errorf("probeKeys = %x, want [%x %x]", keys, plain, k)
	}
}

// TestMoveEncoding checks Polyglot's move codes: castling as king takes
// rook, promotions with piece bits 1-4, and decoding back.
func TestMoveEncoding(t *testing.T) {
	for _, tc := range []struct {
		fen, uci string
		code     uint16
	}{
		{chess.StartFEN, "e2e4", 12<<6 | 28},
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1", 4<<6 | 7},
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1c1", 4 << 6}, // to a1 = 0
		{"r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8g8", 60<<6 | 63},
		{"r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8c8", 60<<6 | 56},
		{"4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8n", 1<<12 | 49<<6 | 57},
		{"4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8q", 4<<12 | 49<<6 | 57},
		{"4k3/8/8/8/8/8/6p1/4K2R b - - 0 1", "g2h1r", 3<<12 | 14<<6 | 7},
	} {
		p := chess.MustParseFEN(tc.fen)
		m, err := chess.ParseUCI(tc.uci)
		if err != nil {
			t.Fatal(err)
		}
		if got := EncodeMove(&p, m); got != tc.code {
			t.Errorf("%s %s: code %#x, want %#x", tc.fen, tc.uci, got, tc.code)
		}
		if got, ok := DecodeMove(&p, tc.code); !ok || got != m {
			t.Errorf("%s %#x: decoded %v %v, want %s", tc.fen, tc.code, got, ok, tc.uci)
		}
	}
	p := chess.StartPosition()
	if _, ok := DecodeMove(&p, 12<<6|36); ok {
		t.Error("e2e5 decoded as a legal move")
	}
}
