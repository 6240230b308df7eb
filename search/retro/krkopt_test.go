package retro

import (
	"strings"
	"testing"

	"tabula/games/chess"
)

// The UCI Machine Learning Repository's "Chess (King-Rook vs. King)"
// database (Michael Bain and Arthur van Hoff, 1994; doi:10.24432/C5DK5C;
// krkopt.data and krkopt.names): every KRK position with Black to move and
// the white king in the triangle a1-d1-d4, labelled with White's optimal
// depth of win in moves (0: Black is mated; "draw" for a draw, Black's
// capture of the rook included). Its documentation's class distribution,
// indexed by depth in moves (-1: draw).
var krkoptCounts = map[int]int{
	-1: 2796, 0: 27, 1: 78, 2: 246, 3: 81, 4: 198, 5: 471, 6: 592, 7: 683, 8: 1433,
	9: 1712, 10: 1985, 11: 2854, 12: 3597, 13: 4194, 14: 4553, 15: 2166, 16: 390,
}

// krkoptSample is 30 rows of krkopt.data: the white king's file and rank,
// the rook's, the black king's, then the depth.
const krkoptSample = `d,1,d,4,b,3,eleven
b,1,g,1,b,6,thirteen
c,3,c,2,g,4,twelve
a,1,a,3,g,4,fifteen
b,1,f,3,d,5,sixteen
c,1,g,2,f,1,draw
d,2,g,7,b,1,four
d,3,h,3,b,2,six
c,2,e,4,a,1,one
d,3,f,1,d,1,zero
c,1,a,4,a,1,zero
d,2,b,6,b,1,three
d,3,b,4,c,1,one
c,3,f,2,b,1,two
c,3,g,4,c,1,two
a,1,h,8,d,4,sixteen
b,1,e,3,e,2,draw
d,4,e,1,e,2,draw
a,1,g,1,h,1,draw
d,2,h,8,b,2,five
c,1,c,3,h,1,seven
d,1,b,4,b,1,three
b,1,b,3,d,2,eight
d,1,c,8,b,1,nine
c,3,f,1,h,5,ten
c,1,e,1,e,4,fourteen
a,1,d,1,d,2,draw
d,3,f,3,b,3,seven
c,2,a,1,h,2,nine
d,2,d,4,b,3,four`

var krkoptDepths = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
	"nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen"}

// krkoptDepth is a KRK value with Black to move as the database's depth:
// White mates on its n-th move, 2n plies (-1: a draw).
func krkoptDepth(v Value) int {
	if v == Draw {
		return -1
	}
	return v.Plies() / 2
}

// TestKRKAgainstUCI checks the KRK table against the UCI database: the count
// of every depth over the database's positions (Black to move, the white
// king in a1-d1-d4, one of each pair of positions mirrored in the a1-h8
// diagonal when the white king stands on it), and the depth of each row of a
// sample of the data.
func TestKRKAgainstUCI(t *testing.T) {
	tab := table(t, "KRK")
	triangle := [][2]int{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {1, 1}, {2, 1}, {3, 1}, {2, 2}, {3, 2}, {3, 3}}
	got := map[int]int{}
	total := 0
	for _, w := range triangle {
		wk := chess.Square(w[1]*8 + w[0])
		for r := range 64 {
			for b := range 64 {
				v := tab.Lookup(chess.Black, wk, chess.Square(b), []chess.Square{chess.Square(r)})
				if v == Illegal {
					continue
				}
				if v.Plies()%2 == 1 {
					t.Fatalf("rook on %d, black king on %d: %v, a win for Black", r, b, v)
				}
				if w[0] == w[1] { // on the diagonal: count one of each mirrored pair
					mr, mb := r%8*8+r/8, b%8*8+b/8
					if mr*64+mb < r*64+b {
						continue
					}
				}
				total++
				got[krkoptDepth(v)]++
			}
		}
	}
	if total != 28056 {
		t.Errorf("%d positions, the database has 28,056", total)
	}
	for d := -1; d <= 16; d++ {
		if got[d] != krkoptCounts[d] {
			t.Errorf("depth %d: %d positions, the database has %d", d, got[d], krkoptCounts[d])
		}
	}
	sq := func(file, rank string) chess.Square {
		return chess.Square(int(rank[0]-'1')*8 + int(file[0]-'a'))
	}
	for _, line := range strings.Split(krkoptSample, "\n") {
		f := strings.Split(line, ",")
		want := -1
		for d, name := range krkoptDepths {
			if f[6] == name {
				want = d
			}
		}
		v := tab.Lookup(chess.Black, sq(f[0], f[1]), sq(f[4], f[5]), []chess.Square{sq(f[2], f[3])})
		if v == Illegal || krkoptDepth(v) != want {
			t.Errorf("%s: %v, depth %d", line, v, krkoptDepth(v))
		}
	}
}
