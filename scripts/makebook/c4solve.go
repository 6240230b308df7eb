package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"tabula/games/connect4"
	"tabula/internal/atomicfile"
	"tabula/internal/cputime"
	"tabula/search/book"
	"tabula/search/c4solver"
)

// An exact Connect Four book (-game connect4 -solve PLIES) holds every
// position reachable in at most PLIES plies from its roots (the empty
// board by default), positions equal up to the mirror merged, and for each
// every legal move with its exact value by search/c4solver, flagged
// book.FlagExact. Only the positions one ply beyond the book (the leaves)
// are solved; a book position's move leads to another book position, a
// leaf or the end of the game, and its value is the negamax of those.
//
// Values are Pons' scores (c4solver's convention: a win is 22 minus the
// winner's stones when it connects, so a faster win scores more) mapped
// into the book's [-1, 1]: a win of score s is 1/2 + s/42 (in (0.5, 1]),
// a loss its negative, a draw 0. A player choosing the book's best value
// therefore plays a solver-best move and the fastest win (the slowest
// loss); with book_margin below 0.5 it never trades a better outcome for a
// worse one. With -weak only the outcome is solved (c4solver.Outcome, much
// faster): values 1, 0, -1.
//
// The solved leaves are kept in a checkpoint file (default the book's
// path plus ".solved"), rewritten atomically every -save-every and when
// the build stops (an interrupt, -max-solve): the same command continues
// where it stopped, and gives the same book.

// solveOptions are makebook's settings for an exact Connect Four book.
type solveOptions struct {
	plies int
	// roots are the positions the book starts from, each the columns
	// played from the empty board (1-7, Pons' format); none: the empty
	// board.
	roots []string
	// weak solves only the outcome (win, draw or loss).
	weak bool
	// parallel is the number of solvers running at once, each with its
	// own table of 2^tableLog2 entries.
	parallel  int
	tableLog2 int
	// checkpoint is the file of solved leaves.
	checkpoint string
	saveEvery  time.Duration
	// maxSolve stops the run after solving this many leaves (0: no
	// limit), the checkpoint saved.
	maxSolve int
	// sample, when > 0, solves only that many leaves drawn at random
	// (seeded by seed) and reports their CPU time and the whole build's
	// estimate instead of writing a book.
	sample int
	seed   uint64
	// progress receives a line every progressEvery while solving.
	progress      io.Writer
	progressEvery time.Duration
}

// c4MaxScore bounds the scores of Connect Four positions: (cells+1)/2 =
// 21 (Pons; the largest a game reaches is 18, a win with the fourth
// stone).
const c4MaxScore = (connect4.Cells + 1) / 2

// exactValue maps a score for the player to move (a Pons score, or an
// outcome -1, 0, 1 when weak) into a book value.
func exactValue(score int, weak bool) float32 {
	switch {
	case weak || score == 0:
		return float32(max(-1, min(1, score)))
	case score > 0:
		return float32(0.5 + 0.5*float64(score)/c4MaxScore)
	}
	return -float32(0.5 + 0.5*float64(-score)/c4MaxScore)
}

// edge kinds of a book position's move.
const (
	edgeEnd  = iota // the move ends the game: score holds its value
	edgeNode        // into another book position
	edgeLeaf        // into a leaf, solved
)

type solveEdge struct {
	action int
	kind   int
	score  int    // edgeEnd: the move's score for the mover
	child  uint64 // edgeNode, edgeLeaf: the child's posKey
}

type solveNode struct {
	state *connect4.State
	depth int
	edges []solveEdge
	score int
	done  bool
}

// posKey identifies a position up to the mirror: the smaller of cur+mask
// (unique to a position, c4solver's key) over the position and its mirror.
func posKey(s *connect4.State) uint64 {
	cur, mask := s.Bitboards()
	m := connect4.Game{}.TransformState(1, s).(*connect4.State)
	mcur, mmask := m.Bitboards()
	return min(cur+mask, mcur+mmask)
}

// solveTree is the enumerated book: its positions by posKey, level by
// level, and the leaves in the order they were found (siblings together,
// so a solver's table is reused across them).
type solveTree struct {
	nodes     map[uint64]*solveNode
	levels    [][]uint64
	leaves    map[uint64]*connect4.State
	leafOrder []uint64
}

