package retro

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tabula/games/chess"
)

// built caches the tables the tests build, by signature.
var (
	builtMu sync.Mutex
	built   = map[string]*Table{}
)

// table builds (once per test binary) the table of sig and those it needs.
func table(tb testing.TB, sig string) *Table {
	tb.Helper()
	builtMu.Lock()
	defer builtMu.Unlock()
	return tableLocked(tb, sig)
}

func tableLocked(tb testing.TB, sig string) *Table {
	if t, ok := built[sig]; ok {
		return t
	}
	ps, err := ParseMaterial(sig)
	if err != nil {
		tb.Fatal(err)
	}
	subs := map[string]*Table{}
	for _, m := range successorMaterials(ps) {
		if !insufficient(m) {
			subs[Signature(m)] = tableLocked(tb, Signature(m))
		}
	}
	start := time.Now()
	t, err := BuildChess(context.Background(), sig, subs, 0)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Logf("%s: %+v in %v", sig, t.Stats, time.Since(start))
	built[sig] = t
	return t
}

// long skips a test unless TABULA_LONG=1.
func long(tb testing.TB) {
	if os.Getenv("TABULA_LONG") != "1" {
		tb.Skip("set TABULA_LONG=1 to build the bigger tables")
	}
}

func TestKQKKRK(t *testing.T) {
	for _, sig := range []string{"KQK", "KRK"} {
		table(t, sig)
	}
}

// TestBigLongest checks the longest mates of the bigger tables: KPK 28
// moves (Guido, see TestPublishedLongest), KBBK 19 and KBNK 33 (Moreland,
// see TestLongestMates), and the KBNK index count the decks give.
func TestBigLongest(t *testing.T) {
	long(t)
	for _, c := range []struct {
		sig   string
		moves int
	}{{"KPK", 28}, {"KBBK", 19}, {"KBNK", 33}} {
		tab := table(t, c.sig)
		if got := (tab.Stats.LongestWin + 1) / 2; got != c.moves {
			t.Errorf("%s: longest mate %d moves, want %d", c.sig, got, c.moves)
		}
	}
	if n := table(t, "KBNK").Size(); n != 3494568 {
		t.Errorf("KBNK: %d indices, want 3,494,568", n)
	}
}

// checkAgainstChess checks n seeded random legal indices of t against the
// chess package's own move generation: a position's value must be the
// best, over the legal moves chess generates, of the values the tables
// give their successors, and a position without moves a mate or a draw as
// chess says.
func checkAgainstChess(t *testing.T, tab *Table, ts *Tables, n int) {
	rng := rand.New(rand.NewPCG(1, uint64(len(tab.vals))))
	var sq [maxPieces]int8
	np := len(tab.ix.pieces)
	for checked := 0; checked < n; {
		i := rng.IntN(len(tab.vals))
		if tab.vals[i] == Illegal {
			continue
		}
		checked++
		side, wk, bk, _ := tab.ix.decode(i, sq[:np])
		fen := fenOf(tab, side, wk, bk, sq[:np])
		p, err := chess.ParseFEN(fen)
		if err != nil {
			t.Fatalf("%s index %d: %s: %v", tab.Material, i, fen, err)
		}
		if v, ok := ts.ProbePosition(&p); !ok || v != tab.vals[i] {
			t.Fatalf("%s: probe %v %v, table %v", fen, v, ok, tab.vals[i])
		}
		var ml chess.MoveList
		p.LegalMoves(&ml)
		best := Value(Illegal)
		for _, m := range ml.Slice() {
			c := p
			c.Make(m)
			cv, ok := ts.ProbePosition(&c)
			if !ok {
				t.Fatalf("%s: no value after %v", fen, m)
			}
			if pv := cv.Parent(); best == Illegal || better(pv, best) {
				best = pv
			}
		}
		if ml.N == 0 {
			best = Draw
			if p.InCheck() {
				best = Mated
			}
		}
		if best != tab.vals[i] {
			t.Fatalf("%s: table %v, best over chess's moves %v", fen, tab.vals[i], best)
		}
	}
}

// better reports whether a is a better value than b for the side to move:
// a win over a draw over a loss, a faster win, a slower loss.
func better(a, b Value) bool {
	if a.Outcome() != b.Outcome() {
		return a.Outcome() > b.Outcome()
	}
	if a.Outcome() > 0 {
		return a.Plies() < b.Plies()
	}
	return a.Plies() > b.Plies()
}

