package watch

import (
	"bytes"
	"encoding/json"
	"errors"
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

// Values of gapSearch.point besides a point.
const (
	unlearned = -2
	noPoint   = -1
)

// gapBudget is the number of positions each pass of the search between two
// stored positions may try (see gapSearch.find).
var gapBudget = [3]int{20000, 20000, 5000}

// Limits of the search between two stored positions.
const (
	maxGap      = 24 // moves, strict pass
	maxLooseGap = 8  // moves, loose passes

	maxTopMoves = 3
)

// Game is one game to replay: a self-play game from the run's game records
// or rebuilt from a replay chunk, or a gating game.
type Game struct {
	Kind     string    `json:"kind"`              // "self-play" or "gating"
	Chunk    string    `json:"chunk"`             // file name of the records, the chunk or the gating games
	Index    int       `json:"index"`             // game number within the file
	Players  [2]string `json:"players,omitempty"` // gating: "candidate" and "best"; records: the network ("gen-3"); first mover first
	Spec     string    `json:"game"`              // game spec
	Height   int       `json:"height"`            // board size
	Width    int       `json:"width"`
	Moves    []string  `json:"moves"`              // the moves, in the game's notation
	Frames   []Frame   `json:"frames"`             // the initial position, then the position after each move
	Result   string    `json:"result"`             // "first player wins", "second player wins" or "draw"
	Resigned bool      `json:"resigned,omitempty"` // records: the loser resigned after the last move
}

// Frame is one position of a replayed game.
type Frame struct {
	Board    string     `json:"board"`           // Height*Width cells, row by row: '.' empty, 'x' first player, 'o' second
	ToMove   int        `json:"to_move"`         // 0 or 1
	Move     string     `json:"move,omitempty"`  // the move that led here
	Searched bool       `json:"searched"`        // a stored training position (full search)
	Z        *float32   `json:"z,omitempty"`     // the game's result for the player to move, where stored
	Top      []MoveProb `json:"top,omitempty"`   // the search's most visited moves, where stored
	Value    *float32   `json:"value,omitempty"` // records: the search's value for the player to move, before the next move
	// Visits (records that have them): the root visits of the search that
	// chose the next move.
	Visits *int `json:"visits,omitempty"`
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
	_, h, w := g.ObservationShape()
	sr := newGapSearch(g)
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
		// The strict pass first from here and from the start (a new game),
		// then the loose passes from both.
		var path []int
		found, fresh := false, false
		start := g.NewInitialState()
		for _, passes := range [][]int{{0}, {1, 2}} {
			if state != nil {
				if path, found = sr.find(state, e.Obs, passes); found {
					break
				}
			}
			// A new game's first stored position is a few moves in: a
			// small budget, so that a game that was lost costs little.
			sr.scale = 10
			path, found = sr.find(start, e.Obs, passes)
			sr.scale = 1
			if found {
				fresh = true
				break
			}
		}
		if !found {
			finish()
			unlinked++
			continue
		}
		if fresh {
			finish()
			state = start
			cur = &Game{Kind: "self-play", Chunk: chunk, Index: len(out), Spec: g.Name(), Height: h, Width: w}
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
	owner      []int8         // strict pass: the player owning each point of the target, -1 for none
	strict     bool           // strict pass: stones keep their colour
	point      []int          // per action: the point it puts a stone on, unlearned or noPoint
	occ        [][]bool       // per search level: the occupied points
	scale      int            // budgets are divided by it
	failed     map[uint64]int // positions searched without success, and to what depth
	slack      int            // stones allowed outside allowed
}

func newGapSearch(g games.Game) *gapSearch {
	p, h, w := g.ObservationShape()
	sr := &gapSearch{hw: h * w, obs: make([]float32, p*h*w), cells: make([]float32, p*h*w),
		point: make([]int, g.NumActions())}
	for i := range sr.point {
		sr.point[i] = unlearned
	}
	return sr
}

// frame renders state s; the first two observation planes of the board
// games here are the stones of the player to move and of the opponent (a
// game of one plane shows its first only).
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
		case len(sr.cells) >= 2*sr.hw && sr.cells[i+sr.hw] == 1:
			b[i] = them
		default:
			b[i] = '.'
		}
	}
	return Frame{Board: string(b), ToMove: s.CurrentPlayer(), Move: move}
}

