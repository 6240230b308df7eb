// Package gamestest is the conformance check every game's tests run, in the
// manner of OpenSpiel's RandomSimTest and testing/fstest.TestFS: thousands of
// random games checking the whole State contract, plus the optional
// capabilities (symmetries, notation, heuristic) where a game has them. For a
// game of chance (games.Stochastic) it also checks every chance node: its
// outcomes are valid actions with positive probabilities summing to 1, they
// are its legal actions, sampling them matches the probabilities (a
// chi-square test), and replaying the recorded outcomes is deterministic.
package gamestest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"tabula/games"
)

// Config tunes Check.
type Config struct {
	// Games is the number of random games to play (default 200).
	Games int
	// Seed makes the games reproducible.
	Seed uint64
	// SymmetryRate is the fraction of visited states on which every
	// symmetry is checked (default 0.1).
	SymmetryRate float64
	// Transpositions, when set, also checks that states with equal
	// String() and player to move have equal hashes. Leave it off for
	// games whose String omits history that the rules depend on.
	Transpositions bool
	// SampleChecks is the number of chance nodes (the first ones met) on
	// which sampling is checked against the probabilities, each with
	// ChanceSamples draws (defaults 8 and 20000). Games of chance only.
	SampleChecks  int
	ChanceSamples int
}

// Check plays cfg.Games random games of g and fails t at the first broken
// rule of the Game/State contract, naming the game, the move sequence and
// what is wrong.
func Check(t *testing.T, g games.Game, cfg Config) {
	t.Helper()
	if err := verify(g, cfg); err != nil {
		t.Fatal(err)
	}
}

// verify is Check without the testing.T, so that the checker itself can be
// tested on broken games.
func verify(g games.Game, cfg Config) error {
	if cfg.Games <= 0 {
		cfg.Games = 200
	}
	if cfg.SymmetryRate == 0 {
		cfg.SymmetryRate = 0.1
	}
	if cfg.SampleChecks == 0 {
		cfg.SampleChecks = 8
	}
	if cfg.ChanceSamples <= 0 {
		cfg.ChanceSamples = 20000
	}
	if err := checkGame(g); err != nil {
		return fmt.Errorf("%s: %v", g.Name(), err)
	}
	c := &checker{g: g, cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0x7ab01a)), seen: map[string]uint64{}}
	for i := 0; i < cfg.Games; i++ {
		if err := c.playGame(); err != nil {
			return fmt.Errorf("%s: game %d after moves %v: %v", g.Name(), i, c.history, err)
		}
	}
	return nil
}

// checkGame checks the game-level description.
func checkGame(g games.Game) error {
	planes, h, w := g.ObservationShape()
	if planes < 1 || h < 1 || w < 1 {
		return fmt.Errorf("observation shape %dx%dx%d has a non-positive dimension", planes, h, w)
	}
	if g.NumActions() < 1 {
		return fmt.Errorf("NumActions = %d", g.NumActions())
	}
	if g.MaxGameLength() < 1 {
		return fmt.Errorf("MaxGameLength = %d", g.MaxGameLength())
	}
	g2, err := games.New(g.Name())
	if err != nil {
		return fmt.Errorf("games.New(Name() = %q): %v", g.Name(), err)
	}
	if g2.Name() != g.Name() || g2.NumActions() != g.NumActions() {
		return fmt.Errorf("games.New(%q) built %q with %d actions, want the same game", g.Name(), g2.Name(), g2.NumActions())
	}
	p2, h2, w2 := g2.ObservationShape()
	if p2 != planes || h2 != h || w2 != w {
		return fmt.Errorf("games.New(%q) has a different observation shape", g.Name())
	}
	if st, ok := g.(games.Stochastic); ok {
		if m := st.MaxChanceOutcomes(); m < 1 || m > g.NumActions() {
			return fmt.Errorf("MaxChanceOutcomes = %d, want 1..NumActions (%d)", m, g.NumActions())
		}
		if _, ok := g.NewInitialState().(games.ChanceState); !ok {
			return errors.New("a Stochastic game whose states do not implement games.ChanceState")
		}
	}
	if s, ok := g.(games.Symmetric); ok {
		if err := checkGroup(g, s); err != nil {
			return err
		}
	}
	if n, ok := g.(games.Notation); ok {
		for a := 0; a < g.NumActions(); a++ {
			text := n.FormatAction(a)
			b, err := n.ParseAction(text)
			if err != nil || b != a {
				return fmt.Errorf("notation: ParseAction(FormatAction(%d) = %q) = %d, %v", a, text, b, err)
			}
		}
		if _, err := n.ParseAction(""); err == nil {
			return errors.New("notation: ParseAction(\"\") returned no error")
		}
	}
	return nil
}

