package cfr

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// The sequence form (Koller, Megiddo & von Stengel 1994, "Fast algorithms
// for finding randomized strategies in game trees", STOC; 1996, "Efficient
// computation of equilibria for extensive two-person games", Games and
// Economic Behavior 14) writes a player's behaviour strategy as realization
// weights x over its sequences (the empty sequence, and each information set
// with one of its actions), under the linear constraints E x = e, x >= 0:
// x(empty) = 1, and at each information set I the weights of its actions sum
// to the weight of the sequence that leads to I. With A the payoff matrix
// over pairs of sequences (each leaf's chance probability times its payoff
// to the maximiser, summed over the leaves the pair leads to), the
// maximiser's equilibrium strategy solves the linear program
//
//	maximise f'q  subject to  F'q - A'x <= 0,  E x = e,  x >= 0,  q free,
//
// the dual of the minimiser's best response inside max_x min_y x'Ay, with F
// and f the minimiser's constraints like E and e. Its optimum is the game
// value to the maximiser. The LP has one variable per sequence of the
// maximiser and one per information set of the minimiser, plus one each for
// the empty constraint, so it is small where the tree is (Leduc hold'em:
// a few hundred rows).

// sequences numbers each player's sequences: 0 is the empty sequence, and
// the sequence (information set, k-th action) is 1+the player's count of
// slots before it. It also records the sequence leading to each information
// set and fails if a set is reached by two different sequences of its own
// player (the game does not have perfect recall).
type sequences struct {
	seq    []int32    // slot -> its player's sequence number
	parent []int32    // infoset -> the sequence of its player leading to it
	count  [2]int     // sequences per player, the empty one included
	leaf   [][2]int32 // terminal node -> the two players' sequences
	reach  []float64  // terminal node -> chance probability
}

