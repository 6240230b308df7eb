// Package retro builds endgame databases by retrograde analysis and keeps
// them on disk.
//
// The builder (Build) is generic: it works on any two-player game whose
// positions of interest are numbered densely by a Game. It marks the
// positions decided without search (illegal ones, mates, stalemates), then
// alternates outward: at pass n (n odd) a position is won in n plies when
// one of its moves reaches a position lost in n-1; at pass n (n even) it is
// lost in n plies when every move reaches a won position (the longest of
// them won in n-1). Positions never decided are draws. Distances are kept
// in plies (DTM: distance to mate, counted in half-moves from the side to
// move); a win in d plies is a mate in (d+1)/2 moves.
//
// Each pass iterates forward over the undecided positions (their moves, not
// unmoves), in parallel, and applies its results only after the pass, so
// that every pass reads one consistent table.
//
// The chess part (chess.go) indexes endgames of a king and up to three
// pieces against a lone king with the board's symmetries; connect4.go
// numbers every position of Connect Four on a small board; file.go stores
// tables in a checksummed file.
package retro

import (
	"context"
	"fmt"
	"runtime"
	"sync"
)

// Value is a position's exact value for the side to move: a draw, a win or
// a loss with its distance to mate in plies, or the mark of an illegal
// index. It is one byte: 0 draw, 255 illegal, otherwise 1 + plies, where an
// odd distance is a win and an even one a loss.
type Value uint8

const (
	// Draw is the value of a position neither side can win.
	Draw Value = 0
	// Illegal marks an index that names no legal position.
	Illegal Value = 255
	// MaxPlies is the longest distance a Value can hold.
	MaxPlies = 253
)

// Mated is the value of a position whose side to move is mated.
const Mated Value = 1

// WinIn returns the value of a win in d plies (d odd).
func WinIn(d int) Value { return Value(d + 1) }

// LossIn returns the value of a loss in d plies (d even).
func LossIn(d int) Value { return Value(d + 1) }

// Plies returns the distance to mate of a win or loss, and 0 for a draw
// or an illegal index.
func (v Value) Plies() int {
	if v == Draw || v == Illegal {
		return 0
	}
	return int(v) - 1
}

// Outcome is +1 for a win of the side to move, -1 for a loss, 0 for a draw
// or an illegal index.
func (v Value) Outcome() int {
	switch {
	case v == Draw || v == Illegal:
		return 0
	case v.Plies()%2 == 1:
		return 1
	}
	return -1
}

// Parent returns the value, for the side to move, of a move into a
// position of value v: a loss of the opponent in d plies is a win in d+1.
func (v Value) Parent() Value {
	if v == Draw || v == Illegal {
		return v
	}
	return v + 1
}

// String writes v as "draw", "illegal", "win in 5" or "loss in 4" (plies).
func (v Value) String() string {
	switch v.Outcome() {
	case 1:
		return fmt.Sprintf("win in %d", v.Plies())
	case -1:
		return fmt.Sprintf("loss in %d", v.Plies())
	}
	if v == Illegal {
		return "illegal"
	}
	return "draw"
}

// Game numbers the positions of one database and gives their moves.
type Game interface {
	// Size is the number of indices, legal or not.
	Size() int
	// Expand looks at position i. When the position is decided without
	// looking at its moves (an illegal index, a mate, a stalemate) it
	// returns that value and settled = true. Otherwise it calls child for
	// each legal move, with the successor's index, or with index -1 and
	// the successor's value (for the opponent) when the move leaves the
	// database (a capture, a promotion), and stops when child returns
	// false.
	Expand(i int, child func(index int, v Value) bool) (v Value, settled bool)
	// ExternalPlies bounds the distances of the values Expand passes for
	// moves that leave the database.
	ExternalPlies() int
}

// Stats sums up a built table.
type Stats struct {
	Positions, Illegal      int // legal positions and illegal indices
	Wins, Draws, Losses     int // legal positions by value for the side to move
	LongestWin, LongestLoss int // the longest distances, in plies
	Passes, Workers         int // passes of the build and goroutines used
}

// Count tallies the values of a table.
func Count(vals []Value) Stats {
	var s Stats
	for _, v := range vals {
		switch v.Outcome() {
		case 1:
			s.Wins++
			s.LongestWin = max(s.LongestWin, v.Plies())
		case -1:
			s.Losses++
			s.LongestLoss = max(s.LongestLoss, v.Plies())
		default:
			if v == Illegal {
				s.Illegal++
			} else {
				s.Draws++
			}
		}
	}
	s.Positions = len(vals) - s.Illegal
	return s
}

// pending marks an undecided position during a build; no stored value uses it.
const pending Value = 254

// Build computes the value of every position of g with up to workers
// goroutines (0: GOMAXPROCS). It stops early with ctx's error.
func Build(ctx context.Context, g Game, workers int) ([]Value, Stats, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	n := g.Size()
	vals := make([]Value, n)
	var st Stats
	// Pass 0: what needs no moves.
	parallel(n, workers, func(lo, hi int, _ *[]int) {
		for i := lo; i < hi; i++ {
			if v, ok := g.Expand(i, func(int, Value) bool { return false }); ok {
				vals[i] = v
			} else {
				vals[i] = pending
			}
		}
	})
	ext := g.ExternalPlies()
	quiet := 0
	for d := 1; ; d++ {
		if err := ctx.Err(); err != nil {
			return nil, st, fmt.Errorf("retro: build: %w", err)
		}
		if d > MaxPlies {
			return nil, st, fmt.Errorf("retro: build: distances beyond %d plies", MaxPlies)
		}
		var found [][]int
		var mu sync.Mutex
		parallel(n, workers, func(lo, hi int, out *[]int) {
			for i := lo; i < hi; i++ {
				if vals[i] != pending {
					continue
				}
				if d%2 == 1 {
					// Won in d: a move to a position lost in d-1.
					want := LossIn(d - 1)
					won := false
					g.Expand(i, func(c int, v Value) bool {
						if c >= 0 {
							v = vals[c]
						}
						won = v == want
						return !won
					})
					if won {
						*out = append(*out, i)
					}
					continue
				}
				// Lost in d: every move reaches a won position.
				lost, any := true, false
				g.Expand(i, func(c int, v Value) bool {
					if c >= 0 {
						v = vals[c]
					}
					any = true
					lost = v != pending && v.Outcome() == 1
					return lost
				})
				if lost && any {
					*out = append(*out, i)
				}
			}
		}, func(out []int) {
			mu.Lock()
			found = append(found, out)
			mu.Unlock()
		})
		changed := 0
		for _, f := range found {
			for _, i := range f {
				vals[i] = Value(d + 1)
			}
			changed += len(f)
		}
		st.Passes = d
		if changed == 0 {
			quiet++
		} else {
			quiet = 0
		}
		if quiet >= 2 && d > ext+1 {
			break
		}
	}
	for i, v := range vals {
		if v == pending {
			vals[i] = Draw
		}
	}
	s := Count(vals)
	s.Passes, s.Workers = st.Passes, workers
	return vals, s, nil
}

// parallel splits [0, n) into chunks run by workers goroutines; each chunk
// gets its own output slice, handed to done (when given) after the chunk.
func parallel(n, workers int, body func(lo, hi int, out *[]int), done ...func([]int)) {
	const chunk = 1 << 14
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				lo := next
				next += chunk
				mu.Unlock()
				if lo >= n {
					return
				}
				var out []int
				body(lo, min(lo+chunk, n), &out)
				if len(done) > 0 && len(out) > 0 {
					done[0](out)
				}
			}
		}()
	}
	wg.Wait()
}
