// Package games defines the Game/State API every game implements, the
// optional capabilities a game may add, and the registry that builds games
// from specs such as "connect4", "othello:size=6" or "go:size=9,komi=7.5".
//
// The model is OpenSpiel's: a Game is an immutable, shareable description; a
// State is a small mutable position. Actions are dense integers in
// [0, NumActions()), so the size of a policy head is the game's business alone.
// All games here are two-player and zero-sum. Most are deterministic; games
// of chance (backgammon) add chance nodes as OpenSpiel does: a state whose
// CurrentPlayer is ChancePlayer lists its outcomes with their probabilities
// (ChanceState) and the next action is drawn from them, not chosen. Such a
// game implements Stochastic, so that an algorithm that cannot handle chance
// checks once, at construction, with RequireDeterministic. Games of
// imperfect information (poker) hide part of the state from each player:
// they implement Imperfect, their states InformationState (what one player
// knows, as a key, and sampling a full state consistent with it), and an
// algorithm that needs to see the whole state refuses them with
// RequirePerfectInformation.
package games

import (
	"fmt"
	"math/rand/v2"
)

// Game is an immutable description of a game with fixed parameters. It is
// safe for concurrent use.
type Game interface {
	// Name is the canonical spec of the game, parameters included, such that
	// New(g.Name()) builds an equal game (e.g. "othello:size=6").
	Name() string
	// NumActions is the number of distinct actions; every action is an int
	// in [0, NumActions()).
	NumActions() int
	// ObservationShape is the shape of State.Observation: planes, height,
	// width.
	ObservationShape() (planes, height, width int)
	// MaxGameLength is an upper bound on the number of actions in one game.
	MaxGameLength() int
	// NewInitialState returns the starting position.
	NewInitialState() State
}

// State is a position in a game together with whatever history the rules
// need. It is not safe for concurrent use; Clone it to share.
type State interface {
	// Game returns the game this state belongs to.
	Game() Game
	// CurrentPlayer is the player to move: 0 moves first, 1 second, or
	// ChancePlayer at a chance node of a Stochastic game. At a terminal
	// state its value is unspecified.
	CurrentPlayer() int
	// LegalActions appends the legal actions in increasing order to buf[:0]
	// and returns the result. It returns an empty slice exactly when the
	// state is terminal. At a chance node the legal actions are the
	// outcomes (see ChanceState).
	LegalActions(buf []int) []int
	// IsLegal reports whether action a may be played now.
	IsLegal(a int) bool
	// ApplyAction plays action a, which the caller guarantees is legal (the
	// fast path used by search). Use Play at any boundary a person or a
	// file reaches.
	ApplyAction(a int)
	// IsTerminal reports whether the game is over.
	IsTerminal() bool
	// Returns gives the result for players 0 and 1 at a terminal state:
	// +1 win, -1 loss, 0 draw; the two always sum to zero. At a
	// non-terminal state it returns zeros.
	Returns() [2]float64
	// Observation writes the input planes of the network into dst, whose
	// length is planes*height*width of Game().ObservationShape(), from the
	// point of view of the player to move, row-major [plane][row][col].
	Observation(dst []float32)
	// Clone returns an independent copy.
	Clone() State
	// Hash is a 64-bit Zobrist hash of everything that decides the legal
	// moves, the observation and the outcome: equal states have equal hashes.
	Hash() uint64
	// MoveNumber is the number of actions played since the initial state.
	MoveNumber() int
	// String renders the position as text.
	String() string
}

// Symmetric is implemented by games whose rules are invariant under a group of
// board transformations. Symmetry 0 is always the identity. It is used to
// augment training data.
type Symmetric interface {
	// NumSymmetries is the size of the group, identity included.
	NumSymmetries() int
	// TransformAction maps action a through symmetry k.
	TransformAction(k, a int) int
	// TransformObservation writes observation src mapped through symmetry k
	// into dst (same length, not aliased).
	TransformObservation(k int, dst, src []float32)
	// TransformState returns a new state: s mapped through symmetry k.
	TransformState(k int, s State) State
	// Inverse returns the symmetry that undoes k.
	Inverse(k int) int
}

