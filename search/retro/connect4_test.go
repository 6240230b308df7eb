package retro

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"tabula/internal/cputime"
)

// c4Brute solves Connect Four on a small board by plain negamax from the
// empty board, with its own board (column heights and move lists) and a
// memo of the positions reached, independent of the index and of Build.
type c4Brute struct {
	w, h int
	memo map[[2]uint64]Value
}

func (b *c4Brute) four(s uint64) bool {
	for c := range b.w {
		for r := range b.h {
			for _, d := range [4][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
				k := 0
				for ; k < 4; k++ {
					cc, rr := c+k*d[0], r+k*d[1]
					if cc < 0 || cc >= b.w || rr < 0 || rr >= b.h || s&(1<<(cc*8+rr)) == 0 {
						break
					}
				}
				if k == 4 {
					return true
				}
			}
		}
	}
	return false
}

// solve returns the value for the player to move, p[0] being its stones.
func (b *c4Brute) solve(p [2]uint64, heights []int, n int) Value {
	if v, ok := b.memo[p]; ok {
		return v
	}
	var v Value
	switch {
	case b.four(p[1]):
		v = Mated
	case n == b.w*b.h:
		v = Draw
	default:
		bestWin, worstLoss, draw := 0, -1, false
		for c := range b.w {
			if heights[c] == b.h {
				continue
			}
			q := [2]uint64{p[1], p[0] | 1<<(c*8+heights[c])}
			heights[c]++
			cv := b.solve(q, heights, n+1)
			heights[c]--
			switch cv.Outcome() {
			case -1:
				if d := cv.Plies() + 1; bestWin == 0 || d < bestWin {
					bestWin = d
				}
			case 1:
				worstLoss = max(worstLoss, cv.Plies()+1)
			default:
				draw = true
			}
		}
		switch {
		case bestWin > 0:
			v = WinIn(bestWin)
		case draw:
			v = Draw
		default:
			v = LossIn(worstLoss)
		}
	}
	b.memo[p] = v
	return v
}

// checkC4 compares every position reachable from the empty board with the
// brute-force values, and returns the number compared.
func checkC4(t *testing.T, tab *C4Table) int {
	t.Helper()
	b := &c4Brute{w: tab.Width, h: tab.Height, memo: map[[2]uint64]Value{}}
	heights := make([]int, tab.Width)
	b.solve([2]uint64{}, heights, 0)
	seen := map[int]bool{}
	var walk func(moves []int, p [2]uint64, n int)
	walk = func(moves []int, p [2]uint64, n int) {
		i, err := tab.Index(moves)
		if err != nil {
			t.Fatalf("moves %v: %v", moves, err)
		}
		seen[i] = true
		if got, want := tab.At(i), b.memo[p]; got != want {
			t.Fatalf("%s: moves %v: table %v, negamax %v", tab.Name(), moves, got, want)
		}
		if b.four(p[1]) || n == b.w*b.h {
			return
		}
		for c := range b.w {
			if heights[c] == b.h {
				continue
			}
			q := [2]uint64{p[1], p[0] | 1<<(c*8+heights[c])}
			heights[c]++
			if i, _ := tab.Index(append(moves, c)); !seen[i] {
				walk(append(moves, c), q, n+1)
			}
			heights[c]--
		}
	}
	walk(nil, [2]uint64{}, 0)
	return len(seen)
}

var c4Built = map[string]*C4Table{}

// c4Table builds (once per test binary) the table of a board.
func c4Table(tb testing.TB, w, h int) *C4Table {
	tb.Helper()
	builtMu.Lock()
	defer builtMu.Unlock()
	name := fmt.Sprintf("%dx%d", w, h)
	if tab, ok := c4Built[name]; ok {
		return tab
	}
	tab, err := BuildConnect4(context.Background(), w, h, 0)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Logf("connect4 %s: %+v", name, tab.Stats)
	c4Built[name] = tab
	return tab
}

// TestConnect4AgainstNegamax checks every position reachable on 4x4 (and,
// under TABULA_LONG=1, on 5x4 and 4x5: about three minutes) against
// plain negamax: the value and the distance.
func TestConnect4AgainstNegamax(t *testing.T) {
	boards := [][2]int{{4, 4}}
	if os.Getenv("TABULA_LONG") == "1" {
		boards = append(boards, [2]int{5, 4}, [2]int{4, 5})
	}
	for _, wh := range boards {
		tab := c4Table(t, wh[0], wh[1])
		n := checkC4(t, tab)
		v, _ := tab.Probe(nil)
		t.Logf("%s: %d reachable positions agree; the empty board: %v", tab.Name(), n, v)
	}
}

// TestConnect4Tiny checks boards small enough to reason about by hand.
func TestConnect4Tiny(t *testing.T) {
	// 1x4: the first player fills rows 0 and 2, never four: a draw.
	// 4x1: the first player gets two of the four cells. 3x3: no four fits.
	for _, wh := range [][2]int{{1, 4}, {4, 1}, {3, 3}} {
		tab := c4Table(t, wh[0], wh[1])
		if tab.Stats.Wins+tab.Stats.Losses != 0 {
			t.Errorf("%s: %+v, want only draws (no four fits or can be made)", tab.Name(), tab.Stats)
		}
	}
	// 4x2: three first-player stones on the bottom row under three of the
	// second player's, the first player to move: a win in 1.
	tab := c4Table(t, 4, 2)
	v, err := tab.Probe([]int{0, 0, 1, 1, 2, 2})
	if err != nil || v != WinIn(1) {
		t.Errorf("4x2 after 0 0 1 1 2 2: %v %v, want a win in 1", v, err)
	}
	// After X plays 3 the second player has lost.
	if v, err := tab.Probe([]int{0, 0, 1, 1, 2, 2, 3}); err != nil || v != Mated {
		t.Errorf("4x2 after 0 0 1 1 2 2 3: %v %v, want a loss in 0", v, err)
	}
	// The game is over: a further move is an error.
	if _, err := tab.Probe([]int{0, 0, 1, 1, 2, 2, 3, 3}); err == nil {
		t.Error("a move after four in a row: no error")
	}
	for _, moves := range [][]int{{4}, {-1}, {0, 0, 0}} {
		if _, err := tab.Probe(moves); err == nil {
			t.Errorf("moves %v on 4x2: no error", moves)
		}
	}
}