func setOf(tabs ...*Table) *Tables {
	ts := NewTables()
	for _, t := range tabs {
		ts.Add(t)
	}
	return ts
}

func TestIndexSizes(t *testing.T) {
	for _, c := range []struct {
		sig      string
		kk, size int
	}{
		{"KQK", 462, 2 * 462 * 62},
		{"KBNK", 462, 3494568},
		{"KPK", 1806, 2 * 1806 * 48},
	} {
		ps, err := ParseMaterial(c.sig)
		if err != nil {
			t.Fatal(err)
		}
		ix := newIndexer(ps)
		if ix.nKK != c.kk || ix.size != c.size {
			t.Errorf("%s: %d king pairs, %d indices; want %d, %d", c.sig, ix.nKK, ix.size, c.kk, c.size)
		}
	}
}

// TestIndexRoundTrip checks that every index decodes to squares that encode
// back to an index of the same value (itself, or its mirror image).
func TestIndexRoundTrip(t *testing.T) {
	tab := table(t, "KRK")
	var sq [maxPieces]int8
	for i := range tab.vals {
		side, wk, bk, ok := tab.ix.decode(i, sq[:1])
		if !ok {
			continue
		}
		j := tab.ix.encode(side, wk, bk, sq[:1])
		if j != i {
			t.Fatalf("index %d decodes to %d %d %d %v, which encodes to %d", i, side, wk, bk, sq[:1], j)
		}
	}
}

func TestLongestMates(t *testing.T) {
	// Longest mates with the stronger side to move, in moves: KQK 10,
	// KRK 16 (Bruce Moreland, Computer Chess Club, 15 Nov 2000,
	// stmintz.com/ccc/index.php?id=138918: "10, 16, 19, and 33" for KQK,
	// KRK, KBBK, KBNK).
	for _, c := range []struct {
		sig   string
		moves int
	}{{"KQK", 10}, {"KRK", 16}} {
		tab := table(t, c.sig)
		if got := (tab.Stats.LongestWin + 1) / 2; got != c.moves {
			t.Errorf("%s: longest mate %d moves (%d plies), want %d", c.sig, got, tab.Stats.LongestWin, c.moves)
		}
		if tab.Stats.LongestLoss != tab.Stats.LongestWin+1 {
			t.Errorf("%s: longest loss %d plies, longest win %d", c.sig, tab.Stats.LongestLoss, tab.Stats.LongestWin)
		}
	}
}

// TestPublishedLongest probes the positions of the longest mates that
// Guido (kirill-kryukov.com discussion board, "Longest Mate in kqk",
// viewtopic.php?t=920) lists from Nalimov's tables, White to move: KQK
// Ka1 Qb2 kf5 mates in 10, KRK Ka1 Rb2 kc3 in 16, and, under TABULA_LONG,
// KPK Ka2 Pg2 kb5 in 28; Black to move, KQK Ka1 Qb2 ke4 is lost in 10 and
// KPK Ka3 Pg2 ka5 in 28.
func TestPublishedLongest(t *testing.T) {
	cases := []struct {
		fen   string
		value Value
	}{
		{"8/8/8/5k2/8/8/1Q6/K7 w - - 0 1", WinIn(19)},
		{"8/8/8/8/8/2k5/1R6/K7 w - - 0 1", WinIn(31)},
		{"8/8/8/8/4k3/8/1Q6/K7 b - - 0 1", LossIn(20)},
	}
	sigs := []string{"KQK", "KRK"}
	if os.Getenv("TABULA_LONG") == "1" {
		cases = append(cases, struct {
			fen   string
			value Value
		}{"8/8/8/1k6/8/8/K5P1/8 w - - 0 1", WinIn(55)}, struct {
			fen   string
			value Value
		}{"8/8/8/k7/8/K7/6P1/8 b - - 0 1", LossIn(56)})
		sigs = append(sigs, "KPK")
	}
	ts := NewTables()
	for _, s := range sigs {
		ts.Add(table(t, s))
	}
	for _, c := range cases {
		p := chess.MustParseFEN(c.fen)
		if v, ok := ts.ProbePosition(&p); !ok || v != c.value {
			t.Errorf("%s: %v %v, want %v", c.fen, v, ok, c.value)
		}
	}
}

