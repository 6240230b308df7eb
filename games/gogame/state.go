package gogame

import (
	"math/bits"
	"math/rand/v2"

	"tabula/games"
)

// State is a Go position with the history its rules need: the hashes of
// every earlier board (positional superko), the last few boards (the
// observation), the moves played (symmetric transforms) and the number of
// consecutive passes. It owns all its buffers: LegalActions, IsLegal,
// ApplyAction, RandomMove and CopyFrom allocate nothing.
type State struct {
	g *Game

	// Storage: three backing arrays, carved into the slices below, so that
	// Clone allocates four objects whatever the board size.
	b8  []int8
	b16 []int16
	b64 []uint64

	board []int8 // Empty, Black or White per point
	prev  []int8 // HistoryPlanes-1 earlier boards, a ring; prev[i*n:] is slot i

	head  []int16 // group head of each stone
	next  []int16 // circular list of the stones of each group
	gsize []int16 // stones in the group, at its head
	nlib  []int16 // liberties of the group, at its head
	empt  []int16 // the empty points, in no order
	epos  []int16 // index of each empty point in empt
	moves []int16 // actions played, len = MoveNumber
	legal []int16 // with legalOK: the legal actions, LegalActions' list (n+1 at most)

	libs  []uint64 // liberty bitset of each group, at its head, g.words words
	ghash []uint64 // xor of the Zobrist keys of the group's stones, at its head
	table []uint64 // open-addressed set of the hashes of every board so far (|1; 0 = free)

	hash     uint64                    // Zobrist hash of the board
	prevHash [HistoryPlanes - 1]uint64 // board hashes of the ring slots
	ring     int                       // slot of the most recent earlier board
	toMove   int8                      // 0 black, 1 white
	passes   int8                      // consecutive passes just played
	setup    *setup                    // starting position other than the empty board, or nil

	// legalOK says legal[:nlegal] holds this position's legal actions: a
	// search asks for them twice a leaf (the network's encoding, then the
	// expansion), and in Go each is a liberty and superko check a point.
	legalOK bool
	nlegal  int16
}

// setup is a starting position given as text; shared, immutable.
type setup struct {
	board  []int8
	toMove int
}

var (
	_ games.State    = (*State)(nil)
	_ games.Outcomer = (*State)(nil)
	_ games.Ending   = (*State)(nil)
)

func (g *Game) newState() *State {
	s := &State{g: g}
	n := g.n
	s.b8 = make([]int8, n*HistoryPlanes)
	s.b16 = make([]int16, 7*n+1+g.maxMoves)
	s.b64 = make([]uint64, n*g.words+n+g.tblSize)
	s.carve()
	s.moves = s.moves[:0]
	for p := 0; p < n; p++ {
		s.empt[p] = int16(p)
		s.epos[p] = int16(p)
	}
	s.empt = s.empt[:n]
	s.hash = g.empty
	for i := range s.prevHash {
		s.prevHash[i] = g.empty
	}
	s.insert(s.hash)
	return s
}

// carve points the slices into the backing arrays; lengths of empt and
// moves are set by the caller.
func (s *State) carve() {
	g := s.g
	n := g.n
	s.board = s.b8[:n:n]
	s.prev = s.b8[n:]
	o := 0
	cut16 := func(m int) []int16 { r := s.b16[o : o+m : o+m]; o += m; return r }
	s.head = cut16(n)
	s.next = cut16(n)
	s.gsize = cut16(n)
	s.nlib = cut16(n)
	s.empt = cut16(n)
	s.epos = cut16(n)
	s.moves = cut16(g.maxMoves)
	s.legal = cut16(n + 1)
	o = 0
	cut64 := func(m int) []uint64 { r := s.b64[o : o+m : o+m]; o += m; return r }
	s.libs = cut64(n * g.words)
	s.ghash = cut64(n)
	s.table = cut64(g.tblSize)
}

// Game returns the game this state belongs to.
func (s *State) Game() games.Game { return s.g }

// CurrentPlayer returns 0 when black is to move, 1 when white is.
func (s *State) CurrentPlayer() int { return int(s.toMove) }

