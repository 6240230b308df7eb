package search

import (
	"math"
)

// nullWindow is the width of PVS's null window. Scores are floats: a value
// strictly inside (alpha, alpha+nullWindow) is still exact (fail-soft), so
// the width only has to be positive.
const nullWindow = 1e-9

// Pruning margins, in centipawns (Tactical games only).
const (
	reverseFutilityCP = 120 // per ply of depth, up to Searcher.rfpDepth
	futility1CP       = 150 // move futility at depth 1
	futility2CP       = 350 // move futility at depth 2
)

// Singular extensions (Tactical games only). A node's table move is
// singular when every other move is clearly worse: Anantharaman, Campbell
// and Nowatzyk, "Singular Extensions: Adding Selectivity to Brute-Force
// Searching" (ICCA Journal 11(4), 1988; Artificial Intelligence 43(1),
// 1990), extended such moves in Deep Thought. The form here is the one
// built on the transposition table, as in Stockfish: where the table holds
// a lower bound or exact value v for the node's move m from a search nearly
// as deep, a null-window search of all moves but m at half the depth
// against v minus a margin tells whether all of them fail low; if they do,
// m is searched one ply deeper.
const (
	// singularMinDepth is the least remaining depth at which a node checks
	// its table move: the check costs a search of half the depth, which
	// only a deep subtree repays (Stockfish's bound in this form is 8 plies
	// too).
	singularMinDepth = 8
	// singularSlack is how many plies shallower than the node the table
	// entry may have been searched.
	singularSlack = 3
	// singularMarginCP is the margin per ply of depth, in centipawns, by
	// which every other move must fall short of the table move's value.
	singularMarginCP = 2
)

// defaultReverseFutilityDepth is the deepest remaining depth at which
// reverse futility prunes unless Config.ReverseFutilityDepth says otherwise.
const defaultReverseFutilityDepth = 3

// History gravity (Config.HistoryMalus): a cutoff's bonus is depth^2 capped
// at historyBonusMax, and every update pulls the score toward +-historyMax
// in proportion to how far it already is, so scores stay within
// historyMax and recent cutoffs outweigh old ones.
const (
	historyMax      = 1 << 16
	historyBonusMax = 1 << 12
)

// lmpMaxDepth is the deepest remaining depth at which late-move pruning
// skips moves; at depth d it keeps the first lmpCount(d) moves.
const lmpMaxDepth = 4

// lmpCount is how many moves late-move pruning searches at depth d before
// it skips the quiet ones: 3 + d^2 (4, 7, 12, 19 at depths 1 to 4).
func lmpCount(d int) int { return 3 + d*d }

// SEE pruning: at non-PV nodes of depth 1 to seePruneMaxDepth, a move
// (not the first, giving no check) whose static exchange loses more than
// seeQuietCP (quiet moves) or seeNoisyCP (captures, promotions)
// centipawns per ply of depth is skipped.
const (
	seePruneMaxDepth = 6
	seeQuietCP       = 60
	seeNoisyCP       = 100
)

// iirMinDepth is the least depth at which internal iterative reduction
// searches a node the table does not know one ply shallower.
const iirMinDepth = 4

// lmrTable[d][i] is the late-move reduction at depth d of the i-th move
// (counted from 0): 0.75 + ln(d) ln(i) / 2.25, rounded down.
var lmrTable [64][64]int8

func init() {
	for d := 1; d < 64; d++ {
		for i := 1; i < 64; i++ {
			lmrTable[d][i] = int8(0.75 + math.Log(float64(d))*math.Log(float64(i))/2.25)
		}
	}
}