// find returns a shortest move sequence from s to a position whose
// observation is target, trying the given passes in order. s is not
// changed. The passes prune the search by what can happen between two
// stored positions of a game:
//
//  1. strict: every stone on the board is where the target has a stone of
//     its colour, or was there at the start (to be captured): Connect Four
//     and Go, where stones never change colour; up to maxGap moves;
//  2. loose: stones only on points occupied at the start or in the target,
//     colours free (Othello flips discs); up to maxLooseGap moves;
//  3. loose with one stone more, placed and captured within the gap (Go).
//
// Each pass tries at most gapBudget[pass] positions, and positions already
// searched to the same depth are skipped (transpositions: many orders of the
// same moves reach the same observation).
func (sr *gapSearch) find(s games.State, target []float32, passes []int) ([]int, bool) {
	hw := sr.hw
	sr.target = target
	s.Observation(sr.obs)
	if sr.allowed == nil {
		sr.allowed, sr.owner = make([]bool, hw), make([]int8, hw)
		sr.failed = map[uint64]int{}
	}
	for i := range hw {
		sr.allowed[i] = sr.obs[i] == 1 || sr.obs[hw+i] == 1 || target[i] == 1 || target[hw+i] == 1
	}
	start := s.CurrentPlayer()
	for _, pass := range passes {
		sr.strict, sr.slack, sr.budget = pass == 0, max(0, pass-1), gapBudget[pass]/max(1, sr.scale)
		clear(sr.failed)
		limit := maxLooseGap
		if sr.strict {
			limit = maxGap
		}
		for depth := 0; depth <= limit && sr.budget > 0; depth++ {
			if sr.strict {
				// After depth moves the player to move at the target is
				// known, so is the colour of each of its stones.
				mover := int8(start ^ depth&1)
				for i := range hw {
					switch {
					case target[i] == 1:
						sr.owner[i] = mover
					case target[hw+i] == 1:
						sr.owner[i] = 1 - mover
					default:
						sr.owner[i] = -1
					}
				}
				clear(sr.failed) // failures depend on the colours assumed
			}
			s.Observation(sr.obs)
			if path, ok := sr.dfs(s, depth, nil); ok {
				return path, true
			}
		}
	}
	return nil, false
}

// dfs searches from s, whose observation is in sr.obs, at most depth moves
// deep.
func (sr *gapSearch) dfs(s games.State, depth int, path []int) ([]int, bool) {
	if slices.Equal(sr.obs, sr.target) {
		return path, true
	}
	mover := s.CurrentPlayer()
	if depth == 0 || !sr.fits(mover) {
		return nil, false
	}
	h := obsHash(sr.obs)
	if d, ok := sr.failed[h]; ok && d >= depth {
		return nil, false
	}
	// The occupied points here, to learn where each action puts its stone.
	level := len(path)
	for len(sr.occ) <= level {
		sr.occ = append(sr.occ, make([]bool, sr.hw))
	}
	occ := sr.occ[level]
	for i := range occ {
		occ[i] = sr.obs[i] == 1 || sr.obs[sr.hw+i] == 1
	}
	for _, a := range s.LegalActions(nil) {
		if pt := sr.point[a]; pt >= 0 && !occ[pt] && !sr.mayPlace(pt, mover) {
			continue // known to put a stone where none may go
		}
		if sr.budget--; sr.budget < 0 {
			return nil, false
		}
		c := s.Clone()
		c.ApplyAction(a)
		c.Observation(sr.obs)
		sr.learn(a, occ)
		if p, ok := sr.dfs(c, depth-1, append(path, a)); ok {
			return p, true
		}
	}
	sr.failed[h] = depth
	return nil, false
}