// checkGroup checks that the symmetries act on actions as a group:
// identity first, each a permutation, inverses undo, closed under composition.
func checkGroup(g games.Game, s games.Symmetric) error {
	n, na := s.NumSymmetries(), g.NumActions()
	if n < 1 {
		return fmt.Errorf("NumSymmetries = %d", n)
	}
	perms := make([][]int, n)
	for k := 0; k < n; k++ {
		perm := make([]int, na)
		hit := make([]bool, na)
		for a := 0; a < na; a++ {
			b := s.TransformAction(k, a)
			if b < 0 || b >= na || hit[b] {
				return fmt.Errorf("symmetry %d is not a permutation of actions (action %d -> %d)", k, a, b)
			}
			hit[b] = true
			perm[a] = b
			if k == 0 && b != a {
				return fmt.Errorf("symmetry 0 is not the identity: %d -> %d", a, b)
			}
		}
		perms[k] = perm
		inv := s.Inverse(k)
		if inv < 0 || inv >= n {
			return fmt.Errorf("Inverse(%d) = %d out of range", k, inv)
		}
		for a := 0; a < na; a++ {
			if s.TransformAction(inv, perm[a]) != a {
				return fmt.Errorf("Inverse(%d) = %d does not undo it on action %d", k, inv, a)
			}
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			comp := make([]int, na)
			for a := range comp {
				comp[a] = perms[j][perms[i][a]]
			}
			found := false
			for k := 0; k < n && !found; k++ {
				found = slices.Equal(comp, perms[k])
			}
			if !found {
				return fmt.Errorf("symmetries are not closed: %d then %d is none of them", i, j)
			}
		}
	}
	return nil
}

type checker struct {
	g       games.Game
	cfg     Config
	rng     *rand.Rand
	history []int
	seen    map[string]uint64
	buf     []int
	sampled int // chance nodes whose sampling was checked
}

func (c *checker) playGame() error {
	g := c.g
	c.history = c.history[:0]
	s := g.NewInitialState()
	if s.MoveNumber() != 0 {
		return fmt.Errorf("initial MoveNumber = %d", s.MoveNumber())
	}
	if s.IsTerminal() {
		return errors.New("initial state is terminal")
	}
	for {
		if err := c.checkState(s); err != nil {
			return err
		}
		if s.IsTerminal() {
			break
		}
		if len(c.history) >= g.MaxGameLength() {
			return fmt.Errorf("game longer than MaxGameLength %d", g.MaxGameLength())
		}
		legal := s.LegalActions(c.buf[:0])
		c.buf = legal
		if err := c.checkIllegal(s, legal); err != nil {
			return err
		}
		a := legal[c.rng.IntN(len(legal))]
		if games.IsChanceNode(s) {
			var err error
			if a, err = games.SampleChance(s, c.rng); err != nil {
				return err
			}
		}
		before := s.MoveNumber()
		if c.rng.IntN(2) == 0 {
			s.ApplyAction(a)
		} else if err := games.Play(s, a); err != nil {
			return fmt.Errorf("Play(%d) of a legal action: %v", a, err)
		}
		c.history = append(c.history, a)
		if s.MoveNumber() != before+1 {
			return fmt.Errorf("MoveNumber went from %d to %d", before, s.MoveNumber())
		}
	}
	return c.checkReplay(s)
}