// parseRoots replays the roots' moves; none gives the empty board.
func parseRoots(roots []string) ([]*connect4.State, error) {
	if len(roots) == 0 {
		return []*connect4.State{connect4.NewState()}, nil
	}
	var out []*connect4.State
	for _, r := range roots {
		st, _, _, err := c4solver.ParsePosition(r)
		if err != nil {
			return nil, fmt.Errorf("root %q: %w", r, err)
		}
		if st.IsTerminal() {
			return nil, fmt.Errorf("root %q: the game is over", r)
		}
		out = append(out, st)
	}
	return out, nil
}

// readRoots reads a file of roots, one a line in Pons' format (the moves,
// an optional score ignored); blank lines and lines starting with # are
// skipped.
func readRoots(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("-roots: %w", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		moves := strings.Fields(line)[0]
		if _, _, _, err := c4solver.ParsePosition(moves); err != nil {
			return nil, fmt.Errorf("-roots %s:%d: %w", path, n, err)
		}
		out = append(out, moves)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("-roots %s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-roots %s: no position in it", path)
	}
	return out, nil
}

// enumerate builds the tree of every position within plies of the roots.
func enumerate(roots []*connect4.State, plies int, weak bool) *solveTree {
	t := &solveTree{nodes: map[uint64]*solveNode{}, leaves: map[uint64]*connect4.State{}, levels: make([][]uint64, plies+1)}
	for _, r := range roots {
		k := posKey(r)
		if t.nodes[k] == nil {
			st := *r
			t.nodes[k] = &solveNode{state: &st}
			t.levels[0] = append(t.levels[0], k)
		}
	}
	var legal []int
	for d := 0; d <= plies; d++ {
		for _, k := range t.levels[d] {
			n := t.nodes[k]
			legal = n.state.LegalActions(legal)
			for _, a := range legal {
				child := *n.state
				child.ApplyAction(a)
				e := solveEdge{action: a}
				switch {
				case child.Won():
					e.kind, e.score = edgeEnd, (connect4.Cells+1-n.state.MoveNumber())/2
					if weak {
						e.score = 1
					}
				case child.MoveNumber() == connect4.Cells:
					e.kind = edgeEnd
				default:
					ck := posKey(&child)
					e.child = ck
					if t.nodes[ck] != nil {
						e.kind = edgeNode
					} else if d < plies {
						e.kind = edgeNode
						c := child
						t.nodes[ck] = &solveNode{state: &c, depth: d + 1}
						t.levels[d+1] = append(t.levels[d+1], ck)
					} else {
						e.kind = edgeLeaf
						if t.leaves[ck] == nil {
							c := child
							t.leaves[ck] = &c
							t.leafOrder = append(t.leafOrder, ck)
						}
					}
				}
				n.edges = append(n.edges, e)
			}
		}
	}
	return t
}

// checkpoint file (little-endian): magic "TABC4SV1", mode byte (0 exact
// scores, 1 outcomes only), count uint32, count x (posKey uint64, score
// int8) sorted by key, CRC-32C of every byte before it.
const checkpointMagic = "TABC4SV1"

