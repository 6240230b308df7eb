package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"tabula/games"
	"tabula/replay"
)

// Replay chunks hold training examples (observation, search policy, legal
// moves, result), not move lists, and with a playout cap only the positions
// that got a full search are stored. Games are rebuilt from them: between two
// consecutive stored positions of a game, a short search over the rules finds
// the moves that lead from one to the other (pruned to moves that only fill
// points the later position occupies), and a position that cannot be reached
// that way starts a new game, found by the same search from the initial
// position. Positions reached by neither are counted as unlinked.

// Limits of the search between two stored positions.
const (
	maxGap      = 8     // moves
	gapBudget   = 20000 // positions tried
	maxTopMoves = 3
)

// Game is one self-play game rebuilt from a replay chunk.
type Game struct {
	Chunk  string   `json:"chunk"`  // file name of the chunk
	Index  int      `json:"index"`  // game number within the chunk
	Spec   string   `json:"game"`   // game spec
	Height int      `json:"height"` // board size
	Width  int      `json:"width"`
	Moves  []string `json:"moves"`  // the moves, in the game's notation
	Frames []Frame  `json:"frames"` // the initial position, then the position after each move
	Result string   `json:"result"` // "first player wins", "second player wins" or "draw"
}

// Frame is one position of a replayed game.
type Frame struct {
	Board    string     `json:"board"`          // Height*Width cells, row by row: '.' empty, 'x' first player, 'o' second
	ToMove   int        `json:"to_move"`        // 0 or 1
	Move     string     `json:"move,omitempty"` // the move that led here
	Searched bool       `json:"searched"`       // a stored training position (full search)
	Z        *float32   `json:"z,omitempty"`    // the game's result for the player to move, where stored
	Top      []MoveProb `json:"top,omitempty"`  // the search's most visited moves, where stored
}

// MoveProb is a move and its share of the search's visits.
type MoveProb struct {
	Move string  `json:"move"`
	P    float32 `json:"p"`
}

// ChunkGames rebuilds the games of the examples of one chunk of game g. It
// returns them in order and the number of stored positions it could not
// link to any game.
func ChunkGames(g games.Game, chunk string, examples []replay.Example) ([]Game, int) {
	p, h, w := g.ObservationShape()
	sr := &gapSearch{hw: h * w, obs: make([]float32, p*h*w), cells: make([]float32, p*h*w)}
	var (
		out      []Game
		cur      *Game
		state    games.State
		unlinked int
	)
	finish := func() {
		if cur != nil && len(cur.Frames) > 0 {
			out = append(out, *cur)
		}
		cur, state = nil, nil
	}
	for _, e := range examples {
		if len(e.Obs) != len(sr.obs) {
			unlinked++
			continue
		}
		var path []int
		found := false
		if state != nil {
			path, found = sr.find(state, e.Obs)
		}
		if !found {
			finish()
			start := g.NewInitialState()
			if path, found = sr.find(start, e.Obs); !found {
				unlinked++
				continue
			}
			state = start
			cur = &Game{Chunk: chunk, Index: len(out), Spec: g.Name(), Height: h, Width: w}
			cur.Frames = append(cur.Frames, sr.frame(state, ""))
		}
		for _, a := range path {
			mv := formatAction(g, a)
			state.ApplyAction(a)
			cur.Moves = append(cur.Moves, mv)
			cur.Frames = append(cur.Frames, sr.frame(state, mv))
		}
		f := &cur.Frames[len(cur.Frames)-1]
		f.Searched = true
		z := e.Value
		f.Z = &z
		f.Top = topMoves(g, e.Policy)
		cur.Result = result(state.CurrentPlayer(), z)
	}
	finish()
	return out, unlinked
}

// result names the outcome given the result z for player mover.
func result(mover int, z float32) string {
	first := z
	if mover == 1 {
		first = -z
	}
	switch {
	case first > 0:
		return "first player wins"
	case first < 0:
		return "second player wins"
	}
	return "draw"
}

func formatAction(g games.Game, a int) string {
	if n, ok := g.(games.Notation); ok {
		return n.FormatAction(a)
	}
	return strconv.Itoa(a)
}

func topMoves(g games.Game, policy []float32) []MoveProb {
	idx := make([]int, 0, len(policy))
	for a, p := range policy {
		if p > 0 {
			idx = append(idx, a)
		}
	}
	sort.SliceStable(idx, func(i, j int) bool { return policy[idx[i]] > policy[idx[j]] })
	var top []MoveProb
	for _, a := range idx[:min(len(idx), maxTopMoves)] {
		top = append(top, MoveProb{formatAction(g, a), policy[a]})
	}
	return top
}

// gapSearch finds the moves between two positions.
type gapSearch struct {
	hw         int
	obs, cells []float32
	budget     int
	target     []float32
	allowed    []bool         // points a stone may occupy during the gap
	failed     map[uint64]int // positions searched without success, and to what depth
	slack      int            // stones allowed outside allowed
}

