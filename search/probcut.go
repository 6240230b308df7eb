package search

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"

	"tabula/internal/atomicfile"
)

// ProbCut (Buro, "ProbCut: An Effective Selective Extension of the
// Alpha-Beta Algorithm", ICCA Journal 18(2), 1995) predicts the value of a
// deep search from a shallow one, v_deep = A*v_shallow + B + e with e of
// standard deviation Sigma, fitted by least squares on positions from play.
// At a node of remaining depth Deep whose window is (alpha, beta), a null-
// window search of depth Shallow decides whether A*v_shallow + B lies at
// least t*Sigma above beta (the node is cut with beta) or below alpha (cut
// with alpha). Multi-ProbCut (Buro, "Experiments with Multi-ProbCut and a
// New High-Quality Evaluation Function for Othello", 1999) checks several
// depth pairs and fits each per game stage.

// FormatProbCut is the format name of a ProbCut file.
const FormatProbCut = "tabula-probcut-1"

// EmptySquares is the optional capability of a State that ProbCut fits are
// binned by: the number of empty squares (Othello).
type EmptySquares interface {
	Empties() int
}

// LinearFit is v_deep = A*v_shallow + B with residual standard deviation
// Sigma over N positions with MinEmpties..MaxEmpties empty squares; R is
// the correlation of the two values.
type LinearFit struct {
	MinEmpties int     `json:"min_empties"`
	MaxEmpties int     `json:"max_empties"`
	A          float64 `json:"a"`
	B          float64 `json:"b"`
	Sigma      float64 `json:"sigma"`
	R          float64 `json:"r"`
	N          int     `json:"n"`
}

// ProbCutCheck is one depth pair: at a node of remaining depth Deep, a
// search of depth Shallow predicts the deep value through the fit of the
// node's stage (no check where no fit covers it).
type ProbCutCheck struct {
	Deep    int         `json:"deep"`
	Shallow int         `json:"shallow"`
	Fits    []LinearFit `json:"fits"`
}

// ProbCut is a set of checks: one pair with one fit for every stage in
// Buro's ProbCut, several pairs with per-stage fits in Multi-ProbCut. At a
// node, the checks of its depth are tried in the order given.
type ProbCut struct {
	Checks []ProbCutCheck `json:"checks"`
}

// ProbCutModel is what a ProbCut file holds: the plain and the multi
// version for one game, and how they were made.
type ProbCutModel struct {
	Format string `json:"format"`
	Game   string `json:"game"`
	// MadeBy is the command that made the file; Method says how the
	// positions were collected and searched.
	MadeBy    string  `json:"made_by"`
	Method    string  `json:"method"`
	Positions int     `json:"positions"`
	ProbCut   ProbCut `json:"probcut"`
	MPC       ProbCut `json:"mpc"`
}

// Validate names the first check or fit that cannot be used.
func (p ProbCut) Validate() error {
	if len(p.Checks) == 0 {
		return fmt.Errorf("probcut: no checks")
	}
	for i, c := range p.Checks {
		if c.Shallow < 0 || c.Deep <= c.Shallow || c.Deep > 64 {
			return fmt.Errorf("probcut: check %d: depths deep=%d shallow=%d, want 0 <= shallow < deep <= 64", i, c.Deep, c.Shallow)
		}
		if len(c.Fits) == 0 {
			return fmt.Errorf("probcut: check %d (deep %d, shallow %d): no fits", i, c.Deep, c.Shallow)
		}
		for j, f := range c.Fits {
			switch {
			case f.MinEmpties < 0 || f.MaxEmpties < f.MinEmpties:
				return fmt.Errorf("probcut: check %d fit %d: empties %d..%d", i, j, f.MinEmpties, f.MaxEmpties)
			case !(f.A > 0) || math.IsInf(f.A, 0):
				return fmt.Errorf("probcut: check %d fit %d: slope a = %v, want > 0 and finite", i, j, f.A)
			case math.IsNaN(f.B) || math.IsInf(f.B, 0):
				return fmt.Errorf("probcut: check %d fit %d: intercept b = %v, want finite", i, j, f.B)
			case !(f.Sigma >= 0) || math.IsInf(f.Sigma, 0):
				return fmt.Errorf("probcut: check %d fit %d: sigma = %v, want >= 0 and finite", i, j, f.Sigma)
			}
			for _, g := range c.Fits[:j] {
				if f.MinEmpties <= g.MaxEmpties && g.MinEmpties <= f.MaxEmpties {
					return fmt.Errorf("probcut: check %d: fits for empties %d..%d and %d..%d overlap", i, g.MinEmpties, g.MaxEmpties, f.MinEmpties, f.MaxEmpties)
				}
			}
		}
	}
	return nil
}

// fitFor returns the fit of c that covers a node with e empty squares.
func (c *ProbCutCheck) fitFor(e int) (*LinearFit, bool) {
	for i := range c.Fits {
		if f := &c.Fits[i]; e >= f.MinEmpties && e <= f.MaxEmpties {
			return f, true
		}
	}
	return nil, false
}