// checkState checks one state's invariants.
func (c *checker) checkState(s games.State) error {
	g := c.g
	if s.Game().Name() != g.Name() {
		return fmt.Errorf("State.Game() is %q", s.Game().Name())
	}
	legal := s.LegalActions(make([]int, 0, 4))
	if (len(legal) == 0) != s.IsTerminal() {
		return fmt.Errorf("%d legal actions but IsTerminal = %v", len(legal), s.IsTerminal())
	}
	for i, a := range legal {
		if a < 0 || a >= g.NumActions() {
			return fmt.Errorf("legal action %d out of range", a)
		}
		if i > 0 && legal[i-1] >= a {
			return fmt.Errorf("legal actions not strictly increasing: %v", legal)
		}
	}
	j := 0
	for a := 0; a < g.NumActions(); a++ {
		in := j < len(legal) && legal[j] == a
		if in {
			j++
		}
		if s.IsLegal(a) != in {
			return fmt.Errorf("IsLegal(%d) = %v but LegalActions = %v", a, !in, legal)
		}
	}
	r := s.Returns()
	if s.IsTerminal() {
		if r[0]+r[1] != 0 || math.Abs(r[0]) > 1 {
			return fmt.Errorf("terminal returns %v are not zero-sum in [-1, 1]", r)
		}
	} else {
		if r != [2]float64{} {
			return fmt.Errorf("non-terminal returns %v, want zeros", r)
		}
		if p := s.CurrentPlayer(); p != 0 && p != 1 && !(p == games.ChancePlayer && games.IsChanceNode(s)) {
			return fmt.Errorf("CurrentPlayer = %d", p)
		}
	}
	if err := c.checkChance(s, legal); err != nil {
		return err
	}
	obs, err := c.observation(s)
	if err != nil {
		return err
	}
	// Clone is independent and equal.
	cl := s.Clone()
	if cl.Hash() != s.Hash() || cl.String() != s.String() || cl.MoveNumber() != s.MoveNumber() {
		return errors.New("clone differs from the original")
	}
	if !s.IsTerminal() {
		h, str := s.Hash(), s.String()
		cl.ApplyAction(legal[c.rng.IntN(len(legal))])
		if s.Hash() != h || s.String() != str || !slices.Equal(s.LegalActions(nil), legal) {
			return errors.New("applying a move to a clone changed the original")
		}
	}
	if c.cfg.Transpositions {
		key := fmt.Sprintf("%d|%v|%s", s.CurrentPlayer(), s.IsTerminal(), s.String())
		if h, ok := c.seen[key]; ok && h != s.Hash() {
			return fmt.Errorf("equal states with different hashes %x and %x:\n%s", h, s.Hash(), s.String())
		}
		if len(c.seen) < 200000 {
			c.seen[key] = s.Hash()
		}
	}
	if h, ok := c.g.(games.Heuristic); ok && !s.IsTerminal() {
		v := h.Evaluate(s)
		if !(v > -1 && v < 1) {
			return fmt.Errorf("heuristic %v is not strictly inside (-1, 1)", v)
		}
	}
	if sym, ok := c.g.(games.Symmetric); ok && c.rng.Float64() < c.cfg.SymmetryRate {
		if err := c.checkSymmetries(sym, s, legal, obs); err != nil {
			return err
		}
	}
	return nil
}