// TransformPolicy writes policy src (one entry per action) mapped through
// symmetry k of g into dst: dst[TransformAction(k,a)] = src[a].
func TransformPolicy(g Symmetric, k int, dst, src []float32) {
	for a, p := range src {
		dst[g.TransformAction(k, a)] = p
	}
}

// Notation is implemented by games with a text notation for moves.
type Notation interface {
	// FormatAction writes action a in the game's notation (e.g. "4" in
	// Connect Four, "f5" in Othello, "D4" in Go).
	FormatAction(a int) string
	// ParseAction reads one move. It checks syntax and range, not legality.
	ParseAction(text string) (int, error)
	// FormatActions writes a whole move sequence (e.g. "4453" in Connect
	// Four, "f5d6c3" in Othello, "D4 C3 pass" in Go).
	FormatActions(actions []int) string
	// ParseActions reads a whole move sequence written by FormatActions (and
	// reasonable variants). It checks syntax, not legality: use Replay.
	ParseActions(text string) ([]int, error)
}

// MoveNotation is implemented by states whose moves can only be written in
// context: in backgammon "8/5 6/5" names an action only once the dice are
// known. FormatMove writes action a, legal in the state (at a chance node:
// an outcome); ParseMove reads one and returns the action, an error naming
// what is wrong otherwise (wrapping ErrIllegalMove for a well-formed move
// that is not legal here).
type MoveNotation interface {
	FormatMove(a int) string
	ParseMove(text string) (int, error)
}

// FormatMove writes action a of state s in the state's notation
// (MoveNotation), else the game's (Notation), else as a number.
func FormatMove(s State, a int) string {
	if m, ok := s.(MoveNotation); ok {
		return m.FormatMove(a)
	}
	if n, ok := s.Game().(Notation); ok {
		return n.FormatAction(a)
	}
	return fmt.Sprint(a)
}

// ParseMove reads one move of state s in the state's notation
// (MoveNotation), else the game's (Notation). It does not check legality
// for games without a MoveNotation: use Play.
func ParseMove(s State, text string) (int, error) {
	if m, ok := s.(MoveNotation); ok {
		return m.ParseMove(text)
	}
	if n, ok := s.Game().(Notation); ok {
		return n.ParseAction(text)
	}
	return 0, fmt.Errorf("game %s has no move notation", s.Game().Name())
}

// Heuristic is implemented by games with a static evaluation function, used by
// depth-limited search at its horizon.
type Heuristic interface {
	// Evaluate scores a non-terminal state from the point of view of the
	// player to move (at a chance node: of ChanceState.NextPlayer), strictly
	// inside (-1, 1), so that any true win (+1) or loss (-1) orders beyond
	// every heuristic score.
	Evaluate(s State) float64
}

// Threats is an optional interface of a State whose immediate tactics can be
// read off the position without search. The MCTS-solver uses it to prove a
// leaf without evaluating it; it must only report what is certain.
type Threats interface {
	// ForcedResult returns +1 when the player to move can win with its next
	// move, -1 when it cannot and cannot stop the opponent from winning with
	// the move after, and 0 otherwise (nothing known, or the game is over).
	ForcedResult() int
}

// Ending is an optional interface of a State where a single known move can
// end the game at once. Go has one: a pass answering a pass ends the game,
// scored as the board stands. The MCTS-solver proves that move's result as
// soon as the position is expanded, so that a search cannot pass into a
// lost count because the network's prior for the opponent's pass was too
// low to visit it (the opponent simply passes back).
type Ending interface {
	// EndingAction returns the action that ends the game at once, or -1
	// when no single action does (none, or several: at a move limit every
	// move ends the game).
	EndingAction() int
}