// FitLinear fits y = a*x + b by least squares and returns a, b, the
// standard deviation of the residuals (n-2 degrees of freedom) and the
// correlation r. It needs at least 3 points and x not all equal.
func FitLinear(x, y []float64) (a, b, sigma, r float64, err error) {
	n := len(x)
	if n != len(y) {
		return 0, 0, 0, 0, fmt.Errorf("probcut fit: %d x values, %d y values", n, len(y))
	}
	if n < 3 {
		return 0, 0, 0, 0, fmt.Errorf("probcut fit: %d points, want at least 3", n)
	}
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(n)
	my /= float64(n)
	var sxx, sxy, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	if sxx == 0 {
		return 0, 0, 0, 0, fmt.Errorf("probcut fit: every x value is %v", mx)
	}
	a = sxy / sxx
	b = my - a*mx
	var sse float64
	for i := range x {
		e := y[i] - (a*x[i] + b)
		sse += e * e
	}
	sigma = math.Sqrt(sse / float64(n-2))
	if syy > 0 {
		r = sxy / math.Sqrt(sxx*syy)
	}
	return a, b, sigma, r, nil
}

// probCutFile is the file: the model and the SHA-256 of its compact JSON.
type probCutFile struct {
	SHA256 string          `json:"sha256"`
	Model  json.RawMessage `json:"model"`
}

// WriteProbCut writes m to path atomically, with a checksum.
func WriteProbCut(path string, m ProbCutModel) error {
	m.Format = FormatProbCut
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("probcut %s: %w", path, err)
	}
	sum := sha256.Sum256(body)
	out, err := json.MarshalIndent(probCutFile{SHA256: hex.EncodeToString(sum[:]), Model: body}, "", "  ")
	if err != nil {
		return fmt.Errorf("probcut %s: %w", path, err)
	}
	return atomicfile.Write(path, append(out, '\n'))
}

// LoadProbCut reads a file written by WriteProbCut, checking its format,
// checksum and fits.
func LoadProbCut(path string) (ProbCutModel, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return ProbCutModel{}, fmt.Errorf("probcut: %w", err)
	}
	m, err := ParseProbCut(data)
	if err != nil {
		return ProbCutModel{}, fmt.Errorf("probcut %s: %w", path, err)
	}
	return m, nil
}

// ParseProbCut decodes and checks the contents of a ProbCut file.
func ParseProbCut(data []byte) (ProbCutModel, error) {
	var f probCutFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return ProbCutModel{}, fmt.Errorf("not a ProbCut file (%s JSON): %w", FormatProbCut, err)
	}
	if len(f.Model) == 0 || f.SHA256 == "" {
		return ProbCutModel{}, fmt.Errorf("not a ProbCut file (%s): want the fields sha256 and model", FormatProbCut)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, f.Model); err != nil {
		return ProbCutModel{}, fmt.Errorf("model: %w", err)
	}
	sum := sha256.Sum256(compact.Bytes())
	if got := hex.EncodeToString(sum[:]); got != f.SHA256 {
		return ProbCutModel{}, fmt.Errorf("checksum mismatch: the model has sha256 %s, the file says %s (edited or damaged)", got, f.SHA256)
	}
	var m ProbCutModel
	dec = json.NewDecoder(bytes.NewReader(f.Model))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return ProbCutModel{}, fmt.Errorf("model: %w", err)
	}
	if m.Format != FormatProbCut {
		return ProbCutModel{}, fmt.Errorf("format %q, want %q", m.Format, FormatProbCut)
	}
	if err := m.ProbCut.Validate(); err != nil {
		return ProbCutModel{}, fmt.Errorf("probcut section: %w", err)
	}
	if err := m.MPC.Validate(); err != nil {
		return ProbCutModel{}, fmt.Errorf("mpc section: %w", err)
	}
	return m, nil
}

// probCutEvent describes one cut, for tests: the check's fit, the shallow
// value v and the window; high is true for a cut at beta.
type probCutEvent struct {
	fit         LinearFit
	v           float64
	alpha, beta float64
	t           float64
	high        bool
}

// probCutState is a Searcher's ProbCut configuration: the checks of each
// remaining depth, in order, and the confidence t.
type probCutState struct {
	byDepth [][]ProbCutCheck
	t       float64
	// hook, when set, is told of every cut (tests).
	hook func(probCutEvent)
}