// checkChance checks the chance side of a state: CurrentPlayer is
// ChancePlayer exactly at chance nodes, whose outcomes are valid, sum to 1,
// equal the legal actions and (for the first few) sample as they say.
func (c *checker) checkChance(s games.State, legal []int) error {
	cs, ok := s.(games.ChanceState)
	if !ok {
		return nil
	}
	st, ok := c.g.(games.Stochastic)
	if !ok {
		if cs.IsChanceNode() {
			return errors.New("a chance node in a game that does not implement games.Stochastic")
		}
		return nil
	}
	outs := cs.ChanceOutcomes(nil)
	if !cs.IsChanceNode() || s.IsTerminal() {
		if len(outs) != 0 {
			return fmt.Errorf("%d chance outcomes at a state that is not a chance node", len(outs))
		}
		if !s.IsTerminal() && cs.NextPlayer() != s.CurrentPlayer() {
			return fmt.Errorf("NextPlayer = %d at a decision node of player %d", cs.NextPlayer(), s.CurrentPlayer())
		}
		if s.CurrentPlayer() == games.ChancePlayer && !s.IsTerminal() {
			return errors.New("CurrentPlayer is ChancePlayer at a state that is not a chance node")
		}
		return nil
	}
	if s.IsTerminal() {
		return errors.New("a terminal state is a chance node")
	}
	if s.CurrentPlayer() != games.ChancePlayer {
		return fmt.Errorf("CurrentPlayer = %d at a chance node, want ChancePlayer", s.CurrentPlayer())
	}
	if p := cs.NextPlayer(); p != 0 && p != 1 {
		return fmt.Errorf("NextPlayer = %d at a chance node", p)
	}
	if len(outs) == 0 {
		return errors.New("a chance node with no outcomes")
	}
	sum := 0.0
	for i, o := range outs {
		if o.Action < 0 || o.Action >= st.MaxChanceOutcomes() {
			return fmt.Errorf("chance outcome %d outside [0, MaxChanceOutcomes = %d)", o.Action, st.MaxChanceOutcomes())
		}
		if i > 0 && outs[i-1].Action >= o.Action {
			return fmt.Errorf("chance outcomes not strictly increasing: %v", outs)
		}
		if !(o.Prob > 0 && o.Prob <= 1) {
			return fmt.Errorf("chance outcome %d has probability %v", o.Action, o.Prob)
		}
		sum += o.Prob
	}
	if math.Abs(sum-1) > 1e-9 {
		return fmt.Errorf("chance probabilities sum to %v, want 1", sum)
	}
	if len(legal) != len(outs) {
		return fmt.Errorf("legal actions %v differ from the chance outcomes %v", legal, outs)
	}
	for i, o := range outs {
		if legal[i] != o.Action {
			return fmt.Errorf("legal actions %v differ from the chance outcomes %v", legal, outs)
		}
	}
	if c.sampled < c.cfg.SampleChecks {
		c.sampled++
		return c.checkSampling(s, outs)
	}
	return nil
}

// checkSampling draws ChanceSamples outcomes of chance node s with
// games.SampleChance and fails when a chi-square test rejects the stated
// probabilities at a significance of about 1e-6 (or an outcome not listed
// is drawn). The state must not change.
func (c *checker) checkSampling(s games.State, outs []games.ChanceOutcome) error {
	h := s.Hash()
	n := c.cfg.ChanceSamples
	counts := make(map[int]int, len(outs))
	for i := 0; i < n; i++ {
		a, err := games.SampleChance(s, c.rng)
		if err != nil {
			return err
		}
		counts[a]++
	}
	if s.Hash() != h {
		return errors.New("sampling a chance node changed the state")
	}
	chi2 := 0.0
	for _, o := range outs {
		want := o.Prob * float64(n)
		d := float64(counts[o.Action]) - want
		chi2 += d * d / want
		delete(counts, o.Action)
	}
	for a := range counts {
		return fmt.Errorf("sampling drew %d, which is not an outcome of %v", a, outs)
	}
	if df := len(outs) - 1; df > 0 {
		if limit := chiSquareQuantile(df, 4.753); chi2 > limit {
			return fmt.Errorf("sampling %d outcomes: chi-square %.1f with %d degrees of freedom exceeds %.1f (p < 1e-6): the draws do not match the probabilities", n, chi2, df, limit)
		}
	}
	return nil
}

// chiSquareQuantile approximates the chi-square quantile with df degrees of
// freedom at the normal quantile z (Wilson and Hilferty, 1931).
func chiSquareQuantile(df int, z float64) float64 {
	k := float64(df)
	t := 1 - 2/(9*k) + z*math.Sqrt(2/(9*k))
	return k * t * t * t
}