// MoveNumber returns the number of actions played, passes included.
func (s *State) MoveNumber() int { return len(s.moves) }

// EndingAction implements games.Ending: after a pass, passing again ends the
// game, scored as the board stands (dead stones not removed). At the move
// limit's last move every action ends it, and it returns -1.
func (s *State) EndingAction() int {
	if s.passes == 1 && len(s.moves)+1 < s.g.maxMoves {
		return s.g.n
	}
	return -1
}

// IsTerminal reports whether two consecutive passes were played or the
// length cap is reached.
func (s *State) IsTerminal() bool { return s.passes >= 2 || len(s.moves) >= s.g.maxMoves }

// At returns the colour (Empty, Black or White) of point p.
func (s *State) At(p int) int {
	if p < 0 || p >= s.g.n {
		return Empty
	}
	return int(s.board[p])
}

// Clone returns an independent copy.
func (s *State) Clone() games.State {
	c := &State{}
	*c = *s
	c.b8 = append([]int8(nil), s.b8...)
	c.b16 = append([]int16(nil), s.b16...)
	c.b64 = append([]uint64(nil), s.b64...)
	c.carve()
	c.empt = c.empt[:len(s.empt)]
	c.moves = c.moves[:len(s.moves)]
	return c
}

// CopyFrom makes s a copy of src, a *State of the same game, reusing s's
// buffers: it allocates nothing. It is the way to reset a playout state, and
// it makes State an mcts.Copier and a search.Copier.
func (s *State) CopyFrom(from games.State) {
	src := from.(*State)
	if s.g != src.g || len(s.b8) != len(src.b8) || len(s.b16) != len(src.b16) || len(s.b64) != len(src.b64) {
		*s = *src.Clone().(*State)
		return
	}
	b8, b16, b64 := s.b8, s.b16, s.b64
	*s = *src
	s.b8, s.b16, s.b64 = b8, b16, b64
	copy(s.b8, src.b8)
	copy(s.b16, src.b16)
	copy(s.b64, src.b64)
	s.carve()
	s.empt = s.empt[:len(src.empt)]
	s.moves = s.moves[:len(src.moves)]
}

// Hash returns a Zobrist-style hash of the board, the player to move, the
// number of consecutive passes (0, 1) and the boards of the last
// HistoryPlanes-1 positions (which the observation shows). It does not
// cover the older superko history or the move number, so two states with
// equal hashes can differ in which moves superko forbids or in how far the
// length cap is.
func (s *State) Hash() uint64 {
	h := s.hash
	if s.toMove == 1 {
		h ^= 0x6a09e667f3bcc908
	}
	if s.passes > 0 {
		h ^= 0xbb67ae8584caa73b * uint64(s.passes)
	}
	for i := range s.prevHash {
		// Slot ages differ by ring position: mix the age in.
		age := (s.ring - i + len(s.prevHash)) % len(s.prevHash)
		h ^= mix64(s.prevHash[i] + uint64(age+1)*0x3c6ef372fe94f82b)
	}
	return h
}

// BoardHash returns the Zobrist hash of the board alone, the key of the
// superko history.
func (s *State) BoardHash() uint64 { return s.hash }

// seen reports whether board hash h occurred earlier in the game.
func (s *State) seen(h uint64) bool {
	h |= 1
	mask := uint64(s.g.tblSize - 1)
	for i := h >> (64 - s.g.tblBits); ; i = (i + 1) & mask {
		v := s.table[i]
		if v == h {
			return true
		}
		if v == 0 {
			return false
		}
	}
}

// insert adds board hash h to the superko history.
func (s *State) insert(h uint64) {
	h |= 1
	mask := uint64(s.g.tblSize - 1)
	for i := h >> (64 - s.g.tblBits); ; i = (i + 1) & mask {
		v := s.table[i]
		if v == h {
			return
		}
		if v == 0 {
			s.table[i] = h
			return
		}
	}
}