// negamax searches the non-terminal state at ply to depth plies and
// returns its fail-soft value for the player to move. The steps run in a
// fixed order, each guarded by its switch: the oracle's exact value,
// horizon (quiescence), table probe, internal iterative reduction, ProbCut,
// reverse futility, null move, the singular-extension check, then beam
// selection and the move loop with futility, late-move and SEE pruning,
// singular and check extensions, late-move reduction and PVS.
// allowNull is false right after a null move. When s.excluded[ply] is a
// move, the node is a singular-extension check: that move is left out,
// ProbCut, null move and the check itself are skipped, and the table holds
// the result under a key of its own (excludedKey).
func (s *Searcher) negamax(ply, depth int, alpha, beta float64, allowNull bool) float64 {
	s.nodes++
	s.pvLen[ply] = 0
	s.checkBudget()
	if s.abort {
		return 0
	}
	st := s.states[ply]
	if s.oracle != nil && ply > 0 {
		if outcome, plies, ok := s.oracle.Probe(st); ok {
			return oracleValue(st, outcome, plies)
		}
	}
	if depth <= 0 || ply >= len(s.states)-2 {
		if s.quiescence && ply < len(s.states)-2 {
			s.nodes-- // quiesce counts this node
			return s.quiesce(ply, alpha, beta)
		}
		s.horizons++
		return s.evaluate(st)
	}
	pvNode := beta-alpha > 2*nullWindow
	excluded := s.excluded[ply]
	key := st.Hash()
	if excluded >= 0 {
		key ^= excludedKey(excluded)
	}
	hashMove := -1
	var tte entry
	if s.tt != nil {
		if e, ok := s.tt.probe(key); ok {
			tte = e
			if s.cfg.Ordering {
				hashMove = int(e.move)
			}
			// Without selective features only an entry of exactly this
			// depth may cut, so the value equals plain alpha-beta's at
			// every depth; with them a deeper entry cuts too.
			d := int(e.depth)
			if ply > 0 && (d == depth || s.deepCuts && d > depth) {
				kind := e.flags &^ flagHorizon
				if kind == boundExact || (kind == boundLower && e.value >= beta) || (kind == boundUpper && e.value <= alpha) {
					if e.flags&flagHorizon != 0 {
						s.horizons++
					}
					return e.value
				}
			}
		}
	}

	// Internal iterative reduction: a node the table knows nothing about
	// has no move to try first; search it a ply shallower.
	if s.iir && depth >= iirMinDepth && tte.flags == 0 && excluded < 0 {
		depth--
		s.acts.iirs++
	}

	// ProbCut: a shallow search predicts that the deep one fails high
	// or low (Buro 1995; see probcut.go).
	if s.pc != nil && !pvNode && ply > 0 && excluded < 0 {
		if v, cut := s.probCut(ply, depth, alpha, beta); cut {
			return v
		}
		s.pvLen[ply] = 0
	}

	var tac Tactical
	inCheck := false
	if s.tactical {
		tac = s.tacs[ply]
		inCheck = tac.InCheck()
	}
	staticEval := math.Inf(-1)
	if (s.futility || s.nullMove) && !pvNode && !inCheck {
		staticEval = s.evaluate(st)
	}

	// Reverse futility: far enough above beta near the horizon, assume a
	// quiet move keeps the advantage.
	if s.futility && !pvNode && !inCheck && depth <= s.rfpDepth && ply > 0 && !IsProven(beta) &&
		staticEval-float64(reverseFutilityCP*depth)*s.cp >= beta {
		s.horizons++
		return staticEval
	}

	// Null move: if passing still fails high with a reduced search, a real
	// move will too (not in check, not with only king and pawns).
	if s.nullMove && allowNull && !pvNode && !inCheck && depth >= 3 && ply > 0 && excluded < 0 &&
		!math.IsInf(beta, 1) && !IsProven(beta) && staticEval >= beta && tac.HasNonPawnMaterial() {
		r := 2 + depth/4
		s.refresh(ply+1, st)
		s.states[ply+1].(NullMover).ApplyNullMove()
		var v float64
		if s.states[ply+1].IsTerminal() {
			v = terminalValue(s.states[ply+1], st.CurrentPlayer())
		} else {
			v = -s.negamax(ply+1, depth-1-r, -beta, -beta+nullWindow, false)
		}
		if s.abort {
			return 0
		}
		if v >= beta {
			s.horizons++
			if IsProven(v) {
				return beta
			}
			return v
		}
	}

	// Singular extension: is the table move the only good one? The check
	// searches this same node (ply) before its moves are generated.
	singularMove := -1
	if s.singular && ply > 0 && excluded < 0 && depth >= singularMinDepth && ply < 2*s.rootDepth &&
		tte.flags != 0 && int(tte.depth) >= depth-singularSlack && !IsProven(tte.value) {
		if kind := tte.flags &^ flagHorizon; kind == boundLower || kind == boundExact {
			if s.isSingular(ply, depth, int(tte.move), tte.value) {
				singularMove = int(tte.move)
			}
			if s.abort {
				return 0
			}
		}
	}

	me := st.CurrentPlayer()
	moves := st.LegalActions(s.moves[ply][:0])
	if s.cfg.Beam > 0 && len(moves) > s.cfg.Beam {
		moves = s.beam(ply, me, moves)
	}
	s.moves[ply] = moves
	if s.cfg.Ordering || s.cfg.Killers || s.cfg.History {
		s.order(ply, me, moves, hashMove, tac)
	}

	// Move futility: at depth 1 and 2, quiet moves that do not check
	// cannot lift a static evaluation this far below alpha.
	futile := false
	futileValue := 0.0
	if s.futility && !pvNode && !inCheck && depth <= 2 && !IsProven(alpha) {
		margin := futility1CP
		if depth == 2 {
			margin = futility2CP
		}
		futileValue = staticEval + float64(margin)*s.cp
		futile = futileValue <= alpha
	}

	// Late-move pruning: at shallow non-PV nodes out of check, quiet
	// moves this late in the order are skipped once a move is in hand.
	lmpFrom := math.MaxInt
	if s.lmp && !pvNode && !inCheck && depth <= lmpMaxDepth {
		lmpFrom = lmpCount(depth)
	}
	seePrune := s.seePrune && !pvNode && !inCheck && depth <= seePruneMaxDepth

	alphaOrig := alpha
	horizonsBefore := s.horizons
	best, bestMove := math.Inf(-1), moves[0]
	k := s.killers[ply]
	s.quiets[ply] = s.quiets[ply][:0]
	malus := s.cfg.History && s.cfg.HistoryMalus
	for i, a := range moves {
		if a == excluded {
			continue
		}
		quiet := true
		if tac != nil {
			quiet = !tac.IsNoisy(a)
		}
		if futile && i > 0 && quiet && !tac.GivesCheck(a) {
			s.horizons++
			if futileValue > best {
				best = futileValue
			}
			continue
		}
		if i >= lmpFrom && quiet && best >= -1 && a != k[0] && a != k[1] && !tac.GivesCheck(a) {
			s.horizons++
			s.acts.lmpPruned++
			continue
		}
		if seePrune && i > 0 && best >= -1 {
			margin := seeNoisyCP
			if quiet {
				margin = seeQuietCP
			}
			if tac.SEE(a) < -margin*depth && !tac.GivesCheck(a) {
				s.horizons++
				s.acts.seePruned++
				continue
			}
		}
		s.refresh(ply+1, st)
		child := s.states[ply+1]
		child.ApplyAction(a)
		var v float64
		if child.IsTerminal() {
			s.nodes++
			s.pvLen[ply+1] = 0
			v = terminalValue(child, me)
		} else if s.repDraws && s.reps[ply+1].Repetitions() > 0 {
			s.nodes++
			s.pvLen[ply+1] = 0
			s.horizons++ // a draw by the search's rule, not the game's
			v = 0
		} else {
			givesCheck := tac != nil && s.tacs[ply+1].InCheck()
			newDepth := depth - 1
			switch {
			case a == singularMove:
				newDepth++
				s.acts.singExt++
			case s.extensions && givesCheck && ply < 2*s.rootDepth:
				newDepth++
			}
			reduce := 0
			if s.cfg.LMR && i >= 3 && depth >= 3 && quiet && !inCheck && !givesCheck && a != k[0] && a != k[1] && a != singularMove {
				reduce = int(lmrTable[min(depth, 63)][min(i, 63)])
				reduce = max(min(reduce, newDepth-1), 0)
			}
			switch {
			case i == 0 || math.IsInf(alpha, -1) || (!s.cfg.PVS && reduce == 0):
				v = s.child(ply, newDepth, me, alpha, beta)
			case !s.cfg.PVS:
				// A reduced full-window search, repeated at full depth
				// when it beats alpha.
				v = s.child(ply, newDepth-reduce, me, alpha, beta)
				if v > alpha && !s.abort {
					v = s.child(ply, newDepth, me, alpha, beta)
				}
			default:
				v = s.child(ply, newDepth-reduce, me, alpha, alpha+nullWindow)
				if reduce > 0 && v > alpha && !s.abort {
					v = s.child(ply, newDepth, me, alpha, alpha+nullWindow)
				}
				if v > alpha && v >= alpha+nullWindow && v < beta && !s.abort {
					v = s.child(ply, newDepth, me, v, beta)
				}
			}
		}
		if s.abort {
			return 0
		}
		if v > best {
			best, bestMove = v, a
			if v > alpha {
				alpha = v
				s.pv[ply][0] = a
				copy(s.pv[ply][1:], s.pv[ply+1][:s.pvLen[ply+1]])
				s.pvLen[ply] = 1 + s.pvLen[ply+1]
			} else if s.pvLen[ply] == 0 {
				s.pv[ply][0], s.pvLen[ply] = a, 1
			}
		}
		if alpha >= beta {
			if quiet {
				s.cutoff(ply, me, a, depth)
			}
			break
		}
		if malus && quiet && len(s.quiets[ply]) < cap(s.quiets[ply]) {
			s.quiets[ply] = append(s.quiets[ply], a)
		}
	}
	if excluded >= 0 && math.IsInf(best, -1) {
		return alphaOrig // no move but the excluded one: every other move fails low
	}
	if s.tt != nil {
		flags := boundExact
		switch {
		case best >= beta:
			flags = boundLower
		case best <= alphaOrig:
			flags = boundUpper
		}
		if s.horizons != horizonsBefore {
			flags |= flagHorizon
		}
		s.tt.store(key, best, bestMove, depth, flags)
	}
	return best
}

