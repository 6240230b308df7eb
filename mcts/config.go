package mcts

import (
	"errors"
	"fmt"
	"math"
	"time"

	"tabula/games"
)

// Ways to pick a chance node's outcome (Config.Chance).
const (
	// ChanceSample draws each visit's outcome by its probability.
	ChanceSample = "sample"
	// ChanceStratified follows a low-discrepancy sequence of outcomes.
	ChanceStratified = "stratified"
)

// Config holds the parameters of PUCT search and of self-play: how each move
// is searched (SearchParams, in a training config's selfplay.search) and how
// self-play games use the searches (PlaySettings, in selfplay.play), as
// KataGo separates SearchParams from PlaySettings. The zero value is not
// valid: start from DefaultConfig and override fields.
type Config struct {
	SearchParams `yaml:"search"`
	PlaySettings `yaml:"play"`
}

// SearchParams sets how one move is searched, in self-play and in match play.
type SearchParams struct {
	// Search is the search algorithm: "puct" (AlphaZero's PUCT, the
	// default; "" means puct) or "gumbel" (Gumbel AlphaZero, Danihelka et
	// al. 2022: Gumbel-top-k sampling and Sequential Halving at the root,
	// deterministic selection by the completed-Q policy below it, and the
	// completed-Q policy as the search's policy). See gumbel.go for what
	// the other settings mean under gumbel.
	Search string `yaml:"algorithm"`
	// GumbelM is the number of root actions Gumbel search considers (m of
	// Gumbel-top-k; fewer when fewer moves are legal).
	GumbelM int `yaml:"gumbel_m"`
	// GumbelCVisit is c_visit of Gumbel search's sigma(q) = (c_visit +
	// max_b N(b)) c_scale q, with q mapped from [-1, 1] to [0, 1].
	GumbelCVisit float64 `yaml:"gumbel_c_visit"`
	// GumbelCScale is c_scale of sigma(q).
	GumbelCScale float64 `yaml:"gumbel_c_scale"`
	// Chance is how a descent picks the outcome of a chance node (the
	// dice): "sample" (the default; "" means sample) draws it by its
	// probability, independently at each visit; "stratified" gives the
	// node's k-th visit the outcome whose share of the cumulative
	// probabilities holds frac(u + k/phi), with u drawn once per node and
	// phi the golden ratio, so each visit's outcome still has the
	// outcome's probability while the first K visits split among the
	// outcomes within about log K of their expected counts (a
	// low-discrepancy sequence: the chance node's mean is a stratified
	// estimate of the expectation, with less variance than K independent
	// draws).
	Chance string `yaml:"chance"`
	// Simulations is the number of playouts of a full search per move.
	Simulations int `yaml:"simulations"`
	// MoveTime, when positive, also stops a search after this much time
	// (a search stops at whichever limit comes first). Self-play ignores it:
	// its searches are bounded by simulations so that runs reproduce.
	MoveTime time.Duration `yaml:"move_time"`
	// CPuct is the exploration constant c_puct of the PUCT formula.
	CPuct float64 `yaml:"c_puct"`
	// FPUReduction is subtracted from a node's value to give the value of
	// its unvisited children (first-play urgency).
	FPUReduction float64 `yaml:"fpu_reduction"`
	// VirtualLoss is the number of lost visits a descent in flight adds to
	// each edge of its path, so that a batch spreads over the tree. With 0,
	// a tree yields one leaf per batch (a second descent would reach the
	// same leaf); self-play still fills batches from its other games.
	VirtualLoss int `yaml:"virtual_loss"`
	// BatchSize is the largest number of leaves sent to one Evaluate call.
	BatchSize int `yaml:"batch_size"`
	// TreeReuse keeps the subtree of the played move for the next search.
	TreeReuse bool `yaml:"tree_reuse"`
	// CountReused makes Simulations and FastSimulations budgets of root
	// visits, those kept by tree reuse included (as KataGo's maxVisits): a
	// search runs only the playouts the kept subtree lacks, and none when it
	// already has enough. Off, every search runs its full number of new
	// playouts on top of the kept ones.
	CountReused bool `yaml:"count_reused"`
	// Solver enables the MCTS-solver: terminal results are propagated up
	// the tree as proven values (a node is won when one child wins for its
	// player, decided when all its children are), a solved node is backed
	// up at its exact value instead of being searched below, children
	// proven lost are no longer visited, a search stops once its root is
	// solved, and the chosen move and the policy target keep to the moves
	// that achieve the proven value. Where the game's states implement
	// games.Threats (Connect Four), a leaf whose next two plies are forced
	// is proven without an evaluation, and a root with a winning move is
	// proven as soon as it is expanded (a 1-2 ply MCTS-minimax hybrid in the
	// manner of Baier and Winands).
	Solver bool `yaml:"solver"`
	// Graph shares statistics across transpositions, Monte-Carlo graph
	// search in the manner of Czech, Korus and Kersting (2021) over the
	// tree's own storage: every node of one position (found by
	// State.Hash) adds its visits and values to one entry, PUCT takes an
	// edge's Q from the entry of the child's position (all its visits,
	// by any path), a leaf whose position was already searched backs up
	// that position's mean value instead of its bare evaluation, and with
	// the solver a position proven once is proven wherever it recurs.
	// Exploration still counts the edge's own visits. Gumbel search shares
	// the leaf values, the proofs and the completed Q. Games with chance
	// nodes are refused (see CheckGame). Off by default.
	Graph bool `yaml:"-"` // a training run sets it from experimental.graph
	// Endgame, above zero, proves exactly every child within Endgame of
	// the end of the game when its parent is expanded (a win, draw or
	// loss, a solved node never evaluated by the network): an exact
	// endgame solver inside the tree, as Othello programs use. It counts
	// empty squares (Othello, up to 16) or cells (Connect Four, up to 20),
	// or, for chess with endgame tables, men on the board (set from the
	// tables); package search/endgame supplies the provers; other games
	// have none.
	// It needs Solver. 0: off.
	Endgame int `yaml:"endgame"`
	// Prover makes the exact prover of each Search, and the one prover a
	// SelfPlay worker's games take turns with (never two goroutines). It is
	// set by the caller for the game (endgame.Configure), not read from
	// YAML, and is required when Endgame is above zero.
	Prover ProverMaker `yaml:"-"`
}

