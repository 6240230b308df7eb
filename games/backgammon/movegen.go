package backgammon

import (
	"slices"
	"sync"
)

// canStep reports whether player p may move a checker from source src
// (0..23 a point, BarSource the bar) with die d.
func (q *Position) canStep(p, src, d int) bool {
	if src == BarSource {
		return q.Bar[p] > 0 && q.Board[1-p][d-1] < 2 // entering on point 25-d, the opponent's point d
	}
	if q.Bar[p] > 0 || q.Board[p][src] == 0 {
		return false
	}
	dst := src - d
	if dst >= 0 {
		return q.Board[1-p][23-dst] < 2
	}
	// Bearing off: every checker home, and an exact die or none higher.
	for i := 6; i < Points; i++ {
		if q.Board[p][i] > 0 {
			return false
		}
	}
	if dst == -1 {
		return true
	}
	for i := src + 1; i < 6; i++ {
		if q.Board[p][i] > 0 {
			return false
		}
	}
	return true
}

// step moves a checker of player p from src with die d, hitting a blot;
// src NoMove does nothing. The move must be legal. It reports whether it hit.
func (q *Position) step(p, src, d int) bool {
	if src == NoMove {
		return false
	}
	var dst int
	if src == BarSource {
		q.Bar[p]--
		dst = 24 - d
	} else {
		q.Board[p][src]--
		dst = src - d
	}
	if dst < 0 {
		q.Off[p]++
		return false
	}
	hit := false
	if o := &q.Board[1-p][23-dst]; *o == 1 {
		*o = 0
		q.Bar[1-p]++
		hit = true
	}
	q.Board[p][dst]++
	return hit
}

// sources appends player p's sources that can move with die d, highest
// first (the bar, then points 24..1).
func (q *Position) sources(p, d int, buf []int8) []int8 {
	buf = buf[:0]
	if q.Bar[p] > 0 {
		if q.canStep(p, BarSource, d) {
			buf = append(buf, BarSource)
		}
		return buf
	}
	for i := Points - 1; i >= 0; i-- {
		if q.Board[p][i] > 0 && q.canStep(p, i, d) {
			buf = append(buf, int8(i))
		}
	}
	return buf
}

// unstep undoes step(p, src, d), which returned hit.
func (q *Position) unstep(p, src, d int, hit bool) {
	var dst int
	if src == BarSource {
		q.Bar[p]++
		dst = 24 - d
	} else {
		q.Board[p][src]++
		dst = src - d
	}
	if dst < 0 {
		q.Off[p]--
		return
	}
	q.Board[p][dst]--
	if hit {
		q.Board[1-p][23-dst] = 1
		q.Bar[1-p]--
	}
}

// maxMoves returns how many moves of die d (up to k) player p can play in a
// row from q. It moves checkers on q and puts them back.
func (q *Position) maxMoves(p, d, k int) int {
	if k == 0 {
		return 0
	}
	var buf [25]int8
	best := 0
	for _, src := range q.sources(p, d, buf[:0]) {
		hit := q.step(p, int(src), d)
		m := 1 + q.maxMoves(p, d, k-1)
		q.unstep(p, int(src), d, hit)
		if m > best {
			best = m
			if best == k {
				break
			}
		}
	}
	return best
}

// legalCache holds a decision state's legal actions (increasing), the
// position each one reaches, and whether the turn continues after it (the
// first half of doubles).
type legalCache struct {
	valid   bool
	actions []int32
	after   []Position
	cont    []bool
}

func (c *legalCache) invalidate() {
	if c != nil {
		c.valid = false
	}
}

func (c *legalCache) find(a int) (int, bool) {
	return slices.BinarySearch(c.actions, int32(a))
}

// candidate is a generated action and the position it reaches.
type candidate struct {
	action int32
	cont   bool
	pos    Position
}

// generator is scratch space for move generation, pooled.
type generator struct {
	cands []candidate
	seen  map[Position]int // position -> index in cands of its smallest action
}

var genPool = sync.Pool{New: func() any { return &generator{seen: map[Position]int{}} }}