// isSingular reports whether move m of the node at ply, whose table value
// v is a lower bound (or exact) from a search of about depth plies, is
// singular: a null-window search of depth/2 of every other move, with m
// excluded, fails low against v minus singularMarginCP per ply of depth.
// It searches the node at ply itself, so it overwrites that ply's move
// list, principal variation and killers.
func (s *Searcher) isSingular(ply, depth, m int, v float64) bool {
	sBeta := v - float64(singularMarginCP*depth)*s.cp
	s.excluded[ply] = m
	w := s.negamax(ply, depth/2, sBeta-nullWindow, sBeta, false)
	s.excluded[ply] = -1
	s.pvLen[ply] = 0
	return !s.abort && w < sBeta
}

// excludedKey is mixed into a position's hash for the search of a
// singular-extension check that leaves move m out, so that its result is
// kept apart from the position's own entry (a splitmix64 finaliser of m,
// never 0).
func excludedKey(m int) uint64 {
	x := uint64(m+1) * 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31 | 1
}

// child searches the state at ply+1, reached by a move of player me, to
// depth plies with window (alpha, beta) from me's point of view and returns
// its value for me.
func (s *Searcher) child(ply, depth, me int, alpha, beta float64) float64 {
	if s.states[ply+1].CurrentPlayer() == me {
		return s.negamax(ply+1, depth, alpha, beta, true)
	}
	return -s.negamax(ply+1, depth, -beta, -alpha, true)
}