func marshalCheckpoint(solved map[uint64]int8, weak bool) []byte {
	keys := make([]uint64, 0, len(solved))
	for k := range solved {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	le := binary.LittleEndian
	buf := make([]byte, 0, len(checkpointMagic)+5+9*len(keys)+4)
	buf = append(buf, checkpointMagic...)
	mode := byte(0)
	if weak {
		mode = 1
	}
	buf = append(buf, mode)
	buf = le.AppendUint32(buf, uint32(len(keys)))
	for _, k := range keys {
		buf = le.AppendUint64(buf, k)
		buf = append(buf, byte(solved[k]))
	}
	return le.AppendUint32(buf, crc32.Checksum(buf, castagnoli))
}

// loadCheckpoint reads the checkpoint at path; a missing file is an empty
// one.
func loadCheckpoint(path string, weak bool) (map[uint64]int8, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[uint64]int8{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	le := binary.LittleEndian
	head := len(checkpointMagic) + 5
	if !bytes.HasPrefix(data, []byte(checkpointMagic)) {
		return nil, fmt.Errorf("checkpoint %s: not a checkpoint of solved Connect Four positions (no %s header)", path, checkpointMagic)
	}
	if len(data) < head+4 {
		return nil, fmt.Errorf("checkpoint %s: %d bytes, cut short", path, len(data))
	}
	body, sum := data[:len(data)-4], le.Uint32(data[len(data)-4:])
	if got := crc32.Checksum(body, castagnoli); got != sum {
		return nil, fmt.Errorf("checkpoint %s: checksum %08x, the bytes give %08x (corrupt or cut short)", path, sum, got)
	}
	if mode := body[len(checkpointMagic)]; mode != 0 && mode != 1 {
		return nil, fmt.Errorf("checkpoint %s: mode %d, want 0 or 1", path, mode)
	} else if (mode == 1) != weak {
		kinds := [2]string{"exact scores", "outcomes only (-weak)"}
		return nil, fmt.Errorf("checkpoint %s holds %s, this build wants %s: use another -checkpoint", path, kinds[mode], kinds[1-mode])
	}
	n := int(le.Uint32(body[len(checkpointMagic)+1:]))
	p := body[head:]
	if len(p) != 9*n {
		return nil, fmt.Errorf("checkpoint %s: %d entries need %d bytes, it has %d", path, n, 9*n, len(p))
	}
	out := make(map[uint64]int8, n)
	for i := range n {
		sc := int8(p[9*i+8])
		if sc < -c4MaxScore || sc > c4MaxScore || weak && (sc < -1 || sc > 1) {
			return nil, fmt.Errorf("checkpoint %s: entry %d has score %d, out of range", path, i, sc)
		}
		out[le.Uint64(p[9*i:])] = sc
	}
	return out, nil
}

// solveStats describes a build.
type solveStats struct {
	perPly     []int // book positions at each ply from the roots
	entries    int
	leaves     int
	fromCkpt   int // leaves found in the checkpoint
	solvedNow  int // leaves solved by this run
	cpu        time.Duration
	nodes      uint64
	sampleCPU  time.Duration // with sample: the CPU time of the sampled leaves
	sampleSize int
	// leafCPU holds each leaf's CPU time, its solving thread's (Linux;
	// none elsewhere), with sample.
	leafCPU []time.Duration
}

// errStopped reports a build stopped before its end with its checkpoint
// saved.
var errStopped = errors.New("stopped")

// solveBook builds the exact book of opts. It returns errStopped (wrapped)
// when -max-solve or ctx stopped it first, after saving the checkpoint.
func solveBook(ctx context.Context, opts solveOptions) (*book.GameBook, solveStats, error) {
	var st solveStats
	if opts.plies < 0 {
		return nil, st, fmt.Errorf("-solve %d, want >= 0", opts.plies)
	}
	if opts.parallel < 1 {
		return nil, st, fmt.Errorf("-parallel %d, want >= 1", opts.parallel)
	}
	if opts.tableLog2 < c4solver.MinTableLog2 || opts.tableLog2 > c4solver.MaxTableLog2 {
		return nil, st, fmt.Errorf("-tt %d, want %d..%d", opts.tableLog2, c4solver.MinTableLog2, c4solver.MaxTableLog2)
	}
	roots, err := parseRoots(opts.roots)
	if err != nil {
		return nil, st, err
	}
	solved := map[uint64]int8{}
	if opts.checkpoint != "" {
		if solved, err = loadCheckpoint(opts.checkpoint, opts.weak); err != nil {
			return nil, st, err
		}
	}
	t := enumerate(roots, opts.plies, opts.weak)
	for _, l := range t.levels {
		st.perPly = append(st.perPly, len(l))
	}
	st.leaves = len(t.leafOrder)
	var pending []uint64
	for _, k := range t.leafOrder {
		if _, ok := solved[k]; ok {
			st.fromCkpt++
		} else {
			pending = append(pending, k)
		}
	}
	if opts.sample > 0 {
		rng := rand.New(rand.NewPCG(opts.seed, 17))
		rng.Shuffle(len(pending), func(i, j int) { pending[i], pending[j] = pending[j], pending[i] })
		pending = pending[:min(opts.sample, len(pending))]
		st.sampleSize = len(pending)
	}
	limit := len(pending)
	if opts.maxSolve > 0 {
		limit = min(limit, opts.maxSolve)
	}
	if err := solveLeaves(ctx, opts, t, pending[:limit], solved, &st); err != nil {
		return nil, st, err
	}
	if opts.sample > 0 {
		return nil, st, nil
	}
	if limit < len(pending) {
		return nil, st, fmt.Errorf("%w after solving %d leaf positions (-max-solve); %d of %d are solved, kept in %s: run the same command again to continue",
			errStopped, limit, st.fromCkpt+limit, st.leaves, opts.checkpoint)
	}
	entries := backUp(t, solved, opts.weak)
	st.entries = len(entries)
	return book.NewGameBook(connect4.Game{}, entries), st, nil
}

// solveLeaves solves the leaves keys with opts.parallel solvers, adding
// their scores to solved and saving the checkpoint every opts.saveEvery
// and at the end (also when ctx is done first).
func solveLeaves(ctx context.Context, opts solveOptions, t *solveTree, keys []uint64, solved map[uint64]int8, st *solveStats) error {
	save := func() error {
		if opts.checkpoint == "" {
			return nil
		}
		if err := atomicfile.Write(opts.checkpoint, marshalCheckpoint(solved, opts.weak)); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
		return nil
	}
	// Saved first too, so that a checkpoint that cannot be written is
	// found before any solving.
	if err := save(); err != nil || len(keys) == 0 {
		return err
	}
	type result struct {
		key   uint64
		score int
		nodes uint64
		cpu   time.Duration
		err   error
	}
	results := make(chan result, len(keys))
	var next atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	defer close(stop)
	workers := min(opts.parallel, len(keys))
	startCPU := cputime.Process()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread() // for cputime.Thread
			defer runtime.UnlockOSThread()
			sv, err := c4solver.New(opts.tableLog2)
			if err != nil {
				results <- result{err: err}
				return
			}
			for {
				i := int(next.Add(1) - 1)
				if i >= len(keys) {
					return
				}
				select {
				case <-stop:
					return
				default:
				}
				k := keys[i]
				before, cpu0 := sv.Nodes(), cputime.Thread()
				var sc int
				if opts.weak {
					sc = sv.Outcome(t.leaves[k])
				} else {
					sc = sv.Solve(t.leaves[k])
				}
				results <- result{key: k, score: sc, nodes: sv.Nodes() - before, cpu: cputime.Thread() - cpu0}
			}
		}()
	}
	every := opts.progressEvery
	if every <= 0 {
		every = 10 * time.Second
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	start, lastSave := time.Now(), time.Now()
	done := 0
	report := func() {
		if opts.progress == nil {
			return
		}
		el := time.Since(start)
		rate := float64(done) / el.Seconds()
		eta := "?"
		if rate > 0 {
			eta = (time.Duration(float64(len(keys)-done)/rate) * time.Second).Round(time.Second).String()
		}
		fmt.Fprintf(opts.progress, "makebook: %d/%d leaf positions solved this run (%d from the checkpoint, %d leaves in all), %.2f/s, %.0f CPU-s, %d nodes, about %s to go\n",
			done, len(keys), st.fromCkpt, st.leaves, rate, (cputime.Process() - startCPU).Seconds(), st.nodes, eta)
	}
	for done < len(keys) {
		select {
		case r := <-results:
			if r.err != nil {
				return r.err
			}
			solved[r.key] = int8(r.score)
			st.nodes += r.nodes
			if opts.sample > 0 && cputime.ThreadMeasured() {
				st.leafCPU = append(st.leafCPU, r.cpu)
			}
			st.solvedNow++
			done++
		case <-tick.C:
			report()
			if opts.saveEvery > 0 && time.Since(lastSave) >= opts.saveEvery {
				if err := save(); err != nil {
					return err
				}
				lastSave = time.Now()
			}
		case <-ctx.Done():
			st.cpu = cputime.Process() - startCPU
			if err := save(); err != nil {
				return err
			}
			return fmt.Errorf("%w (%v) after solving %d leaf positions; %d of %d are solved, kept in %s: run the same command again to continue",
				errStopped, context.Cause(ctx), done, st.fromCkpt+done, st.leaves, opts.checkpoint)
		}
	}
	wg.Wait()
	st.cpu = cputime.Process() - startCPU
	if opts.sample > 0 {
		st.sampleCPU = st.cpu
	}
	report()
	return save()
}

// backUp values every book position by negamax over its moves (leaves
// from solved) and returns the book's entries: every legal move of every
// position, in the coordinates of the position's canonical image.
func backUp(t *solveTree, solved map[uint64]int8, weak bool) []book.GameEntry {
	g := connect4.Game{}
	var value func(n *solveNode) int
	edgeScore := func(e solveEdge) int {
		switch e.kind {
		case edgeNode:
			return -value(t.nodes[e.child])
		case edgeLeaf:
			return -int(solved[e.child])
		}
		return e.score
	}
	value = func(n *solveNode) int {
		if !n.done {
			best := -1000
			for _, e := range n.edges {
				best = max(best, edgeScore(e))
			}
			n.score, n.done = best, true
		}
		return n.score
	}
	var entries []book.GameEntry
	for _, level := range t.levels {
		for _, k := range level {
			n := t.nodes[k]
			key, sym := book.CanonicalKey(g, n.state)
			for _, e := range n.edges {
				a := e.action
				if sym != 0 {
					a = g.TransformAction(sym, a)
				}
				entries = append(entries, book.GameEntry{Key: key, Action: uint32(a),
					Value: exactValue(edgeScore(e), weak), Flags: book.FlagExact})
			}
		}
	}
	return entries
}

// runSolve builds the exact Connect Four book of opts into out.
func runSolve(ctx context.Context, out string, opts solveOptions) error {
	if out == "" && opts.sample == 0 {
		return errors.New("-out FILE is required")
	}
	if opts.checkpoint == "" && out != "" {
		opts.checkpoint = out + ".solved"
	}
	if out != "" {
		if fi, err := os.Stat(filepath.Dir(out)); err != nil || !fi.IsDir() {
			return fmt.Errorf("-out %s: its folder %s does not exist", out, filepath.Dir(out))
		}
	}
	b, st, err := solveBook(ctx, opts)
	if err != nil {
		return err
	}
	mode := "exact scores"
	if opts.weak {
		mode = "outcomes (-weak)"
	}
	if opts.sample > 0 {
		per := 0.0
		if st.sampleSize > 0 {
			per = st.sampleCPU.Seconds() / float64(st.sampleSize)
		}
		rest := float64(st.leaves - st.fromCkpt)
		fmt.Printf("book positions by ply %v, %d leaf positions (%d already in the checkpoint); sample of %d leaves (%s, %d solvers): %.1f CPU-s, %.3f CPU-s a leaf, %d nodes a leaf; all %d unsolved leaves: about %.0f CPU-s\n",
			st.perPly, st.leaves, st.fromCkpt, st.sampleSize, mode, opts.parallel, st.sampleCPU.Seconds(), per,
			st.nodes/uint64(max(1, st.sampleSize)), st.leaves-st.fromCkpt, per*rest)
		if n := len(st.leafCPU); n > 1 {
			secs := make([]float64, n)
			mean := 0.0
			for i, d := range st.leafCPU {
				secs[i] = d.Seconds()
				mean += secs[i] / float64(n)
			}
			slices.Sort(secs)
			ss := 0.0
			for _, x := range secs {
				ss += (x - mean) * (x - mean)
			}
			half := 1.96 * math.Sqrt(ss/float64(n-1)/float64(n))
			fmt.Printf("a leaf's CPU-s (its thread's): median %.3f, max %.3f, mean %.3f [%.3f, %.3f] (95%%, normal approximation; a skewed distribution); all unsolved leaves: %.0f [%.0f, %.0f] CPU-s\n",
				secs[n/2], secs[n-1], mean, max(0, mean-half), mean+half, mean*rest, max(0, mean-half)*rest, (mean+half)*rest)
		}
		return nil
	}
	if err := b.WriteFile(out); err != nil {
		return err
	}
	fmt.Printf("book positions by ply %v, %d entries (%s), %d leaf positions solved (%d from the checkpoint %s, %d now: %.1f CPU-s, %d nodes) written to %s\n",
		st.perPly, st.entries, mode, st.leaves, st.fromCkpt, opts.checkpoint, st.solvedNow, st.cpu.Seconds(), st.nodes, out)
	return nil
}