// frame renders state s; the first two observation planes of every game
// here are the stones of the player to move and of the opponent.
func (sr *gapSearch) frame(s games.State, move string) Frame {
	s.Observation(sr.cells)
	me, them := byte('x'), byte('o')
	if s.CurrentPlayer() == 1 {
		me, them = them, me
	}
	b := make([]byte, sr.hw)
	for i := range b {
		switch {
		case sr.cells[i] == 1:
			b[i] = me
		case sr.cells[i+sr.hw] == 1:
			b[i] = them
		default:
			b[i] = '.'
		}
	}
	return Frame{Board: string(b), ToMove: s.CurrentPlayer(), Move: move}
}

// find returns a shortest move sequence of at most maxGap moves from s to a
// position whose observation is target, trying at most gapBudget positions.
// s is not changed. Between two stored positions, a move may only put a
// stone on a point that was occupied at the start or is occupied in the
// target (or, failing that, one more: a stone placed and captured within
// the gap, in Go), and
// positions already searched to the same depth are skipped (transpositions:
// many orders of the same moves reach the same observation).
func (sr *gapSearch) find(s games.State, target []float32) ([]int, bool) {
	sr.target, sr.budget = target, gapBudget
	hw := sr.hw
	s.Observation(sr.obs)
	if sr.allowed == nil {
		sr.allowed = make([]bool, hw)
	}
	for i := range hw {
		sr.allowed[i] = sr.obs[i] == 1 || sr.obs[hw+i] == 1 || target[i] == 1 || target[hw+i] == 1
	}
	if sr.failed == nil {
		sr.failed = map[uint64]int{}
	}
	// First without, then with one stone that is placed and captured within
	// the gap (Go).
	for sr.slack = 0; sr.slack <= 1; sr.slack++ {
		clear(sr.failed)
		for depth := 0; depth <= maxGap && sr.budget > 0; depth++ {
			if path, ok := sr.dfs(s, depth, nil); ok {
				return path, true
			}
		}
	}
	return nil, false
}

func (sr *gapSearch) dfs(s games.State, depth int, path []int) ([]int, bool) {
	s.Observation(sr.obs)
	if slices.Equal(sr.obs, sr.target) {
		return path, true
	}
	if depth == 0 || !sr.fits() {
		return nil, false
	}
	h := obsHash(sr.obs)
	if d, ok := sr.failed[h]; ok && d >= depth {
		return nil, false
	}
	for _, a := range s.LegalActions(nil) {
		if sr.budget--; sr.budget < 0 {
			return nil, false
		}
		c := s.Clone()
		c.ApplyAction(a)
		if p, ok := sr.dfs(c, depth-1, append(path, a)); ok {
			return p, true
		}
	}
	sr.failed[h] = depth
	return nil, false
}

// obsHash hashes an observation of 0/1 values (FNV-1a over its bits). It
// keys the transposition table: State.Hash does not cover Go's history planes,
// which differ between move orders.
func obsHash(obs []float32) uint64 {
	h := uint64(14695981039346656037)
	var word uint64
	for i, v := range obs {
		if v != 0 {
			word |= 1 << (i & 63)
		}
		if i&63 == 63 || i == len(obs)-1 {
			h = (h ^ word) * 1099511628211
			word = 0
		}
	}
	return h
}

// fits reports whether the points occupied in sr.obs may be: occupied at
// the start of the gap or in the target, bar sr.slack of them.
func (sr *gapSearch) fits() bool {
	hw, o := sr.hw, sr.obs
	extra := 0
	for i := 0; i < hw; i++ {
		if (o[i] == 1 || o[hw+i] == 1) && !sr.allowed[i] {
			extra++
		}
	}
	return extra <= sr.slack
}

// RecentGames rebuilds the games of the newest replay chunks under dir,
// newest chunk first, until it has at least n games. cache, if not nil,
// keeps the games of each chunk file (chunks never change once written).
func RecentGames(dir string, n int, cache *ChunkCache) ([]Game, int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, 0, fmt.Errorf("replay folder: %w", err)
	}
	var names []string
	for _, e := range entries {
		if nm := e.Name(); !e.IsDir() && strings.HasPrefix(nm, "chunk-") && strings.HasSuffix(nm, replay.ChunkSuffix) {
			names = append(names, nm)
		}
	}
	sort.Strings(names) // names start with the time they were written
	var out []Game
	unlinked := 0
	for i := len(names) - 1; i >= 0 && len(out) < n; i-- {
		gs, u, err := cache.games(filepath.Join(dir, names[i]))
		if err != nil {
			return nil, 0, err
		}
		out = append(out, gs...)
		unlinked += u
	}
	return out, unlinked, nil
}

// ChunkCache remembers the games rebuilt from chunk files. It is not safe
// for concurrent use; the server guards it.
type ChunkCache struct {
	m map[string]cachedChunk
}

type cachedChunk struct {
	games    []Game
	unlinked int
}

const maxCachedChunks = 64

func (c *ChunkCache) games(path string) ([]Game, int, error) {
	if c != nil {
		if cc, ok := c.m[path]; ok {
			return cc.games, cc.unlinked, nil
		}
	}
	spec, ex, err := replay.ReadChunkFile(path)
	if err != nil {
		return nil, 0, err
	}
	g, err := games.New(spec)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	gs, u := ChunkGames(g, filepath.Base(path), ex)
	if c != nil {
		if c.m == nil || len(c.m) >= maxCachedChunks {
			c.m = map[string]cachedChunk{}
		}
		c.m[path] = cachedChunk{gs, u}
	}
	return gs, u, nil
}