// Adjudicated is an optional interface of a Game with parameters that only
// end games early by adjudication (chess's maxplies: a draw after that many
// plies) and change neither positions, actions nor observations. RulesName
// returns the game's name without those parameters, so that a network
// trained under one setting plays under any other.
type Adjudicated interface {
	RulesName() string
}

// RulesName returns g.RulesName() when g is Adjudicated, else g.Name().
func RulesName(g Game) string {
	if a, ok := g.(Adjudicated); ok {
		return a.RulesName()
	}
	return g.Name()
}

// ChancePlayer is what State.CurrentPlayer returns at a chance node (as
// OpenSpiel's kChancePlayerId).
const ChancePlayer = -1

// ChanceOutcome is one outcome of a chance node: the action that plays it and
// its probability.
type ChanceOutcome struct {
	Action int
	Prob   float64
}

// Stochastic is implemented by games with chance nodes (dice). Every other
// game is deterministic, and the algorithms written for those refuse a
// Stochastic game at construction (RequireDeterministic).
type Stochastic interface {
	// MaxChanceOutcomes bounds the outcomes: every outcome of every chance
	// node is an action in [0, MaxChanceOutcomes()), which is at most
	// NumActions(), so that Play, IsLegal and ApplyAction take outcomes
	// like any other action.
	MaxChanceOutcomes() int
}

// ChanceState is implemented by the states of a Stochastic game. At a chance
// node CurrentPlayer is ChancePlayer, LegalActions lists the outcomes'
// actions, and ApplyAction of one of them plays that outcome.
type ChanceState interface {
	State
	// IsChanceNode reports whether the next action is drawn by chance.
	IsChanceNode() bool
	// ChanceOutcomes appends the outcomes of a chance node, in increasing
	// order of action, to buf[:0]; their probabilities are positive and sum
	// to 1. At a decision node or a terminal state it returns buf[:0].
	ChanceOutcomes(buf []ChanceOutcome) []ChanceOutcome
	// NextPlayer is the player who moves once the chance event of a chance
	// node has happened (0 or 1); at a decision node it is CurrentPlayer.
	// A Heuristic scores a chance node from this player's point of view.
	NextPlayer() int
}

// HasChance reports whether g has chance nodes.
func HasChance(g Game) bool {
	_, ok := g.(Stochastic)
	return ok
}

// IsChanceNode reports whether s is a chance node (false for every state of
// a deterministic game).
func IsChanceNode(s State) bool {
	cs, ok := s.(ChanceState)
	return ok && cs.IsChanceNode()
}

// RequireDeterministic returns an error naming who and the game when g has
// chance nodes, for the algorithms that cannot handle chance to call once,
// at construction.
func RequireDeterministic(g Game, who string) error {
	if g != nil && HasChance(g) {
		return fmt.Errorf("%s: game %s has chance nodes (dice), which %s cannot handle", who, g.Name(), who)
	}
	return nil
}

// SampleOutcome draws one outcome's action from outcomes (probabilities
// summing to 1) with rng. It returns -1 for an empty list.
func SampleOutcome(outcomes []ChanceOutcome, rng *rand.Rand) int {
	if len(outcomes) == 0 {
		return -1
	}
	u := rng.Float64()
	for _, o := range outcomes {
		if u < o.Prob {
			return o.Action
		}
		u -= o.Prob
	}
	return outcomes[len(outcomes)-1].Action // rounding: u was just below 1
}

// SampleChance draws the outcome of chance node s with rng; it returns an
// error when s is not a chance node.
func SampleChance(s State, rng *rand.Rand) (int, error) {
	cs, ok := s.(ChanceState)
	if !ok || !cs.IsChanceNode() {
		return 0, fmt.Errorf("game %s: sampling chance at a state that is not a chance node", s.Game().Name())
	}
	var buf [64]ChanceOutcome
	return SampleOutcome(cs.ChanceOutcomes(buf[:0]), rng), nil
}