func TestConnect4BoardErrors(t *testing.T) {
	for _, wh := range [][2]int{{0, 4}, {4, 0}, {9, 4}, {4, 8}, {5, 5}, {6, 4}} {
		if _, err := BuildConnect4(context.Background(), wh[0], wh[1], 1); err == nil {
			t.Errorf("%dx%d: no error", wh[0], wh[1])
		}
	}
}

func TestConnect4File(t *testing.T) {
	tab := c4Table(t, 4, 4)
	path := filepath.Join(t.TempDir(), "connect4-4x4"+Ext)
	if err := tab.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := LoadConnect4(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name() != "4x4" || got.Stats != Count(tab.vals) || len(got.vals) != len(tab.vals) {
		t.Fatalf("loaded %s %+v", got.Name(), got.Stats)
	}
	for i := range tab.vals {
		if got.vals[i] != tab.vals[i] {
			t.Fatalf("index %d: %v, saved %v", i, got.vals[i], tab.vals[i])
		}
	}
	data, _ := os.ReadFile(path)
	flipped := append([]byte(nil), data...)
	flipped[len(flipped)/2] ^= 1
	if _, err := UnmarshalConnect4(flipped); !errors.Is(err, ErrCorrupt) {
		t.Errorf("flipped byte: %v, want ErrCorrupt", err)
	}
	if _, err := UnmarshalConnect4(data[:len(data)-9]); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated: %v, want ErrCorrupt", err)
	}
	// A chess file is refused by name, and a Connect Four one by Load.
	kqk, err := table(t, "KQK").Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := UnmarshalConnect4(kqk); err == nil || errors.Is(err, ErrCorrupt) {
		t.Errorf("chess file read as connect4: %v", err)
	}
	if _, err := Unmarshal(data); err == nil {
		t.Error("connect4 file read as chess: no error")
	}
	// LoadDir reads chess tables and passes over Connect Four ones; a
	// folder of Connect Four tables alone has no chess tables.
	dir := filepath.Dir(path)
	if _, err := LoadDir(dir); err == nil {
		t.Error("LoadDir of a folder with connect4-4x4.rtb alone: no error")
	}
	if err := os.WriteFile(filepath.Join(dir, "KQK"+Ext), kqk, 0o644); err != nil {
		t.Fatal(err)
	}
	if ts, err := LoadDir(dir); err != nil || len(ts.Materials()) != 1 {
		t.Errorf("LoadDir with KQK and connect4-4x4: %v, %v; want KQK alone", ts, err)
	}
	// A header naming a board whose size disagrees with the count.
	bad, err := marshalFrame("connect4", "4x3", C4IndexVersion, tab.vals)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := UnmarshalConnect4(bad); !errors.Is(err, ErrCorrupt) {
		t.Errorf("4x3 with 4x4's values: %v, want ErrCorrupt", err)
	}
}

// BenchmarkBuildConnect4 builds whole tables, reporting CPU seconds (the
// process's, all workers) and the bytes the values take.
func BenchmarkBuildConnect4(b *testing.B) {
	for _, wh := range [][2]int{{4, 4}, {4, 5}, {5, 4}} {
		b.Run(fmt.Sprintf("%dx%d", wh[0], wh[1]), func(b *testing.B) {
			var tab *C4Table
			c0, t0 := cputime.Process(), time.Now()
			for range b.N {
				var err error
				if tab, err = BuildConnect4(context.Background(), wh[0], wh[1], 0); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cputime.Process()-c0).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(time.Since(t0).Seconds()/float64(b.N), "wall-s/op")
			b.ReportMetric(float64(tab.Size()), "bytes")
			b.ReportMetric(float64(tab.Stats.Positions), "positions")
		})
	}
}

// TestConnect4Lookup checks Lookup by bitboards against Index by moves on
// random games, and refuses floating stones.
func TestConnect4Lookup(t *testing.T) {
	tab := c4Table(t, 4, 4)
	for g := range 200 {
		var p [2]uint64
		var moves []int
		heights := make([]int, 4)
		for n := 0; n < 16; n++ {
			i, err := tab.Index(moves)
			if err != nil {
				t.Fatal(err)
			}
			if v := tab.Lookup(p[0], p[1]); v != tab.At(i) {
				t.Fatalf("moves %v: Lookup %v, Index %v", moves, v, tab.At(i))
			}
			if tab.hasFour(p[0]) || tab.hasFour(p[1]) {
				break
			}
			c := (g*7 + n*3 + n*n) % 4
			for heights[c] == 4 {
				c = (c + 1) % 4
			}
			p[n&1] |= 1 << (c*5 + heights[c])
			heights[c]++
			moves = append(moves, c)
		}
	}
	if v := tab.Lookup(1<<1, 0); v != Illegal {
		t.Errorf("a floating stone: %v, want illegal", v)
	}
	if v := tab.Lookup(1<<20, 0); v != Illegal {
		t.Errorf("a stone off the board: %v, want illegal", v)
	}
}