func (t *tree) sequences() (*sequences, error) {
	sq := &sequences{seq: make([]int32, t.slots), parent: make([]int32, len(t.infosets)),
		count: [2]int{1, 1}, leaf: make([][2]int32, len(t.nodes)), reach: make([]float64, len(t.nodes))}
	for _, is := range t.infosets {
		for k := range is.actions {
			sq.seq[is.offset+k] = int32(sq.count[is.player])
			sq.count[is.player]++
		}
	}
	for i := range sq.parent {
		sq.parent[i] = -1
	}
	var walk func(n int32, at [2]int32, pc float64) error
	walk = func(n int32, at [2]int32, pc float64) error {
		nd := &t.nodes[n]
		kids := t.child[nd.first : nd.first+nd.n]
		switch nd.kind {
		case terminal:
			sq.leaf[n], sq.reach[n] = at, pc
		case chance:
			for k, c := range kids {
				if err := walk(c, at, pc*t.prob[int(nd.first)+k]); err != nil {
					return err
				}
			}
		default:
			is := &t.infosets[nd.infoset]
			p := is.player
			if par := sq.parent[nd.infoset]; par < 0 {
				sq.parent[nd.infoset] = at[p]
			} else if par != at[p] {
				return fmt.Errorf("information state %q is reached by two sequences of player %d: the game lacks perfect recall", is.key, p)
			}
			for k, c := range kids {
				next := at
				next[p] = sq.seq[is.offset+k]
				if err := walk(c, next, pc); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return sq, walk(0, [2]int32{}, 1)
}

// SequenceFormLP returns the sequence-form linear program whose solution is
// player p's maximin strategy, in CPLEX LP format (which GLPK's glpsol
// reads with --lp). Its variables are x0..xN, p's realization weights by
// sequence number, then q0..qM, the dual variables of the opponent's
// constraints (q0 the empty sequence's); the objective, the value of the
// game to p in Returns units, names them all in that order, so a solver
// numbers the columns x0..xN, q0..qM.
func (s *Solver) SequenceFormLP(p int) (string, error) {
	if p != 0 && p != 1 {
		return "", fmt.Errorf("cfr: player %d, want 0 or 1", p)
	}
	sq, err := s.t.sequences()
	if err != nil {
		return "", fmt.Errorf("cfr: %w", err)
	}
	return s.t.writeLP(sq, p), nil
}

func (t *tree) writeLP(sq *sequences, p int) string {
	o := 1 - p
	sign := 1.0
	if p == 1 {
		sign = -1
	}
	// The opponent's constraint rows: 0 the empty sequence, 1+i its i-th
	// information set. Column tau of F: +1 in the row of the information
	// set tau ends in (row 0 for the empty sequence), -1 in the row of each
	// information set tau leads to.
	orow := make([]int, len(t.infosets))
	nrow := 1
	for i, is := range t.infosets {
		if is.player == o {
			orow[i] = nrow
			nrow++
		}
	}
	ft := make([]map[int]float64, sq.count[o]) // tau -> row -> coefficient
	for i := range ft {
		ft[i] = map[int]float64{}
	}
	ft[0][0] = 1
	for i, is := range t.infosets {
		if is.player != o {
			continue
		}
		ft[sq.parent[i]][orow[i]]--
		for k := range is.actions {
			ft[sq.seq[is.offset+k]][orow[i]]++
		}
	}
	// A' by the opponent's sequence: tau -> sigma -> payoff to p.
	at := make([]map[int32]float64, sq.count[o])
	for i := range at {
		at[i] = map[int32]float64{}
	}
	for n, nd := range t.nodes {
		if nd.kind == terminal && sq.reach[n] > 0 {
			l := sq.leaf[n]
			at[l[o]][l[p]] += sign * sq.reach[n] * nd.value
		}
	}
	var b strings.Builder
	term := func(c float64, v string) {
		if c < 0 {
			fmt.Fprintf(&b, "   - %s %s\n", strconv.FormatFloat(-c, 'g', 17, 64), v)
		} else {
			fmt.Fprintf(&b, "   + %s %s\n", strconv.FormatFloat(c, 'g', 17, 64), v)
		}
	}
	fmt.Fprintf(&b, "\\ sequence-form LP: player %d's maximin strategy\nMaximize\n value:\n", p)
	for i := 0; i < sq.count[p]; i++ {
		term(0, fmt.Sprintf("x%d", i))
	}
	term(1, "q0")
	for r := 1; r < nrow; r++ {
		term(0, fmt.Sprintf("q%d", r))
	}
	b.WriteString("Subject To\n e0:\n   + 1 x0\n   = 1\n")
	for i, is := range t.infosets {
		if is.player != p {
			continue
		}
		fmt.Fprintf(&b, " e%d:\n", i+1)
		term(-1, fmt.Sprintf("x%d", sq.parent[i]))
		for k := range is.actions {
			term(1, fmt.Sprintf("x%d", sq.seq[is.offset+k]))
		}
		b.WriteString("   = 0\n")
	}
	for tau := range ft {
		fmt.Fprintf(&b, " f%d:\n", tau)
		for r := 0; r < nrow; r++ {
			if c := ft[tau][r]; c != 0 {
				term(c, fmt.Sprintf("q%d", r))
			}
		}
		for sigma := int32(0); sigma < int32(sq.count[p]); sigma++ {
			if c := at[tau][sigma]; c != 0 {
				term(-c, fmt.Sprintf("x%d", sigma))
			}
		}
		b.WriteString("   <= 0\n")
	}
	b.WriteString("Bounds\n")
	for r := 0; r < nrow; r++ {
		fmt.Fprintf(&b, " q%d free\n", r)
	}
	b.WriteString("End\n")
	return b.String()
}

// LPSolution is an equilibrium found by linear programming.
type LPSolution struct {
	// Value is the game's value to player 0 (Returns units), the optimum of
	// player 0's LP.
	Value float64
	// Value1 is the optimum of player 1's LP: -Value up to the solver's
	// precision.
	Value1 float64
	// Policy holds both players' equilibrium strategies, the realization
	// weights turned into behaviour: at an information set reached by
	// sequence s, action a has probability x(s a)/x(s) (uniform where
	// x(s) = 0).
	Policy Policy
}

// SolveLP solves the game by the sequence-form LP of each player with
// GLPK's glpsol (the program at glpsol, e.g. from Debian's glpk-utils): it
// writes each LP to a temporary folder, runs glpsol --lp on it, and reads
// the basic solution glpsol writes with -w (GLPK's plain-text solution
// format: "s bas ROWS COLS PRIM DUAL OBJ", then "i ROW ..." and "j COL
// STATUS VALUE DUAL" lines).
func (s *Solver) SolveLP(ctx context.Context, glpsol string) (LPSolution, error) {
	sq, err := s.t.sequences()
	if err != nil {
		return LPSolution{}, fmt.Errorf("cfr: %w", err)
	}
	dir, err := os.MkdirTemp("", "tabula-cfr-lp")
	if err != nil {
		return LPSolution{}, fmt.Errorf("cfr: %w", err)
	}
	defer os.RemoveAll(dir)
	var sol LPSolution
	slots := make([]float64, s.t.slots)
	for p := 0; p < 2; p++ {
		lp := s.t.writeLP(sq, p)
		in := filepath.Join(dir, fmt.Sprintf("p%d.lp", p))
		out := filepath.Join(dir, fmt.Sprintf("p%d.sol", p))
		if err := os.WriteFile(in, []byte(lp), 0o644); err != nil {
			return LPSolution{}, fmt.Errorf("cfr: %w", err)
		}
		cmd := exec.CommandContext(ctx, glpsol, "--lp", in, "-w", out)
		var log bytes.Buffer
		cmd.Stdout, cmd.Stderr = &log, &log
		if err := cmd.Run(); err != nil {
			return LPSolution{}, fmt.Errorf("cfr: %s --lp (player %d): %w\n%s", glpsol, p, err, log.Bytes())
		}
		obj, cols, err := readGLPKSolution(out)
		if err != nil {
			return LPSolution{}, fmt.Errorf("cfr: %s, player %d: %w", glpsol, p, err)
		}
		if len(cols) < sq.count[p] {
			return LPSolution{}, fmt.Errorf("cfr: %s, player %d: %d columns, want at least %d", glpsol, p, len(cols), sq.count[p])
		}
		if p == 0 {
			sol.Value = obj
		} else {
			sol.Value1 = obj
		}
		for i, is := range s.t.infosets {
			if is.player != p {
				continue
			}
			par := max(cols[sq.parent[i]], 0)
			for k := range is.actions {
				if par > 1e-12 {
					slots[is.offset+k] = max(cols[sq.seq[is.offset+k]], 0) / par
				} else {
					slots[is.offset+k] = 1 / float64(len(is.actions))
				}
			}
		}
	}
	sol.Policy = make(Policy, len(s.t.infosets))
	for _, is := range s.t.infosets {
		probs := slots[is.offset : is.offset+len(is.actions)]
		sum := 0.0
		for _, x := range probs {
			sum += x
		}
		for k := range probs {
			probs[k] /= sum // the constraints make sum 1 up to rounding
		}
		sol.Policy[is.key] = ActionProbs{Actions: is.actions, Probs: probs}
	}
	return sol, nil
}

// readGLPKSolution reads a basic solution in GLPK's plain-text format
// (glpsol -w): the objective and the primal value of each column, in
// column order. It fails unless the status is optimal.
func readGLPKSolution(path string) (float64, []float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	var obj float64
	var cols []float64
	status := ""
	seenS := false
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		bad := func(what string) error {
			return fmt.Errorf("%s line %d: %s: %q", path, line, what, sc.Text())
		}
		switch fs[0] {
		case "c":
			if len(fs) >= 3 && fs[1] == "Status:" {
				status = strings.Join(fs[2:], " ")
			}
		case "s":
			// s bas ROWS COLS PRIM DUAL OBJ
			if len(fs) != 7 || fs[1] != "bas" {
				return 0, nil, bad("not a basic solution line")
			}
			n, err := strconv.Atoi(fs[3])
			if err != nil || n < 0 {
				return 0, nil, bad("bad column count")
			}
			if fs[4] != "f" || fs[5] != "f" {
				return 0, nil, bad("the solution is not primal and dual feasible")
			}
			if obj, err = strconv.ParseFloat(fs[6], 64); err != nil {
				return 0, nil, bad("bad objective")
			}
			cols = make([]float64, n)
			seenS = true
		case "j":
			// j COL STATUS VALUE DUAL
			if !seenS || len(fs) != 5 {
				return 0, nil, bad("bad column line")
			}
			j, err := strconv.Atoi(fs[1])
			if err != nil || j < 1 || j > len(cols) {
				return 0, nil, bad("bad column number")
			}
			if cols[j-1], err = strconv.ParseFloat(fs[3], 64); err != nil {
				return 0, nil, bad("bad column value")
			}
		}
	}
	if err := sc.Err(); err != nil {
		return 0, nil, err
	}
	if !seenS {
		return 0, nil, fmt.Errorf("%s: no solution line", path)
	}
	if status != "OPTIMAL" {
		return 0, nil, fmt.Errorf("%s: status %q, want OPTIMAL", path, status)
	}
	return obj, cols, nil
}