// quiesce searches the non-terminal state at ply past the horizon: out of
// check, the static evaluation is a lower bound (stand pat) and only
// captures and promotions are tried, those losing material by SEE skipped
// when SEE is on; in check, every move is. It returns the fail-soft value
// for the player to move.
func (s *Searcher) quiesce(ply int, alpha, beta float64) float64 {
	s.nodes++
	s.pvLen[ply] = 0
	s.checkBudget()
	if s.abort {
		return 0
	}
	st := s.states[ply]
	tac := s.tacs[ply]
	if ply >= len(s.states)-2 {
		s.horizons++
		return s.evaluate(st)
	}
	inCheck := tac.InCheck()
	best := math.Inf(-1)
	var moves []int
	if inCheck {
		moves = st.LegalActions(s.moves[ply][:0])
	} else {
		s.horizons++
		best = s.evaluate(st)
		if best >= beta {
			return best
		}
		alpha = max(alpha, best)
		moves = tac.NoisyActions(s.moves[ply][:0])
	}
	s.moves[ply] = moves
	s.orderNoisy(ply, moves, tac)
	me := st.CurrentPlayer()
	for _, a := range moves {
		if !inCheck && s.see && tac.SEE(a) < 0 {
			continue
		}
		s.refresh(ply+1, st)
		child := s.states[ply+1]
		child.ApplyAction(a)
		var v float64
		switch {
		case child.IsTerminal():
			s.nodes++
			s.pvLen[ply+1] = 0
			v = terminalValue(child, me)
		case child.CurrentPlayer() == me:
			v = s.quiesce(ply+1, alpha, beta)
		default:
			v = -s.quiesce(ply+1, -beta, -alpha)
		}
		if s.abort {
			return 0
		}
		if v > best {
			best = v
			if v > alpha {
				alpha = v
				s.pv[ply][0] = a
				copy(s.pv[ply][1:], s.pv[ply+1][:s.pvLen[ply+1]])
				s.pvLen[ply] = 1 + s.pvLen[ply+1]
			}
		}
		if alpha >= beta {
			break
		}
	}
	return best
}

// Ordering scores, highest first: the hash move, captures and promotions
// that do not lose material (by MVV-LVA), the two killers, quiet moves by
// history, and last the captures that lose material by SEE.
const (
	scoreHash      = math.MaxInt64
	scoreGoodNoisy = 1 << 50
	scoreKiller    = 1 << 49
	scoreBadNoisy  = -(1 << 50)
)

