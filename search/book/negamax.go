package book

import (
	"math"

	"tabula/games/chess"
)

// BuildNegamax builds a book whose moves are chosen by negamax over the
// tree of the games rather than by how often they won: the backed-up
// values of a book built from the program's own games, as Buro describes
// for Logistello ("Toward opening book learning", ICCA Journal 22(2),
// 1999) and as chess programs' book learning does.
//
// Each move among a game's first cfg.MaxPly plies is tallied for its
// (position, move) with the game's result from the mover's side: +1 won, 0
// drawn or unfinished, -1 lost. A (position, move) played at least
// cfg.MinGame times is in the book. A move's value is the negated value of
// the position it leads to, where that position has book moves; otherwise
// (a leaf) it is the mean result of the games that played it. A position's
// value is the best of its book moves' values. A move back into a position
// whose value is being computed (a repetition) counts as a leaf. For each
// position the moves within cfg.Margin of its best value are written, with
// weight 1 + (value+1)/2 * 65534 rounded, so that the best is Best's
// choice and Pick leans to it.
func BuildNegamax(games []chess.PGNGame, cfg BuildConfig) ([]Entry, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	type edge struct {
		move   uint16
		child  uint64
		n, sum int
		value  float64 // backed up, once its position is valued
	}
	type node struct {
		edges []*edge
		state int8 // 0 not valued, 1 being valued, 2 valued
		value float64
	}
	nodes := map[uint64]*node{}
	var order []uint64 // positions in the order first met
	for gi := range games {
		g := &games[gi]
		result := startResult(g)
		pos := g.Start
		k := Key(&pos)
		for ply, m := range g.Moves {
			if ply >= cfg.MaxPly {
				break
			}
			pm := EncodeMove(&pos, m)
			nd := nodes[k]
			if nd == nil {
				nd = &node{}
				nodes[k] = nd
				order = append(order, k)
			}
			var e *edge
			for _, o := range nd.edges {
				if o.move == pm {
					e = o
					break
				}
			}
			next, nk := KeyAfter(&pos, m)
			if e == nil {
				e = &edge{move: pm, child: nk}
				nd.edges = append(nd.edges, e)
			}
			e.n++
			e.sum += result
			pos, k = next, nk
			result = -result
		}
	}
	kept := func(e *edge) bool { return e.n >= cfg.MinGame }
	inBook := func(nd *node) bool {
		if nd == nil {
			return false
		}
		for _, e := range nd.edges {
			if kept(e) {
				return true
			}
		}
		return false
	}
	var value func(nd *node) float64
	edgeValue := func(e *edge) float64 {
		if c := nodes[e.child]; inBook(c) && c.state != 1 {
			return -value(c)
		}
		return float64(e.sum) / float64(e.n)
	}
	value = func(nd *node) float64 {
		if nd.state == 2 {
			return nd.value
		}
		nd.state = 1
		best := math.Inf(-1)
		for _, e := range nd.edges {
			if kept(e) {
				e.value = edgeValue(e)
				best = max(best, e.value)
			}
		}
		nd.state, nd.value = 2, best
		return best
	}
	var out []Entry
	for _, k := range order {
		nd := nodes[k]
		if !inBook(nd) {
			continue
		}
		best := value(nd)
		for _, e := range nd.edges {
			if !kept(e) {
				continue
			}
			if v := e.value; v >= best-cfg.Margin-1e-12 {
				out = append(out, Entry{Key: k, Move: e.move, Weight: uint16(1 + math.Round((v+1)/2*65534))})
			}
		}
	}
	return out, nil
}