// SetProbCut makes s cut by pc with confidence t (in standard deviations
// of the fit's error; larger t cuts less and more safely). The game's
// states must report their empty squares (EmptySquares). A zero pc (no
// checks) turns ProbCut off. Call Reset afterwards if s has searched before.
// The table keeps cutting only on entries of exactly the depth asked for,
// so a search in which no check cuts returns plain alpha-beta's value.
func (s *Searcher) SetProbCut(pc ProbCut, t float64) error {
	if len(pc.Checks) == 0 {
		s.setProbCut(nil)
		return nil
	}
	if err := pc.Validate(); err != nil {
		return err
	}
	if !(t >= 0) || math.IsInf(t, 0) {
		return fmt.Errorf("probcut: confidence t = %v, want a finite number >= 0", t)
	}
	if _, ok := s.game.NewInitialState().(EmptySquares); !ok {
		return fmt.Errorf("probcut: game %s does not count empty squares (the stages ProbCut fits are binned by)", s.game.Name())
	}
	maxDeep := 0
	for _, c := range pc.Checks {
		maxDeep = max(maxDeep, c.Deep)
	}
	st := &probCutState{byDepth: make([][]ProbCutCheck, maxDeep+1), t: t}
	for _, c := range pc.Checks {
		c.Fits = slices.Clone(c.Fits)
		st.byDepth[c.Deep] = append(st.byDepth[c.Deep], c)
	}
	s.setProbCut(st)
	return nil
}

func (s *Searcher) setProbCut(st *probCutState) {
	s.pc = st
	for _, h := range s.helpers {
		h.setProbCut(st)
	}
}

// probCut runs the checks of a node at ply with depth plies to go and
// window (alpha, beta), in order, and reports whether one cut it, with the
// value to return (beta or alpha). Each check's shallow search is a
// null-window search of the same node around the value that the fit maps
// to beta + t*Sigma (or alpha - t*Sigma); a bound the heuristic cannot
// reach (outside (-1, 1)) is not searched.
func (s *Searcher) probCut(ply, depth int, alpha, beta float64) (float64, bool) {
	if depth >= len(s.pc.byDepth) || len(s.pc.byDepth[depth]) == 0 || IsProven(alpha) || IsProven(beta) {
		return 0, false
	}
	es, ok := s.states[ply].(EmptySquares)
	if !ok {
		return 0, false
	}
	e := es.Empties()
	t := s.pc.t
	for i := range s.pc.byDepth[depth] {
		c := &s.pc.byDepth[depth][i]
		f, ok := c.fitFor(e)
		if !ok {
			continue
		}
		if hi := (beta + t*f.Sigma - f.B) / f.A; hi > -1 && hi < 1 {
			v := s.negamax(ply, c.Shallow, hi-nullWindow, hi, true)
			if s.abort {
				return 0, true
			}
			if v >= hi {
				s.horizons++
				if s.pc.hook != nil {
					s.pc.hook(probCutEvent{fit: *f, v: v, alpha: alpha, beta: beta, t: t, high: true})
				}
				return beta, true
			}
		}
		if lo := (alpha - t*f.Sigma - f.B) / f.A; lo > -1 && lo < 1 {
			v := s.negamax(ply, c.Shallow, lo, lo+nullWindow, true)
			if s.abort {
				return 0, true
			}
			if v <= lo {
				s.horizons++
				if s.pc.hook != nil {
					s.pc.hook(probCutEvent{fit: *f, v: v, alpha: alpha, beta: beta, t: t})
				}
				return alpha, true
			}
		}
	}
	return 0, false
}

// ProbCutSample is one position's search values for fitting: Values[d] is
// the value of a plain (non-selective) search of depth d, NaN where
// unknown; Empties is the position's stage.
type ProbCutSample struct {
	Empties int
	Values  []float64
}

// minFitPoints is the fewest positions a fit of one stage is made from.
const minFitPoints = 30

// FitProbCut fits every depth pair (deep, shallow) of pairs on samples, one
// fit per stage of stages (empties ranges, inclusive), over the positions
// whose two values are both known and heuristic (not proven). A stage with
// fewer than 30 such positions gets no fit; a pair with no fit at all is an
// error.
func FitProbCut(samples []ProbCutSample, pairs [][2]int, stages [][2]int) (ProbCut, error) {
	var pc ProbCut
	for _, p := range pairs {
		deep, shallow := p[0], p[1]
		c := ProbCutCheck{Deep: deep, Shallow: shallow}
		for _, st := range stages {
			var x, y []float64
			for _, s := range samples {
				if s.Empties < st[0] || s.Empties > st[1] || deep >= len(s.Values) || shallow < 0 {
					continue
				}
				vs, vd := s.Values[shallow], s.Values[deep]
				if math.IsNaN(vs) || math.IsNaN(vd) || IsProven(vs) || IsProven(vd) {
					continue
				}
				x, y = append(x, vs), append(y, vd)
			}
			if len(x) < minFitPoints {
				continue
			}
			a, b, sigma, r, err := FitLinear(x, y)
			if err != nil {
				return ProbCut{}, fmt.Errorf("probcut fit deep %d shallow %d empties %d..%d: %w", deep, shallow, st[0], st[1], err)
			}
			c.Fits = append(c.Fits, LinearFit{MinEmpties: st[0], MaxEmpties: st[1], A: a, B: b, Sigma: sigma, R: r, N: len(x)})
		}
		if len(c.Fits) == 0 {
			return ProbCut{}, fmt.Errorf("probcut fit deep %d shallow %d: no stage has %d positions with both values", deep, shallow, minFitPoints)
		}
		pc.Checks = append(pc.Checks, c)
	}
	return pc, pc.Validate()
}