// mayPlace reports whether mover may put a stone on the empty point pt in
// the current pass (see fits).
func (sr *gapSearch) mayPlace(pt, mover int) bool {
	if sr.strict && sr.owner[pt] >= 0 {
		return int(sr.owner[pt]) == mover
	}
	return sr.allowed[pt] || sr.slack > 0
}

// learn records where action a put a stone, from the occupied points before
// (occ) and the observation after it (sr.obs): one new point, always the
// same, makes the action's point known; anything else (a pass, Connect
// Four's columns) marks it unknown for good.
func (sr *gapSearch) learn(a int, occ []bool) {
	if sr.point[a] == noPoint {
		return
	}
	hw, o := sr.hw, sr.obs
	pt := noPoint
	for i := 0; i < hw; i++ {
		if !occ[i] && (o[i] == 1 || o[hw+i] == 1) {
			if pt != noPoint {
				pt = noPoint // two new stones
				break
			}
			pt = i
		}
	}
	switch {
	case sr.point[a] == unlearned:
		sr.point[a] = pt
	case sr.point[a] != pt:
		sr.point[a] = noPoint
	}
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

// fits reports whether the stones in sr.obs, whose player to move is mover,
// can lead to the target under the pass's rules (see find).
func (sr *gapSearch) fits(mover int) bool {
	hw, o := sr.hw, sr.obs
	extra := 0
	for i := 0; i < hw; i++ {
		var owner int8
		switch {
		case o[i] == 1:
			owner = int8(mover)
		case o[hw+i] == 1:
			owner = int8(1 - mover)
		default:
			continue
		}
		if sr.strict && sr.owner[i] >= 0 && sr.owner[i] != owner {
			return false
		}
		if !sr.allowed[i] {
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

// GatingGames reads the gating games of the newest iteration stored under
// dir (see pipeline: gating/iter-NNNNNN.jsonl), at most n of them.
func GatingGames(dir string, n int) ([]Game, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("gating games: %w", err)
	}
	var names []string
	for _, e := range entries {
		if nm := e.Name(); !e.IsDir() && strings.HasPrefix(nm, "iter-") && strings.HasSuffix(nm, ".jsonl") {
			names = append(names, nm)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	sort.Strings(names)
	name := names[len(names)-1]
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil, fmt.Errorf("gating games: %w", err)
	}
	var out []Game
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 || len(out) >= n {
			continue
		}
		var rec struct {
			Index   int        `json:"index"`
			Game    string     `json:"game"`
			Players [2]string  `json:"players"`
			Moves   string     `json:"moves"`
			Result  [2]float64 `json:"result"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, i+1, err)
		}
		g, err := games.New(rec.Game)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, i+1, err)
		}
		gm, err := replayGame(g, rec.Moves)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, i+1, err)
		}
		gm.Kind, gm.Chunk, gm.Index, gm.Players = "gating", name, rec.Index, rec.Players
		gm.Result = result(0, float32(rec.Result[0]))
		out = append(out, gm)
	}
	return out, nil
}

// replayGame plays a move list in g's notation from the initial position.
func replayGame(g games.Game, moves string) (Game, error) {
	nt, ok := g.(games.Notation)
	if !ok {
		return Game{}, fmt.Errorf("game %s has no notation", g.Name())
	}
	actions, err := nt.ParseActions(moves)
	if err != nil {
		return Game{}, err
	}
	_, h, w := g.ObservationShape()
	sr := newGapSearch(g)
	s := g.NewInitialState()
	gm := Game{Spec: g.Name(), Height: h, Width: w, Frames: []Frame{sr.frame(s, "")}}
	for i, a := range actions {
		if err := games.Play(s, a); err != nil {
			return Game{}, fmt.Errorf("move %d: %w", i+1, err)
		}
		mv := nt.FormatAction(a)
		gm.Moves = append(gm.Moves, mv)
		gm.Frames = append(gm.Frames, sr.frame(s, mv))
	}
	return gm, nil
}