// PlaySettings sets how self-play games use their searches: root noise,
// move temperature, random openings, playout cap randomisation, forced
// playouts and resignation. Match play (Player) uses none of them.
type PlaySettings struct {
	// GumbelNoiseMoves limits self-play's Gumbel noise to the full
	// searches of the first GumbelNoiseMoves moves of a game (counted by
	// the state's MoveNumber); later full searches consider the top m
	// actions by prior and play the survivor without noise, as a match
	// player does, so that the late game's results (the value targets)
	// come from the search's best play rather than from sampled moves.
	// 0: noise on every full search (the paper's self-play).
	GumbelNoiseMoves int `yaml:"-"` // a training run sets it from experimental.gumbel_noise_moves
	// DirichletAlpha is the concentration of the root noise; 0 picks
	// DefaultDirichletAlpha of the game.
	DirichletAlpha float64 `yaml:"dirichlet_alpha"`
	// DirichletEpsilon is the weight of the noise in the root priors; 0
	// disables noise (as in match play).
	DirichletEpsilon float64 `yaml:"dirichlet_epsilon"`
	// TemperatureMoves is the number of opening moves (counted by the
	// state's MoveNumber) chosen with Temperature; later moves use
	// FinalTemperature.
	TemperatureMoves int `yaml:"temperature_moves"`
	// Temperature is the temperature of the opening moves.
	Temperature float64 `yaml:"temperature"`
	// FinalTemperature is the temperature after the opening; 0 plays the
	// most visited move.
	FinalTemperature float64 `yaml:"final_temperature"`
	// RandomOpeningPlies, above zero, starts each self-play game with j
	// uniformly random moves, j drawn uniformly from 0..RandomOpeningPlies
	// (never a move that ends the game), recorded without a policy target:
	// the games then reach the odd positions of random play, which the
	// search's own openings never do. 0: off.
	RandomOpeningPlies int `yaml:"random_opening_plies"`
	// GamesInFlight is the number of games a self-play worker plays at once.
	GamesInFlight int `yaml:"games_in_flight"`
	// PlayoutCap enables KataGo's playout cap randomisation in SelfPlay
	// (Search and Player always run Simulations): a fraction
	// FullSearchFraction of the moves get a full search (Simulations, root
	// noise) and are recorded as policy targets; the others get a fast
	// search of FastSimulations without noise and are not recorded.
	PlayoutCap bool `yaml:"playout_cap"`
	// FullSearchFraction is the probability that a move gets a full search.
	FullSearchFraction float64 `yaml:"full_search_fraction"`
	// FastSimulations is the number of playouts of a fast search.
	FastSimulations int `yaml:"fast_simulations"`
	// ForcedPlayouts enables KataGo's forced playouts at the root of full
	// searches and the pruning of those playouts from the policy target
	// (Player switches it off).
	ForcedPlayouts bool `yaml:"forced_playouts"`
	// ForcedPlayoutK is k in n_forced(c) = sqrt(k P(c) sum_b N(b)).
	ForcedPlayoutK float64 `yaml:"forced_playout_k"`
	// Resign enables resignation in SelfPlay. With Endgame on, a root
	// proven lost is played out instead (its late positions and final
	// margin are the targets the network learns exact play from).
	Resign bool `yaml:"resign"`
	// ResignThreshold: a player resigns when its root value is below it
	// for ResignConsecutive of its own moves in a row. It is on the scale
	// of the game's Returns, and a resignation records the game's worst
	// result, -1: at backgammon:scoring=money (a single game 1/3) that is a
	// backgammon lost, so -0.95 resigns only near-certain backgammons, and a
	// no-resign game that its player would have resigned and lost by less
	// counts as a false resignation (GameRecord.FalseResign).
	ResignThreshold float64 `yaml:"resign_threshold"`
	// ResignConsecutive is the number of consecutive moves below the
	// threshold that trigger resignation.
	ResignConsecutive int `yaml:"resign_consecutive"`
	// NoResignFraction is the fraction of games played to the end whatever
	// the values say, so that the rate of false resignations can be measured.
	NoResignFraction float64 `yaml:"no_resign_fraction"`
}