// LegalActions appends the legal actions in increasing order to buf[:0]:
// every point where the player to move may play, then pass. It is empty at
// a terminal state.
func (s *State) LegalActions(buf []int) []int {
	if !s.legalOK {
		s.findLegal()
	}
	buf = buf[:0]
	for _, a := range s.legal[:s.nlegal] {
		buf = append(buf, int(a))
	}
	return buf
}

// findLegal lists the legal actions in s.legal, for LegalActions to hand
// out until the position changes.
func (s *State) findLegal() {
	l := s.legal[:0]
	if !s.IsTerminal() {
		c := s.toMove + 1
		for p := 0; p < s.g.n; p++ {
			if s.board[p] == Empty && s.legalPoint(p, c) {
				l = append(l, int16(p))
			}
		}
		l = append(l, int16(s.g.n))
	}
	s.nlegal, s.legalOK = int16(len(l)), true
}

// IsLegal reports whether action a may be played now.
func (s *State) IsLegal(a int) bool {
	if s.IsTerminal() || a < 0 || a > s.g.n {
		return false
	}
	if a == s.g.n {
		return true
	}
	return s.board[a] == Empty && s.legalPoint(a, s.toMove+1)
}

// legalPoint reports whether colour c may play on the empty point p: the
// stone has a liberty or captures, and the board it makes is new.
func (s *State) legalPoint(p int, c int8) bool {
	g := s.g
	h := s.hash ^ g.keys[int(c-1)*g.n+p]
	alive := false
	var capt [4]int16
	nc := 0
	for _, q := range g.adj[4*p : 4*p+int(g.deg[p])] {
		switch qc := s.board[q]; qc {
		case Empty:
			alive = true
		case c:
			if s.nlib[s.head[q]] > 1 {
				alive = true
			}
		default:
			hd := s.head[q]
			if s.nlib[hd] == 1 {
				dup := false
				for _, x := range capt[:nc] {
					dup = dup || x == hd
				}
				if !dup {
					capt[nc] = hd
					nc++
					h ^= s.ghash[hd]
				}
				alive = true
			}
		}
	}
	return alive && !s.seen(h)
}

// ApplyAction plays action a for the player to move; the caller guarantees
// it is legal (use games.Play otherwise).
func (s *State) ApplyAction(a int) {
	g := s.g
	n := g.n
	if s.legalOK {
		// Cleared, not only marked stale, so that two states of one
		// position stay equal field by field (reflect.DeepEqual).
		clear(s.legal[:s.nlegal])
		s.legalOK, s.nlegal = false, 0
	}
	// Remember the board for the observation's history planes.
	s.ring++
	if s.ring == len(s.prevHash) {
		s.ring = 0
	}
	copy(s.prev[s.ring*n:(s.ring+1)*n], s.board)
	s.prevHash[s.ring] = s.hash
	s.moves = append(s.moves, int16(a))
	if a == n {
		s.passes++
	} else {
		s.passes = 0
		s.place(a, s.toMove+1)
		s.insert(s.hash)
	}
	s.toMove ^= 1
}

// place puts a stone of colour c on the empty point p and resolves
// captures.
func (s *State) place(p int, c int8) {
	s.placeNoCapture(p, c)
	g := s.g
	for _, q := range g.adj[4*p : 4*p+int(g.deg[p])] {
		if s.board[q] == 3-c && s.nlib[s.head[q]] == 0 {
			s.capture(int(s.head[q]))
		}
	}
}

// merge joins groups a and b (distinct heads of one colour).
func (s *State) merge(a, b int) {
	if s.gsize[a] < s.gsize[b] {
		a, b = b, a
	}
	// Relabel the stones of b, the smaller group.
	q := b
	for {
		s.head[q] = int16(a)
		q = int(s.next[q])
		if q == b {
			break
		}
	}
	s.next[a], s.next[b] = s.next[b], s.next[a]
	s.gsize[a] += s.gsize[b]
	s.ghash[a] ^= s.ghash[b]
	w := s.g.words
	la, lb := s.libs[a*w:(a+1)*w], s.libs[b*w:(b+1)*w]
	nl := 0
	for i := range la {
		la[i] |= lb[i]
		nl += bits.OnesCount64(la[i])
	}
	s.nlib[a] = int16(nl)
}

