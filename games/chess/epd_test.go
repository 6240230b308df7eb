package chess

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"tabula/games"
)

func TestParseEPD(t *testing.T) {
	e, err := ParseEPD(`r1bqk2r/pppp1ppp/5n2/2b1n3/4P3/1BP3Q1/PP3PPP/RNB1K1NR b KQkq - bm Bxf2+; am O-O; id "WAC 056; copy"; c0 "two words";`)
	if err != nil {
		t.Fatal(err)
	}
	if e.ID != "WAC 056; copy" {
		t.Errorf("id = %q", e.ID)
	}
	if len(e.Best) != 1 || e.Pos.SAN(e.Best[0]) != "Bxf2+" {
		t.Errorf("bm = %v", e.Best)
	}
	if len(e.Avoid) != 1 || e.Pos.SAN(e.Avoid[0]) != "O-O" {
		t.Errorf("am = %v", e.Avoid)
	}
	if got := e.Ops["c0"]; len(got) != 1 || got[0] != "two words" {
		t.Errorf("c0 = %q", got)
	}
	if !e.Solved(e.Best[0]) || e.Solved(e.Avoid[0]) {
		t.Error("Solved: the best move should solve it and the avoided one not")
	}
	if e.Pos.FEN() != "r1bqk2r/pppp1ppp/5n2/2b1n3/4P3/1BP3Q1/PP3PPP/RNB1K1NR b KQkq - 0 1" {
		t.Errorf("position = %s", e.Pos.FEN())
	}

	// Only am: any other move solves it.
	e, err = ParseEPD("4k3/8/8/8/8/8/8/R3K3 w Q - am Ra8+;")
	if err != nil {
		t.Fatal(err)
	}
	other, _ := e.Pos.ParseSAN("Kd2")
	if e.Solved(e.Avoid[0]) || !e.Solved(other) {
		t.Error("am only: Solved wrong")
	}
	// A bare position has no operations.
	if e, err := ParseEPD("4k3/8/8/8/8/8/8/R3K3 w Q -"); err != nil || len(e.Ops) != 0 {
		t.Errorf("bare position: %v, %v", e.Ops, err)
	}
}

func TestParseEPDErrors(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"4k3/8/8 w - -", "placement"},
		{"4k3/8/8/8/8/8/8/R3K3 w Q - bm Ra8+", "semicolon"},
		{"4k3/8/8/8/8/8/8/R3K3 w Q - bm;", "no move"},
		{"4k3/8/8/8/8/8/8/R3K3 w Q - ;", "empty operation"},
		{`4k3/8/8/8/8/8/8/R3K3 w Q - id "x;`, "unclosed"},
		{"4k3/8/8/8/8/8/8/R3K3 w Q - id a; id b;", "twice"},
		{"4k3/8/8/8/8/8/8/R3K3 w Q - bm Rb8 Qd1;", "Qd1"},
	} {
		_, err := ParseEPD(tc.line)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseEPD(%q) = %v, want an error about %q", tc.line, err, tc.want)
		}
	}
	_, err := ParseEPD("4k3/8/8/8/8/8/8/R3K3 w Q - bm Ra7;")
	if err != nil && !errors.Is(err, games.ErrIllegalMove) {
		t.Errorf("a legal move refused: %v", err)
	}
	_, err = ParseEPD("4k3/8/8/8/8/8/8/R3K3 w Q - bm Rh8;")
	if !errors.Is(err, games.ErrIllegalMove) {
		t.Errorf("an illegal bm move: %v, want ErrIllegalMove", err)
	}
}

// TestWinAtChessFile reads the whole suite in data/chess: 300 records with
// ids WAC.001 to WAC.300, each with at least one best move.
func TestWinAtChessFile(t *testing.T) {
	f, err := os.Open("../../data/chess/wac.epd")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := ReadEPD(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 300 {
		t.Fatalf("%d records, want 300", len(recs))
	}
	for i, e := range recs {
		if want := fmt.Sprintf("WAC.%03d", i+1); e.ID != want {
			t.Errorf("record %d: id %q, want %q", i, e.ID, want)
		}
		if len(e.Best) == 0 {
			t.Errorf("%s: no best move", e.ID)
		}
	}
}
