package main

import (
	"bytes"
	"fmt"
	"math"
	"strings"

	"tabula/games"
	"tabula/games/chess"
	"tabula/internal/fit"
)

// chessTuner fits the chess evaluation's scalar terms (chess.Weights.Terms:
// material, mobility, pawn structure, king shield, bishop pair, tempo); with
// tables it fits the piece-square tables too (middlegame and endgame, 768
// entries after the scalar terms), else they stay as published.
//
// With qleaf every position not in check is used: its features are those of
// the end of its quiescence search's principal variation (captures and
// promotions that do not lose material by static exchange, stand pat, hand
// weights), seen from the position's side to move, as Texel's tuning method
// samples; without it only quiet positions are used, as they are.
type chessTuner struct{ tables, qleaf bool }

func (chessTuner) game() games.Game { return chess.Game{} }

// tableTerm is where the piece-square table entries start in the weight
// vector: MG tables of pawn..king (64 squares each, a8 first, as
// chess.Weights stores them), then the EG tables.
const tableTerm = chess.NumTerms

var squareNames = func() [64]string {
	var n [64]string
	for i := range 64 {
		// Index i counts from a8 (rank 8) to h1, as the tables do.
		n[i] = fmt.Sprintf("%c%d", 'a'+i%8, 8-i/8)
	}
	return n
}()

var tablePieceNames = [6]string{"pawn", "knight", "bishop", "rook", "queen", "king"}

func (t chessTuner) prior() ([]float64, []string) {
	w, names := chess.DefaultWeights.Terms(), chess.TermNames()
	if !t.tables {
		return w, names
	}
	w = append(w, defaultTables[:]...)
	for ph := range 2 {
		for pt := range 6 {
			for sq := range 64 {
				names = append(names, fmt.Sprintf("table.%s.%s.%s", []string{"mg", "eg"}[ph], tablePieceNames[pt], squareNames[sq]))
			}
		}
	}
	return w, names
}

// defaultTables are DefaultWeights' piece-square tables in the order of
// the weight vector from tableTerm on.
var defaultTables = func() (t [2 * 6 * 64]float64) {
	k := 0
	for _, tab := range []*[6][64]int{&chess.DefaultWeights.MGTable, &chess.DefaultWeights.EGTable} {
		for pt := range 6 {
			for sq := range 64 {
				t[k] = float64(tab[pt][sq])
				k++
			}
		}
	}
	return t
}()

// kRange: K per centipawn; Texel's typical K is about ln(10)/400 = 0.0058.
func (chessTuner) kRange() (float64, float64) { return 1e-5, 0.1 }

// sample keeps quiet positions: not in check, and no capture or promotion
// that wins material by static exchange evaluation.
func (t chessTuner) sample(st games.State) (fit.Row, bool) {
	s := st.(*chess.State)
	if s.IsTerminal() || s.InCheck() {
		return fit.Row{}, false
	}
	sign := 1.0
	if t.qleaf {
		_, leaf, plies := quiesce(s, -maxCP, maxCP, maxQuiescePlies)
		if leaf.InCheck() {
			return fit.Row{}, false
		}
		if plies%2 == 1 {
			sign = -1
		}
		s = leaf
	} else {
		for _, a := range s.NoisyActions(nil) {
			if s.SEE(a) > 0 || chess.MoveOf(a).Promotion() != 0 {
				return fit.Row{}, false
			}
		}
	}
	n := chess.NumTerms
	if t.tables {
		n += 2 * 6 * 64
	}
	f := make([]float64, n)
	off := s.Features(&chess.DefaultWeights, f)
	if t.tables {
		// The offset holds the tables' sum: replace that by their
		// entries' features, each piece counting its phase share for its
		// side; what remains of the offset is the evaluation's other fixed
		// terms (rook files, king attack).
		tableFeatures(s.Position(), f[tableTerm:])
		for i, x := range defaultTables {
			off -= f[tableTerm+i] * x
		}
	}
	if sign < 0 {
		// The leaf's evaluation is for its own mover: negate it for the
		// sampled position's.
		for i := range f {
			f[i] = -f[i]
		}
		off = -off
	}
	return sparse(f, off), true
}

// maxCP bounds quiesce's window; maxQuiescePlies its depth.
const (
	maxCP           = 1 << 20
	maxQuiescePlies = 12
)