// capture removes the group with head hd from the board, giving its points
// as liberties to the neighbouring groups.
func (s *State) capture(hd int) {
	g := s.g
	w := g.words
	s.hash ^= s.ghash[hd]
	p := hd
	for {
		s.board[p] = Empty
		s.addEmpty(p)
		bit, word := uint64(1)<<(uint(p)&63), p>>6
		for _, q := range g.adj[4*p : 4*p+int(g.deg[p])] {
			if s.board[q] == Empty {
				continue
			}
			h := int(s.head[q])
			if h == hd {
				continue
			}
			if x := &s.libs[h*w+word]; *x&bit == 0 {
				*x |= bit
				s.nlib[h]++
			}
		}
		p = int(s.next[p])
		if p == hd {
			break
		}
	}
}

func (s *State) removeEmpty(p int) {
	i := s.epos[p]
	last := s.empt[len(s.empt)-1]
	s.empt[i] = last
	s.epos[last] = i
	s.empt = s.empt[:len(s.empt)-1]
}

func (s *State) addEmpty(p int) {
	s.epos[p] = int16(len(s.empt))
	s.empt = append(s.empt, int16(p))
}

// pointSet is a bit per point of the largest board.
type pointSet [(MaxSize*MaxSize + 63) / 64]uint64

// floodEmpty marks in visited the empty region of the empty, unvisited point
// p, puts its points in region[:size] and returns the colours it touches:
// the area count that Score and FinalOwnership share.
func (s *State) floodEmpty(p int, visited *pointSet, region *[MaxSize * MaxSize]int16) (size int, touch int8) {
	g := s.g
	visited[p>>6] |= 1 << (uint(p) & 63)
	region[0] = int16(p)
	size = 1
	for head := 0; head < size; head++ {
		q := int(region[head])
		for _, r := range g.adj[4*q : 4*q+int(g.deg[q])] {
			switch c := s.board[r]; c {
			case Empty:
				if visited[r>>6]&(1<<(uint(r)&63)) == 0 {
					visited[r>>6] |= 1 << (uint(r) & 63)
					region[size] = r
					size++
				}
			default:
				touch |= c
			}
		}
	}
	return size, touch
}

// Score returns the Tromp-Taylor area score: black's points (stones plus
// empty regions that reach only black) minus white's, minus komi. Positive
// means black is ahead. It is the final result at a terminal state and an
// estimate (dead stones count as alive) before.
func (s *State) Score() float64 {
	g := s.g
	var visited pointSet
	var region [MaxSize * MaxSize]int16
	score := 0
	for p := 0; p < g.n; p++ {
		switch s.board[p] {
		case Black:
			score++
			continue
		case White:
			score--
			continue
		}
		if visited[p>>6]&(1<<(uint(p)&63)) != 0 {
			continue
		}
		size, touch := s.floodEmpty(p, &visited, &region)
		switch touch {
		case Black:
			score += size
		case White:
			score -= size
		}
	}
	return float64(score) - g.komi
}

// Returns gives +1/-1 (or 0 for a tie) by Score at a terminal state, zeros
// before.
func (s *State) Returns() [2]float64 {
	if !s.IsTerminal() {
		return [2]float64{}
	}
	switch sc := s.Score(); {
	case sc > 0:
		return [2]float64{1, -1}
	case sc < 0:
		return [2]float64{-1, 1}
	}
	return [2]float64{}
}