// DefaultConfig returns settings suited to self-play of small board games.
func DefaultConfig() Config {
	return Config{
		SearchParams: SearchParams{
			Search:       SearchPUCT,
			Chance:       ChanceSample,
			GumbelM:      16,
			GumbelCVisit: 50,
			GumbelCScale: 1,
			Simulations:  200,
			CPuct:        1.5,
			FPUReduction: 0.2,
			VirtualLoss:  1,
			BatchSize:    16,
			TreeReuse:    true,
			Solver:       true,
		},
		PlaySettings: PlaySettings{
			DirichletAlpha:     0,
			DirichletEpsilon:   0.25,
			TemperatureMoves:   8,
			Temperature:        1,
			FinalTemperature:   0,
			GamesInFlight:      32,
			PlayoutCap:         false,
			FullSearchFraction: 0.25,
			FastSimulations:    40,
			ForcedPlayouts:     false,
			ForcedPlayoutK:     2,
			Resign:             false,
			ResignThreshold:    -0.9,
			ResignConsecutive:  3,
			NoResignFraction:   0.1,
		},
	}
}

// Validate checks every field and returns an error naming the first one out
// of range.
func (c Config) Validate() error {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case c.Search != "" && c.Search != SearchPUCT && c.Search != SearchGumbel:
		return fmt.Errorf("mcts: search = %q, want %s or %s", c.Search, SearchPUCT, SearchGumbel)
	case c.Search == SearchGumbel && (c.GumbelM < 1 || c.GumbelM > 1<<16):
		return fmt.Errorf("mcts: gumbel_m = %d, want in [1, 65536]", c.GumbelM)
	case c.Search == SearchGumbel && (!finite(c.GumbelCVisit) || c.GumbelCVisit < 0 || c.GumbelCVisit > 1e6):
		return fmt.Errorf("mcts: gumbel_c_visit = %v, want in [0, 1e6]", c.GumbelCVisit)
	case c.Search == SearchGumbel && (!finite(c.GumbelCScale) || c.GumbelCScale <= 0 || c.GumbelCScale > 1e3):
		return fmt.Errorf("mcts: gumbel_c_scale = %v, want in (0, 1000]", c.GumbelCScale)
	case c.GumbelNoiseMoves < 0:
		return fmt.Errorf("mcts: gumbel_noise_moves = %d, want >= 0 (0: noise on every move)", c.GumbelNoiseMoves)
	case c.Search == SearchGumbel && c.ForcedPlayouts:
		return errors.New("mcts: forced_playouts = true, want false with search = gumbel (a PUCT setting: Sequential Halving allots the root's visits)")
	case c.Chance != "" && c.Chance != ChanceSample && c.Chance != ChanceStratified:
		return fmt.Errorf("mcts: chance = %q, want %s or %s", c.Chance, ChanceSample, ChanceStratified)
	case c.Simulations < 1:
		return fmt.Errorf("mcts: simulations = %d, want >= 1", c.Simulations)
	case c.MoveTime < 0:
		return fmt.Errorf("mcts: move_time = %v, want >= 0", c.MoveTime)
	case !finite(c.CPuct) || c.CPuct <= 0:
		return fmt.Errorf("mcts: c_puct = %v, want > 0", c.CPuct)
	case !finite(c.DirichletAlpha) || c.DirichletAlpha < 0:
		return fmt.Errorf("mcts: dirichlet_alpha = %v, want >= 0 (0: per game default)", c.DirichletAlpha)
	case !(c.DirichletEpsilon >= 0 && c.DirichletEpsilon <= 1):
		return fmt.Errorf("mcts: dirichlet_epsilon = %v, want in [0, 1]", c.DirichletEpsilon)
	case !(c.FPUReduction >= 0 && c.FPUReduction <= 2):
		return fmt.Errorf("mcts: fpu_reduction = %v, want in [0, 2]", c.FPUReduction)
	case c.TemperatureMoves < 0:
		return fmt.Errorf("mcts: temperature_moves = %d, want >= 0", c.TemperatureMoves)
	case c.RandomOpeningPlies < 0 || c.RandomOpeningPlies > 1000:
		return fmt.Errorf("mcts: random_opening_plies = %d, want in [0, 1000] (0: off)", c.RandomOpeningPlies)
	case !(c.Temperature >= 0 && c.Temperature <= 10):
		return fmt.Errorf("mcts: temperature = %v, want in [0, 10]", c.Temperature)
	case !(c.FinalTemperature >= 0 && c.FinalTemperature <= 10):
		return fmt.Errorf("mcts: final_temperature = %v, want in [0, 10]", c.FinalTemperature)
	case c.VirtualLoss < 0 || c.VirtualLoss > 1000:
		return fmt.Errorf("mcts: virtual_loss = %d, want in [0, 1000]", c.VirtualLoss)
	case c.BatchSize < 1 || c.BatchSize > 1<<16:
		return fmt.Errorf("mcts: batch_size = %d, want in [1, 65536]", c.BatchSize)
	case c.GamesInFlight < 1 || c.GamesInFlight > 1<<16:
		return fmt.Errorf("mcts: games_in_flight = %d, want in [1, 65536]", c.GamesInFlight)
	case !(c.FullSearchFraction >= 0 && c.FullSearchFraction <= 1):
		return fmt.Errorf("mcts: full_search_fraction = %v, want in [0, 1]", c.FullSearchFraction)
	case c.PlayoutCap && (c.FastSimulations < 1 || c.FastSimulations > c.Simulations):
		return fmt.Errorf("mcts: fast_simulations = %d, want in [1, simulations=%d] when playout_cap is on", c.FastSimulations, c.Simulations)
	case !finite(c.ForcedPlayoutK) || c.ForcedPlayoutK < 0:
		return fmt.Errorf("mcts: forced_playout_k = %v, want >= 0", c.ForcedPlayoutK)
	case !(c.ResignThreshold >= -1 && c.ResignThreshold <= 1):
		return fmt.Errorf("mcts: resign_threshold = %v, want in [-1, 1]", c.ResignThreshold)
	case c.ResignConsecutive < 1:
		return fmt.Errorf("mcts: resign_consecutive = %d, want >= 1", c.ResignConsecutive)
	case !(c.NoResignFraction >= 0 && c.NoResignFraction <= 1):
		return fmt.Errorf("mcts: no_resign_fraction = %v, want in [0, 1]", c.NoResignFraction)
	case c.Endgame < 0 || c.Endgame > 64:
		return fmt.Errorf("mcts: endgame = %d, want in [0, 64] (0: off)", c.Endgame)
	case c.Endgame > 0 && !c.Solver:
		return fmt.Errorf("mcts: endgame = %d needs solver = true (proven leaves are backed up by the MCTS-solver)", c.Endgame)
	}
	return nil
}

// DefaultDirichletAlpha returns a Dirichlet concentration for the root noise
// of g, chosen from its number of actions in the spirit of AlphaZero's
// alpha ~ 10 / (typical number of legal moves): 1.0 up to 16 actions
// (Connect Four), 0.5 up to 72 (Othello 6x6 and 8x8, Go 7x7), and
// 12 / NumActions beyond (about 0.15 for Go 9x9, 0.03 for Go 19x19).
func DefaultDirichletAlpha(g games.Game) float64 {
	n := g.NumActions()
	switch {
	case n <= 16:
		return 1.0
	case n <= 72:
		return 0.5
	default:
		return 12 / float64(n)
	}
}

// CheckGame reports the settings of c that game g cannot use: graph search
// in a game with chance nodes (the dice decide which position follows, so a
// position's value is an expectation over the rolls that the tree samples;
// merging its nodes is not built).
func CheckGame(c Config, g games.Game) error {
	if c.Graph && games.HasChance(g) {
		return fmt.Errorf("graph = true: %s has chance nodes, which graph search does not handle; use false", g.Name())
	}
	return nil
}