// order sorts moves in place by their ordering scores; ties keep the
// natural order (insertion sort, stable, allocation-free).
func (s *Searcher) order(ply, me int, moves []int, hashMove int, tac Tactical) {
	if len(s.scores[ply]) < len(moves) {
		s.scores[ply] = make([]int64, len(moves))
	}
	sc := s.scores[ply][:len(moves)]
	k := s.killers[ply]
	if !s.cfg.Killers {
		k = [2]int{-1, -1}
	}
	var hist []int64
	if s.cfg.History {
		hist = s.history[me*s.game.NumActions():]
	}
	for i, a := range moves {
		var mvv int
		if tac != nil && s.cfg.Ordering {
			mvv = tac.MVVLVA(a)
		}
		switch {
		case a == hashMove:
			sc[i] = scoreHash
		case mvv > 0:
			sc[i] = scoreGoodNoisy + int64(mvv)
			if s.see && tac.SEE(a) < 0 {
				sc[i] = scoreBadNoisy + int64(mvv)
			}
		case a == k[0]:
			sc[i] = scoreKiller
		case a == k[1]:
			sc[i] = scoreKiller - 1
		case hist != nil:
			sc[i] = hist[a]
		default:
			sc[i] = 0
		}
	}
	sortByScore(moves, sc)
}

// orderNoisy sorts quiescence moves by MVV-LVA.
func (s *Searcher) orderNoisy(ply int, moves []int, tac Tactical) {
	if len(s.scores[ply]) < len(moves) {
		s.scores[ply] = make([]int64, len(moves))
	}
	sc := s.scores[ply][:len(moves)]
	for i, a := range moves {
		sc[i] = int64(tac.MVVLVA(a))
	}
	sortByScore(moves, sc)
}

// sortByScore sorts moves by decreasing score, stably.
func sortByScore(moves []int, sc []int64) {
	for i := 1; i < len(moves); i++ {
		a, v := moves[i], sc[i]
		j := i - 1
		for j >= 0 && sc[j] < v {
			moves[j+1], sc[j+1] = moves[j], sc[j]
			j--
		}
		moves[j+1], sc[j+1] = a, v
	}
}

// cutoff records quiet move a, which caused a beta cutoff, as a killer and
// in the history table.
func (s *Searcher) cutoff(ply, me, a, depth int) {
	if s.cfg.Killers {
		if k := &s.killers[ply]; k[0] != a {
			k[1], k[0] = k[0], a
		}
	}
	if !s.cfg.History {
		return
	}
	if s.cfg.HistoryMalus {
		hist := s.history[me*s.game.NumActions():]
		b := int64(min(depth*depth, historyBonusMax))
		hist[a] += b - hist[a]*b/historyMax
		for _, q := range s.quiets[ply] {
			hist[q] += -b - hist[q]*b/historyMax
		}
		return
	}
	h := &s.history[me*s.game.NumActions()+a]
	*h += int64(depth) * int64(depth)
	if *h > 1<<40 { // keep history far below the killer scores
		for i := range s.history {
			s.history[i] /= 2
		}
	}
}

// beam keeps the Config.Beam moves of the state at ply that a one-ply
// search ranks best for me, best first, and returns them (a prefix of
// moves, reordered). Ties keep the natural order.
func (s *Searcher) beam(ply, me int, moves []int) []int {
	if len(s.beamVal[ply]) < len(moves) {
		s.beamVal[ply] = make([]float64, len(moves))
	}
	val := s.beamVal[ply][:len(moves)]
	st := s.states[ply]
	for i, a := range moves {
		s.nodes++
		s.refresh(ply+1, st)
		child := s.states[ply+1]
		child.ApplyAction(a)
		switch {
		case child.IsTerminal():
			val[i] = terminalValue(child, me)
		case child.CurrentPlayer() == me:
			val[i] = s.h.Evaluate(child)
		default:
			val[i] = -s.h.Evaluate(child)
		}
	}
	for i := 1; i < len(moves); i++ {
		a, v := moves[i], val[i]
		j := i - 1
		for j >= 0 && val[j] < v {
			moves[j+1], val[j+1] = moves[j], val[j]
			j--
		}
		moves[j+1], val[j+1] = a, v
	}
	s.horizons++ // discarded moves make the value heuristic
	return moves[:s.cfg.Beam]
}