// Observation writes NumPlanes planes of size x size: plane 2i holds the
// mover's stones and plane 2i+1 the opponent's, i positions ago (i = 0..3;
// positions before the start of the game are empty), and the last plane is
// all ones when the mover is black, zeros when white.
func (s *State) Observation(dst []float32) {
	n := s.g.n
	me := s.toMove + 1
	// A point's two values by its colour, looked up rather than branched
	// on: to a branch predictor the points of self-play's leaves are
	// random (a branch for each took 925 ns a 9x9 position against 172,
	// BenchmarkObservation9x9).
	var mineOf, theirsOf [4]float32
	mineOf[me&3], theirsOf[(3-me)&3] = 1, 1
	fill := func(pl int, b []int8) {
		mine, theirs := dst[2*pl*n:(2*pl+1)*n], dst[(2*pl+1)*n:(2*pl+2)*n]
		for p, c := range b[:n] {
			mine[p], theirs[p] = mineOf[c&3], theirsOf[c&3]
		}
	}
	fill(0, s.board)
	k := len(s.prevHash)
	for i := 1; i < HistoryPlanes; i++ {
		slot := (s.ring - (i - 1) + k) % k
		if i > len(s.moves) {
			// Before the start: empty (prev holds zeros or the setup board).
			clear(dst[2*i*n : (2*i+2)*n])
			continue
		}
		fill(i, s.prev[slot*n:(slot+1)*n])
	}
	v := float32(0)
	if s.toMove == 0 {
		v = 1
	}
	last := dst[2*HistoryPlanes*n : (2*HistoryPlanes+1)*n]
	for p := range last {
		last[p] = v
	}
}

// IsEye reports whether empty point p is a single-point eye of colour c
// (Black or White): all its neighbours are c's stones and the enemy holds
// at most one diagonal point (none on the edge). Random playouts never fill
// their own eyes.
func (s *State) IsEye(p, c int) bool {
	g := s.g
	if p < 0 || p >= g.n || s.board[p] != Empty {
		return false
	}
	return s.isEye(p, int8(c))
}

func (s *State) isEye(p int, c int8) bool {
	g := s.g
	for _, q := range g.adj[4*p : 4*p+int(g.deg[p])] {
		if s.board[q] != c {
			return false
		}
	}
	bad := 0
	for _, q := range g.diag[4*p : 4*p+int(g.ddeg[p])] {
		if s.board[q] == 3-c {
			bad++
		}
	}
	if g.ddeg[p] < 4 {
		return bad == 0
	}
	return bad <= 1
}

// RandomMove returns a uniformly random legal point that does not fill one
// of the mover's own single-point eyes, or pass when there is none. The
// state must not be terminal. It allocates nothing.
func (s *State) RandomMove(rng *rand.Rand) int {
	c := s.toMove + 1
	k := len(s.empt)
	// Draw without replacement by swapping rejected points to the end of
	// the live part of the empty list.
	for k > 0 {
		i := rng.IntN(k)
		p := int(s.empt[i])
		if !s.isEye(p, c) && s.legalPoint(p, c) {
			return p
		}
		k--
		last := s.empt[k]
		s.empt[i], s.empt[k] = last, int16(p)
		s.epos[last], s.epos[p] = int16(i), int16(k)
	}
	return s.g.n
}

// Playout plays RandomMove until the game ends (two passes or the length
// cap) and returns the final Score.
func (s *State) Playout(rng *rand.Rand) float64 {
	for !s.IsTerminal() {
		s.ApplyAction(s.RandomMove(rng))
	}
	return s.Score()
}

// FinalOwnership writes the owner of every point by the area scoring of
// Score: +1 a black stone or an empty region that reaches only black, -1 the
// same for white, 0 an empty region that reaches both colours or none. The
// sum of dst minus komi is Score. It makes State a games.Outcomer.
func (s *State) FinalOwnership(dst []float32) {
	g := s.g
	dst = dst[:g.n]
	var visited pointSet
	var region [MaxSize * MaxSize]int16
	for p := 0; p < g.n; p++ {
		switch s.board[p] {
		case Black:
			dst[p] = 1
			continue
		case White:
			dst[p] = -1
			continue
		}
		if visited[p>>6]&(1<<(uint(p)&63)) != 0 {
			continue
		}
		size, touch := s.floodEmpty(p, &visited, &region)
		var own float32
		switch touch {
		case Black:
			own = 1
		case White:
			own = -1
		}
		for _, q := range region[:size] {
			dst[q] = own
		}
	}
}

// FinalScore returns Score: black's area minus white's, minus komi.
func (s *State) FinalScore() float64 { return s.Score() }