// observation checks the observation's size and that it overwrites dst.
func (c *checker) observation(s games.State) ([]float32, error) {
	p, h, w := c.g.ObservationShape()
	n := p * h * w
	a := make([]float32, n)
	b := make([]float32, n)
	for i := range b {
		b[i] = float32(math.NaN())
	}
	s.Observation(a)
	s.Observation(b)
	for i := range a {
		if a[i] != b[i] {
			return nil, fmt.Errorf("observation entry %d depends on dst's old contents (or is NaN)", i)
		}
	}
	return a, nil
}

func (c *checker) checkSymmetries(sym games.Symmetric, s games.State, legal []int, obs []float32) error {
	want := make([]float32, len(obs))
	got := make([]float32, len(obs))
	for k := 0; k < sym.NumSymmetries(); k++ {
		t := sym.TransformState(k, s)
		if t.IsTerminal() != s.IsTerminal() || t.Returns() != s.Returns() || t.MoveNumber() != s.MoveNumber() {
			return fmt.Errorf("symmetry %d changed terminal status, returns or move number", k)
		}
		if !s.IsTerminal() && t.CurrentPlayer() != s.CurrentPlayer() {
			return fmt.Errorf("symmetry %d changed the player to move", k)
		}
		tl := t.LegalActions(nil)
		mapped := make([]int, len(legal))
		for i, a := range legal {
			mapped[i] = sym.TransformAction(k, a)
		}
		slices.Sort(mapped)
		if !slices.Equal(tl, mapped) {
			return fmt.Errorf("symmetry %d: legal actions %v, want the mapped %v", k, tl, mapped)
		}
		sym.TransformObservation(k, want, obs)
		t.Observation(got)
		if !slices.Equal(got, want) {
			return fmt.Errorf("symmetry %d: observation of the transformed state differs from the transformed observation", k)
		}
		if k == 0 && t.Hash() != s.Hash() {
			return errors.New("symmetry 0 changed the hash")
		}
	}
	return nil
}

// checkIllegal checks that the checked path refuses every illegal action
// (and out-of-range ones) without changing the state.
func (c *checker) checkIllegal(s games.State, legal []int) error {
	h, n := s.Hash(), s.MoveNumber()
	try := func(a int) error {
		err := games.Play(s, a)
		if err == nil {
			return fmt.Errorf("Play(%d) of an illegal action returned nil", a)
		}
		if !errors.Is(err, games.ErrIllegalMove) {
			return fmt.Errorf("Play(%d) error %v does not wrap ErrIllegalMove", a, err)
		}
		if s.Hash() != h || s.MoveNumber() != n {
			return fmt.Errorf("refused Play(%d) changed the state", a)
		}
		return nil
	}
	for _, a := range []int{-1, c.g.NumActions()} {
		if err := try(a); err != nil {
			return err
		}
	}
	// A few illegal in-range actions, if any.
	for i := 0; i < 3; i++ {
		a := c.rng.IntN(c.g.NumActions())
		if _, found := slices.BinarySearch(legal, a); !found {
			if err := try(a); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkReplay replays the finished game from scratch (and through the
// notation, if any) and checks it reaches the same state.
func (c *checker) checkReplay(end games.State) error {
	r, err := games.Replay(c.g, c.history)
	if err != nil {
		return fmt.Errorf("replaying the game: %v", err)
	}
	if r.Hash() != end.Hash() || r.String() != end.String() || !r.IsTerminal() {
		return errors.New("replaying the same moves reached a different state")
	}
	if err := games.Play(r, 0); err == nil {
		return errors.New("games.Play after the end of the game returned nil")
	}
	if n, ok := c.g.(games.Notation); ok {
		text := n.FormatActions(c.history)
		s, actions, err := games.ParseAndReplay(c.g, text)
		if err != nil {
			return fmt.Errorf("notation round trip of %q: %v", text, err)
		}
		if !slices.Equal(actions, c.history) || s.Hash() != end.Hash() {
			return fmt.Errorf("notation round trip of %q gave other moves %v", text, actions)
		}
	}
	return nil
}