// Outcomer is implemented by the states of board games whose end says more
// than who won: who owns each point of the board and by how much the game
// was won. Self-play records both as auxiliary training targets (KataGo's
// ownership and score targets), which teach the network where and how much
// it is winning, not only whether.
//
// Both are from player 0's point of view and use the game's own scoring,
// the one Returns decides by. At a terminal state they are the result; at
// any other state they are what the scoring rule reads off the board as it
// stands.
type Outcomer interface {
	// FinalOwnership writes into dst, whose length is height*width of
	// Game().ObservationShape(), row-major, the owner of every point: +1
	// player 0, -1 player 1, 0 neither (an empty square, a neutral point).
	FinalOwnership(dst []float32)
	// FinalScore is player 0's margin in the game's unit (points, komi
	// included, in Go; discs in Othello): positive when player 0 wins.
	FinalScore() float64
}

// Imperfect is implemented by games of imperfect information, where players
// see different things (poker: the opponent's cards). Their states implement
// InformationState. An algorithm that assumes the state it is given is what
// the player to move knows calls RequirePerfectInformation once, at
// construction. The model is OpenSpiel's InformationStateString and
// ResampleFromInfostate.
type Imperfect interface {
	// NumPlayers is the number of players (2 for every game here); it is
	// what a solver iterates over to build each player's information
	// states.
	NumPlayers() int
}

// InformationState is implemented by the states of an Imperfect game.
type InformationState interface {
	State
	// InformationStateString describes everything player p (0 or 1) has
	// observed so far: its own private information and every public event,
	// in order. Two states of the same game give equal strings for p
	// exactly when p cannot tell them apart, so the string is the key of
	// p's information set (tabular solvers index their tables by it). It
	// is defined at decision nodes of either player and at chance nodes.
	InformationStateString(p int) string
	// Resample returns a new state that player p cannot tell from this one
	// (equal InformationStateString(p), the same move number and player to
	// move, and, when p is the player to move, the same legal actions),
	// with the information hidden from p drawn by rng according to the
	// chance probabilities alone (not the opponent's strategy). The
	// receiver does not change. When p is not to move, the mover's legal
	// actions may be part of what is hidden from p (phantom games: they
	// are the cells the mover has not yet found taken).
	Resample(p int, rng *rand.Rand) State
}

// Clairvoyant is an optional interface of an InformationState whose whole
// state (everything hidden drawn, as after Resample) is a position of a
// smaller game of perfect information with the same actions, players and
// returns: FullInformationState returns that position, for the algorithms
// that search determinisations with full information (PIMC). An action
// legal here but not there changes nothing a player who sees everything
// cares about: the position stays as it is, with the same player to move
// (in phantom tic-tac-toe a move onto a cell the opponent holds fails and
// the player moves again), so such a player values it as the position.
type Clairvoyant interface {
	FullInformationState() State
}

// HasHiddenInformation reports whether g is a game of imperfect
// information.
func HasHiddenInformation(g Game) bool {
	_, ok := g.(Imperfect)
	return ok
}

// RequirePerfectInformation returns an error naming who and the game when g
// hides information from its players, for the algorithms that read the
// whole state to call once, at construction.
func RequirePerfectInformation(g Game, who string) error {
	if g != nil && HasHiddenInformation(g) {
		return fmt.Errorf("%s: game %s has hidden information, which %s cannot handle", who, g.Name(), who)
	}
	return nil
}

// RequireImperfect returns an error naming who and the game unless g is a
// game of imperfect information whose states implement InformationState,
// for the algorithms (CFR) that work on information states.
func RequireImperfect(g Game, who string) error {
	if g == nil {
		return fmt.Errorf("%s: no game", who)
	}
	if _, ok := g.(Imperfect); !ok {
		return fmt.Errorf("%s: game %s has no information states (games.Imperfect): %s plays games of imperfect information such as kuhn and leduc", who, g.Name(), who)
	}
	if _, ok := g.NewInitialState().(InformationState); !ok {
		return fmt.Errorf("%s: game %s is Imperfect but its states do not implement games.InformationState", who, g.Name())
	}
	return nil
}