func TestAgainstChessMoves(t *testing.T) {
	q, r := table(t, "KQK"), table(t, "KRK")
	ts := setOf(q, r)
	checkAgainstChess(t, q, ts, 300)
	checkAgainstChess(t, r, ts, 300)
}

// TestConsistent checks every position of KQK against the recurrence the
// builder solves, on the whole table: the result of a one-ply minimax over
// the table's own moves.
func TestConsistent(t *testing.T) {
	tab := table(t, "KQK")
	g := &game{ix: tab.ix}
	for i, v := range tab.vals {
		best := Value(Illegal)
		got, settled := g.Expand(i, func(c int, cv Value) bool {
			if c >= 0 {
				cv = tab.vals[c]
			}
			if pv := cv.Parent(); best == Illegal || better(pv, best) {
				best = pv
			}
			return true
		})
		if settled {
			best = got
		}
		if best != v {
			t.Fatalf("index %d: table %v, one ply over the table %v", i, v, best)
		}
	}
}

func TestFileRoundTrip(t *testing.T) {
	tab := table(t, "KQK")
	path := filepath.Join(t.TempDir(), "KQK"+Ext)
	if err := tab.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Material != "KQK" || !slices.Equal(got.vals, tab.vals) || got.Stats != Count(tab.vals) {
		t.Fatalf("loaded %s, %+v; want KQK, %+v", got.Material, got.Stats, tab.Stats)
	}
	data, _ := os.ReadFile(path)
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"flipped byte", func() []byte { d := slices.Clone(data); d[len(d)/2] ^= 0x10; return d }()},
		{"truncated", data[:len(data)-9]},
		{"empty", nil},
		{"other magic", append([]byte("TABRETRX"), data[8:]...)},
	} {
		if _, err := Unmarshal(c.data); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", c.name, err)
		}
	}
}

// TestKPKWins checks KPK's count of won positions against a published one:
// Stockfish-style KPK bitbases index the pawn on files a-d (the others are
// mirrored) with both sides to move, and ehsanrashid/DON's
// src/bitbase.cpp asserts that 111,282 of those positions are wins for the
// pawn's side. This table mirrors the white king onto files a-d instead,
// which pairs the same positions, so its white-to-move wins and
// black-to-move losses must add up to the same number.
func TestKPKWins(t *testing.T) {
	s := table(t, "KPK").Stats
	if s.Wins+s.Losses != 111282 {
		t.Errorf("KPK: %d wins and %d losses for the side to move, together %d; want 111,282", s.Wins, s.Losses, s.Wins+s.Losses)
	}
}

// TestKPKSides checks KPK's legal positions and wins for each side to move
// against Steven J. Edwards' counts (1996; quoted in Marcel van Kervinck's
// pfkpk, kpk.c's self-check): over the whole board, 163,328 legal positions
// with White (the pawn's side) to move, 124,960 of them won, and 168,024
// with Black to move, 97,604 of them lost. The table holds the pawn on files
// a-d only, and no KPK position is its own mirror image, so each count here
// must be half of those. The draws follow: 19,184 with White to move and
// 35,210 with Black to move.
func TestKPKSides(t *testing.T) {
	tb := table(t, "KPK")
	half := tb.Size() / 2 // indices are side-major: White to move first
	var legal, decided [2]int
	for i := 0; i < tb.Size(); i++ {
		v := tb.At(i)
		if v == Illegal {
			continue
		}
		side := 0
		if i >= half {
			side = 1
		}
		legal[side]++
		if v != Draw {
			decided[side]++
		}
		if fen, _ := tb.FEN(i); (side == 0) != strings.Contains(fen, " w ") {
			t.Fatalf("index %d (%s) is not in the half of its side to move", i, fen)
		}
	}
	want := [2][2]int{{163328 / 2, 124960 / 2}, {168024 / 2, 97604 / 2}}
	for side, name := range []string{"White", "Black"} {
		if legal[side] != want[side][0] || decided[side] != want[side][1] {
			t.Errorf("KPK, %s to move: %d legal, %d won or lost; want %d and %d", name, legal[side], decided[side], want[side][0], want[side][1])
		}
	}
}