// quiesce is a fail-hard quiescence search of s under the hand weights, in
// centipawns for s's mover: stand pat, then the captures and promotions that
// SEE does not call losing. It returns the value, the position at the end
// of its principal variation and how many plies on that position is.
func quiesce(s *chess.State, alpha, beta, left int) (int, *chess.State, int) {
	p := s.Position()
	stand := p.Evaluate(&chess.DefaultWeights)
	if stand >= beta || left == 0 {
		return stand, s, 0
	}
	leaf, plies := s, 0
	alpha = max(alpha, stand)
	for _, a := range s.NoisyActions(nil) {
		if s.SEE(a) < 0 {
			continue
		}
		c := s.Clone().(*chess.State)
		c.ApplyAction(a)
		if c.IsTerminal() {
			continue
		}
		v, l, n := quiesce(c, -beta, -alpha, left-1)
		if v = -v; v > alpha {
			alpha, leaf, plies = v, l, n+1
			if alpha >= beta {
				break
			}
		}
	}
	return alpha, leaf, plies
}

// tableFeatures writes, for each table entry, the number of pieces on it for
// the side to move minus the opponent's, times the middlegame (first 384) or
// endgame (last 384) share of the game phase, as chess.Position.Evaluate
// tapers it.
func tableFeatures(p chess.Position, f []float64) {
	w := &chess.DefaultWeights
	phase := 0
	for sq := chess.Square(0); sq < 64; sq++ {
		if pc := p.PieceAt(sq); pc != chess.NoPiece {
			phase += w.PhaseInc[pc.Type()]
		}
	}
	mg := float64(min(phase, w.MaxPhase)) / float64(w.MaxPhase)
	us := p.SideToMove()
	for sq := chess.Square(0); sq < 64; sq++ {
		pc := p.PieceAt(sq)
		if pc == chess.NoPiece {
			continue
		}
		i, sign := int(sq), 1.0
		if pc.Color() == chess.White {
			i ^= 56
		}
		if pc.Color() != us {
			sign = -1
		}
		j := int(pc.Type())*64 + i
		f[j] += sign * mg
		f[384+j] += sign * (1 - mg)
	}
}

func (chessTuner) l2() float64 { return 1e-5 }

func (t chessTuner) source(w []float64, _ float64, note string) ([]byte, error) {
	tw, err := chess.DefaultWeights.WithTerms(w[:chess.NumTerms])
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by scripts/texel; DO NOT EDIT.\n\npackage chess\n\n")
	if t.tables {
		fmt.Fprintf(&b, "// TunedWeights are DefaultWeights with the scalar terms (Weights.Terms)\n// and the piece-square tables fitted by Texel's method.\n//\n")
	} else {
		fmt.Fprintf(&b, "// TunedWeights are DefaultWeights with the scalar terms (Weights.Terms)\n// fitted by Texel's method; the piece-square tables are DefaultWeights'.\n//\n")
	}
	for _, l := range strings.Split(note, "\n") {
		fmt.Fprintf(&b, "// %s\n", l)
	}
	fmt.Fprintf(&b, "var TunedWeights = func() Weights {\n\tw := DefaultWeights\n")
	fmt.Fprintf(&b, "\tw.MGValue = %#v\n\tw.EGValue = %#v\n", tw.MGValue, tw.EGValue)
	fmt.Fprintf(&b, "\tw.MobilityMG = %#v\n\tw.MobilityEG = %#v\n", tw.MobilityMG, tw.MobilityEG)
	fmt.Fprintf(&b, "\tw.DoubledMG, w.DoubledEG = %d, %d\n\tw.IsolatedMG, w.IsolatedEG = %d, %d\n", tw.DoubledMG, tw.DoubledEG, tw.IsolatedMG, tw.IsolatedEG)
	fmt.Fprintf(&b, "\tw.PassedMG = %#v\n\tw.PassedEG = %#v\n", tw.PassedMG, tw.PassedEG)
	fmt.Fprintf(&b, "\tw.Shield1, w.Shield2 = %d, %d\n\tw.BishopPairMG, w.BishopPairEG = %d, %d\n\tw.Tempo = %d\n", tw.Shield1, tw.Shield2, tw.BishopPairMG, tw.BishopPairEG, tw.Tempo)
	if t.tables {
		for ph, name := range []string{"MGTable", "EGTable"} {
			fmt.Fprintf(&b, "\tw.%s = [6][64]int{\n", name)
			for pt := range 6 {
				fmt.Fprintf(&b, "\t\t{ // %s, a8..h1\n", tablePieceNames[pt])
				for rank := range 8 {
					b.WriteString("\t\t\t")
					for file := range 8 {
						fmt.Fprintf(&b, "%d, ", int(math.Round(w[tableTerm+ph*384+pt*64+rank*8+file])))
					}
					b.WriteString("\n")
				}
				b.WriteString("\t\t},\n")
			}
			b.WriteString("\t}\n")
		}
	}
	fmt.Fprintf(&b, "\treturn w\n}()\n")
	return b.Bytes(), nil
}