// add records action a reaching q, keeping the smallest action per position.
func (g *generator) add(a int, cont bool, q *Position) {
	if i, ok := g.seen[*q]; ok {
		if int32(a) < g.cands[i].action {
			g.cands[i].action, g.cands[i].cont = int32(a), cont
		}
		return
	}
	g.seen[*q] = len(g.cands)
	g.cands = append(g.cands, candidate{action: int32(a), cont: cont, pos: *q})
}

// legal returns the state's legal-move cache, generating it if needed.
func (s *State) legal() *legalCache {
	if s.cache == nil {
		s.cache = &legalCache{}
	}
	c := s.cache
	if c.valid {
		return c
	}
	g := genPool.Get().(*generator)
	g.cands = g.cands[:0]
	clear(g.seen)
	p := int(s.player)
	if s.dice[0] == s.dice[1] {
		g.doubles(&s.pos, p, int(s.dice[0]), s.half)
	} else {
		g.nonDoubles(&s.pos, p, int(s.dice[0]), int(s.dice[1]))
	}
	if len(g.cands) == 0 {
		g.add(PassAction, false, &s.pos)
	}
	slices.SortFunc(g.cands, func(a, b candidate) int { return int(a.action - b.action) })
	c.actions, c.after, c.cont = c.actions[:0], c.after[:0], c.cont[:0]
	for i := range g.cands {
		c.actions = append(c.actions, g.cands[i].action)
		c.after = append(c.after, g.cands[i].pos)
		c.cont = append(c.cont, g.cands[i].cont)
	}
	c.valid = true
	genPool.Put(g)
	return c
}

// nonDoubles generates the turns of roll hi-lo (hi > lo): both dice when
// possible, else the higher die when it can be played, else the lower.
func (g *generator) nonDoubles(q *Position, p, hi, lo int) {
	var b1, b2 [25]int8
	var singles [2][25]Position // positions after one move of hi, of lo
	var singleSrc [2][25]int8
	var nSingles [2]int
	two := false
	for order := 0; order < 2; order++ {
		d1, d2 := hi, lo
		if order == 1 {
			d1, d2 = lo, hi
		}
		for _, s1 := range q.sources(p, d1, b1[:0]) {
			c1 := *q
			c1.step(p, int(s1), d1)
			singles[order][nSingles[order]] = c1
			singleSrc[order][nSingles[order]] = s1
			nSingles[order]++
			for _, s2 := range c1.sources(p, d2, b2[:0]) {
				c2 := c1
				c2.step(p, int(s2), d2)
				x, y := int(s1), int(s2)
				if order == 1 {
					x, y = y, x
				}
				g.add(order*676+x*26+y, false, &c2)
				two = true
			}
		}
	}
	if two {
		return
	}
	// Only one die can be played: the higher one if it can.
	if nSingles[0] > 0 {
		for i := range nSingles[0] {
			g.add(int(singleSrc[0][i])*26+NoMove, false, &singles[0][i])
		}
		return
	}
	for i := range nSingles[1] {
		g.add(NoMove*26+int(singleSrc[1][i]), false, &singles[1][i])
	}
}

// doubles generates the legal half-turns of doubles of d: the first half
// (two moves that keep the most moves possible, or the whole turn when at
// most two moves can be played), or the second half.
func (g *generator) doubles(q *Position, p, d int, second bool) {
	total := q.maxMoves(p, d, 2)
	if !second {
		total = q.maxMoves(p, d, 4)
	}
	want := min(total, 2) // moves in this decision
	rest := total - want  // moves that must remain possible after it
	if want == 0 {
		return
	}
	var b1, b2 [25]int8
	for _, s1 := range q.sources(p, d, b1[:0]) {
		c1 := *q
		c1.step(p, int(s1), d)
		if want == 1 {
			g.add(int(s1)*26+NoMove, false, &c1)
			continue
		}
		for _, s2 := range c1.sources(p, d, b2[:0]) {
			c2 := c1
			c2.step(p, int(s2), d)
			if rest > 0 && c2.maxMoves(p, d, rest) < rest {
				continue
			}
			g.add(int(s1)*26+int(s2), rest > 0, &c2)
		}
	}
}
