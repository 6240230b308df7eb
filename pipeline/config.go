package pipeline

import (
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	"gopkg.in/yaml.v3"

	"tabula/elo"
	"tabula/games"
	"tabula/mcts"
	"tabula/nn"
	"tabula/nn/train"
	"tabula/players"
	"tabula/replay"
	"tabula/search/endgame"
)

// Config is a whole training run: one YAML file under configs/. Every
// package's section has its own defaults and Validate; Load decodes strictly.
type Config struct {
	// Game is the game spec, e.g. "connect4", "othello:size=6", "go:size=9".
	Game string `yaml:"game"`
	// Seed makes the run reproducible (network initialisation, self-play
	// noise, sampling).
	Seed uint64 `yaml:"seed"`
	// RunDir holds everything the run writes; restarting with the same
	// folder resumes.
	RunDir string `yaml:"run_dir"`
	// Duration stops this process after this much wall time (0: no limit);
	// a resumed run gets the whole duration again.
	Duration time.Duration `yaml:"duration"`
	// Iterations stops the run after this many iterations (0: no limit).
	Iterations int `yaml:"iterations"`
	// KeepCheckpoints is how many of the latest iteration checkpoints are
	// kept; older ones are deleted unless they were ever promoted to best
	// (0: keep all).
	KeepCheckpoints int `yaml:"keep_checkpoints"`
	// Init starts a new run from a network instead of random weights: a
	// checkpoint or weights file (another run's best-weights.tbn), or
	// model:NAME, a shipped network (models/manifest.json). Its game and
	// network shape must be the config's. The run records the file and its
	// SHA-256 in every checkpoint; a run that already has checkpoints
	// resumes from them and does not read Init again.
	Init string `yaml:"init"`

	Network   nn.Config       `yaml:"network"`
	Evaluator EvaluatorConfig `yaml:"evaluator"`
	SelfPlay  SelfPlayConfig  `yaml:"selfplay"`
	Replay    replay.Config   `yaml:"replay"`
	Train     TrainConfig     `yaml:"train"`
	Gate      GateConfig      `yaml:"gate"`
	Ladder    LadderConfig    `yaml:"ladder"`
	Bench     BenchConfig     `yaml:"bench"`
	Bus       BusConfig       `yaml:"bus"`
	// Experimental holds switches that are off by default and were measured
	// no better than without them (docs/methods.md); Parse copies them into
	// the sections they act on.
	Experimental ExperimentalConfig `yaml:"experimental"`

	// Warnings are the notes Parse has for the config's reader: keys of an
	// older layout that it moved to their current place.
	Warnings []string `yaml:"-"`
}

// EvaluatorConfig sets how self-play runs the network.
type EvaluatorConfig struct {
	// CacheSize is the number of evaluation results cached by position,
	// shared by a process's self-play workers; 0: no cache.
	CacheSize int `yaml:"cache_size"`
	// Precision is the arithmetic of the residual tower: fp32, bf16, int8,
	// or auto (the fastest with native kernels on this CPU that passes the
	// accuracy check against FP32; nn.NewModelFor).
	Precision string `yaml:"precision"`
}

// NN is the evaluator config of package nn with these settings.
func (c EvaluatorConfig) NN() nn.EvaluatorConfig {
	ec := nn.DefaultEvaluatorConfig()
	ec.CacheSize, ec.Precision = c.CacheSize, c.Precision
	return ec
}

// ExperimentalConfig holds the switches of experiments that are off by
// default: each was built, tested and measured no better than the default
// on this project's runs (docs/methods.md has each one's figure).
type ExperimentalConfig struct {
	// Graph shares statistics and proofs across transpositions
	// (mcts.SearchParams.Graph).
	Graph bool `yaml:"graph"`
	// WDL makes the value head predict win, draw and loss (nn.Config.WDL).
	WDL bool `yaml:"wdl"`
	// OpponentPolicy adds the opponent-policy head (nn.Config.OpponentPolicy).
	OpponentPolicy bool `yaml:"opponent_policy"`
	// ValueTargetMix is the weight of the search in the value target
	// (SelfPlayConfig.ValueTargetMix).
	ValueTargetMix float64 `yaml:"value_target_mix"`
	// GumbelNoiseMoves limits Gumbel noise to the first moves of a game
	// (mcts.PlaySettings.GumbelNoiseMoves).
	GumbelNoiseMoves int `yaml:"gumbel_noise_moves"`
}

// SelfPlayConfig sets how games are generated each iteration.
type SelfPlayConfig struct {
	// Workers is the number of self-play goroutines, each with its own
	// network batches. Self-play runs all the time, beside training and
	// gating; 0 means one per CPU core less one (at least one), leaving a
	// core to the trainer.
	Workers int `yaml:"workers"`
	// GamesPerRound is how many games the workers play between two looks
	// at the best network (a new best takes over at the next round).
	GamesPerRound int `yaml:"games_per_round"`
	// ChunkGames is how many finished games go into one replay chunk file:
	// at most this many games are lost when the process is killed.
	ChunkGames int `yaml:"chunk_games"`
	// Records, when on, keeps every finished self-play game (and the
	// gating games) as a move list with its metadata in the run folder's
	// records/ folder (replay.GameRecord), chunk_games games a file.
	Records bool `yaml:"records"`
	// MCTS configures self-play's searches: how each move is searched
	// (selfplay.search) and how the games use the searches (selfplay.play).
	MCTS mcts.Config `yaml:",inline"`
	// ValueTargetMix is the weight of the search in the value target:
	// (1-mix)*z + mix*q, z the game's result and q the root value of the
	// position's search, both for the player to move. 0 trains on z alone.
	// Parse sets it from experimental.value_target_mix.
	ValueTargetMix float64 `yaml:"-"`
	// OpponentTargets records the opponent-policy target of every example
	// (replay.Example.OppPolicy). It is not a key: Parse sets it from
	// experimental.opponent_policy, so that self-play stores the targets only
	// for a network that learns from them.
	OpponentTargets bool `yaml:"-"`
}

// TrainConfig sets the trainer and how much it trains per iteration.
type TrainConfig struct {
	train.Config `yaml:",inline"`
	// StepsPerIteration is the number of minibatch steps between two
	// checkpoints (and gating matches). Training waits for new self-play
	// data whenever replay.max_reuse would be exceeded.
	StepsPerIteration int `yaml:"steps_per_iteration"`
	// MinExamples is the number of examples the window must hold before
	// the first training step.
	MinExamples int `yaml:"min_examples"`
	// BLAS is the matrix library gorgonia trains with: "tabula" (our
	// SGEMM) or "gonum".
	BLAS string `yaml:"blas"`
}

// GateConfig decides whether a new network replaces the best.
type GateConfig struct {
	// Games is the largest number of games a gating match plays (colours
	// alternate); SPRT may stop earlier.
	Games int `yaml:"games"`
	// Simulations is the PUCT budget per move in gating games.
	Simulations int `yaml:"simulations"`
	// Method is "sprt" (elo.SPRT on the match so far) or "winrate"
	// (score >= Threshold after all games).
	Method string `yaml:"method"`
	// Threshold is the score (wins + draws/2 over games) needed with
	// method winrate.
	Threshold float64 `yaml:"threshold"`
	// SPRT holds the hypotheses and error rates used with method sprt.
	SPRT elo.SPRT `yaml:"sprt"`
	// RandomPlies opens every gating game with this many uniformly random
	// moves, so that the deterministic players do not repeat one game.
	RandomPlies int `yaml:"random_plies"`
}

// LadderConfig rates the best network against fixed players now and then,
// so the run's Elo is on a stable scale.
type LadderConfig struct {
	// Every is the number of iterations between ladder matches (0: never).
	Every int `yaml:"every"`
	// Players are the fixed opponents, as player specs (package players); the first is
	// the anchor at Elo 0.
	Players []string `yaml:"players"`
	// Games is the number of games against each opponent.
	Games int `yaml:"games"`
	// Simulations is the network's PUCT budget per move.
	Simulations int `yaml:"simulations"`
	// RandomPlies opens every ladder game with this many random moves.
	RandomPlies int `yaml:"random_plies"`
}

// BenchConfig measures the best network's mistake rate on Pons' Connect Four
// test sets (../shared/refdata/connect4) now and then.
type BenchConfig struct {
	// Every is the number of iterations between benchmarks (0: never).
	Every int `yaml:"every"`
	// Sets names the test files, e.g. Test_L1_R1.
	Sets []string `yaml:"sets"`
	// Positions is how many positions of each set are used (the first N).
	Positions int `yaml:"positions"`
	// Simulations is the network's PUCT budget per move.
	Simulations int `yaml:"simulations"`
	// Dir is the folder of the test sets; empty means ../shared/refdata/connect4.
	Dir string `yaml:"dir"`
	// Verdicts is a folder of the solver's verdicts shipped with the
	// repository (<set>.json, data/connect4/verdicts relative to the working
	// directory by default): where one covers a set's positions the run
	// takes it instead of solving them (minutes for the early sets). A
	// missing folder or file only means solving.
	Verdicts string `yaml:"verdicts"`
}

// BusConfig sets the data plane (NATS JetStream, package bus) that carries
// finished games from every self-play process to the trainer, and the best
// network back. Where the server is (embedded, -listen, -nats) is a matter
// of command-line flags, not of the config.
type BusConfig struct {
	// Run names the run on the NATS server: its game stream, checkpoint
	// store and best pointer. Workers join with the same name (cmd/selfplay
	// -bus-run); runs sharing one NATS server need different names.
	Run string `yaml:"run"`
	// MaxStaleGenerations: a game played by a network more than this many
	// best-network generations (promotions by gating) behind the current
	// best is dropped, not trained on; the worker that played it says so.
	MaxStaleGenerations int `yaml:"max_stale_generations"`
	// MaxBytes bounds the game stream on the server: beyond it the oldest
	// games are discarded, ingested or not.
	MaxBytes int64 `yaml:"max_bytes"`
	// MaxAge discards games older than this from the stream, ingested or
	// not: the longest a trainer may stay away without losing games.
	MaxAge time.Duration `yaml:"max_age"`
}

// DefaultConfig is a Connect Four run with settings sized for a 2-core machine.
func DefaultConfig() Config {
	sp := mcts.DefaultConfig()
	sp.Simulations = 100
	tc := train.DefaultConfig()
	return Config{
		Game:            "connect4",
		Seed:            1,
		RunDir:          "runs/connect4",
		KeepCheckpoints: 10,
		Network:         nn.DefaultConfig(),
		Evaluator:       EvaluatorConfig{CacheSize: 1 << 16},
		SelfPlay:        SelfPlayConfig{Workers: 0, GamesPerRound: 100, ChunkGames: 10, MCTS: sp},
		Replay:          replay.DefaultConfig(),
		Train:           TrainConfig{Config: tc, StepsPerIteration: 100, MinExamples: 2000, BLAS: train.BLASTabula},
		Gate: GateConfig{Games: 40, Simulations: 50, Method: "sprt", Threshold: 0.55, RandomPlies: 4,
			SPRT: elo.SPRT{Elo0: 0, Elo1: 35, Alpha: 0.05, Beta: 0.05}},
		Ladder: LadderConfig{Every: 5, Players: []string{"random", "alphabeta:depth=3", "mcts:rollouts=200"},
			Games: 20, Simulations: 100, RandomPlies: 2},
		Bench: BenchConfig{Every: 5, Sets: []string{"Test_L1_R1", "Test_L2_R1"}, Positions: 100, Simulations: 100, Verdicts: "data/connect4/verdicts"},
		Bus:   BusConfig{Run: "tabula", MaxStaleGenerations: 2, MaxBytes: 1 << 30, MaxAge: 7 * 24 * time.Hour},
	}
}

// Validate checks every section and names the first bad field by its YAML
// path.
func (c *Config) Validate() error {
	g, err := games.New(c.Game)
	if err != nil {
		return bad("game", "game: %v", err)
	}
	switch {
	case c.RunDir == "":
		return bad("run_dir", "run_dir: must not be empty")
	case c.Duration < 0:
		return bad("duration", "duration = %v, want >= 0 (0: no limit)", c.Duration)
	case c.Iterations < 0:
		return bad("iterations", "iterations = %d, want >= 0 (0: no limit)", c.Iterations)
	case c.KeepCheckpoints < 0:
		return bad("keep_checkpoints", "keep_checkpoints = %d, want >= 0 (0: keep all)", c.KeepCheckpoints)
	}
	if err := c.Network.Validate(); err != nil {
		return inSection("network", err)
	}
	if c.Network.OpponentPolicy && games.HasChance(g) {
		return bad("experimental.opponent_policy", "experimental.opponent_policy: %s rolls dice between the players' moves, so no move has the opponent's reply to learn from; drop the key", g.Name())
	}
	if err := c.Evaluator.NN().Validate(); err != nil {
		return inSection("evaluator", err)
	}
	sp := c.SelfPlay
	switch {
	case sp.Workers < 0 || sp.Workers > 256:
		return bad("selfplay.workers", "selfplay.workers = %d, want 0..256 (0: one per core)", sp.Workers)
	case sp.GamesPerRound < 1:
		return bad("selfplay.games_per_round", "selfplay.games_per_round = %d, want >= 1", sp.GamesPerRound)
	case sp.ChunkGames < 1:
		return bad("selfplay.chunk_games", "selfplay.chunk_games = %d, want >= 1", sp.ChunkGames)
	case !(sp.ValueTargetMix >= 0 && sp.ValueTargetMix <= 1):
		return bad("experimental.value_target_mix", "experimental.value_target_mix = %v, want 0..1 (0: the game result, 1: the root's search value)", sp.ValueTargetMix)
	}
	if err := sp.MCTS.Validate(); err != nil {
		return mctsError(err)
	}
	if err := mcts.CheckGame(sp.MCTS, g); err != nil {
		return bad("experimental.graph", "experimental.%v", err)
	}
	if mc := sp.MCTS; mc.Endgame > 0 {
		if err := endgame.Configure(&mc, g); err != nil {
			return bad("selfplay.search.endgame", "selfplay.search.%v", err)
		}
	}
	if err := c.Replay.Validate(); err != nil {
		return inSection("replay", err)
	}
	if err := c.Train.Config.Validate(); err != nil {
		return inSection("train", err)
	}
	switch {
	case c.Train.BLAS != train.BLASTabula && c.Train.BLAS != train.BLASGonum:
		return bad("train.blas", "train.blas = %q, want %q or %q", c.Train.BLAS, train.BLASTabula, train.BLASGonum)
	case c.Train.Schedule == "timed" && c.Duration == 0:
		return bad("train.schedule|duration", "train.schedule = timed drops the learning rate at train.drop_at (%v) of the duration: set duration (it is 0: no limit)", c.Train.DropAt)
	case c.Train.StepsPerIteration < 1:
		return bad("train.steps_per_iteration", "train.steps_per_iteration = %d, want >= 1", c.Train.StepsPerIteration)
	case c.Train.MinExamples < c.Train.BatchSize:
		return bad("train.min_examples|train.batch_size", "train.min_examples = %d, want >= train.batch_size (%d)", c.Train.MinExamples, c.Train.BatchSize)
	case c.Train.MinExamples > c.Replay.Window:
		return bad("train.min_examples|replay.window", "train.min_examples = %d, want <= replay.window (%d)", c.Train.MinExamples, c.Replay.Window)
	}
	gt := c.Gate
	switch {
	case gt.Games < 0:
		return bad("gate.games", "gate.games = %d, want >= 0 (0: every new network becomes the best)", gt.Games)
	case gt.Simulations < 1:
		return bad("gate.simulations", "gate.simulations = %d, want >= 1", gt.Simulations)
	case gt.Method != "sprt" && gt.Method != "winrate":
		return bad("gate.method", "gate.method = %q, want \"sprt\" or \"winrate\"", gt.Method)
	case !(gt.Threshold >= 0 && gt.Threshold <= 1):
		return bad("gate.threshold", "gate.threshold = %v, want in [0, 1]", gt.Threshold)
	case gt.RandomPlies < 0 || gt.RandomPlies >= g.MaxGameLength():
		return bad("gate.random_plies", "gate.random_plies = %d, want 0..%d (a game of %s lasts at most %d plies)", gt.RandomPlies, g.MaxGameLength()-1, g.Name(), g.MaxGameLength())
	}
	if gt.Method == "sprt" {
		if err := gt.SPRT.Validate(); err != nil {
			return inSection("gate.sprt", err)
		}
	}
	ld := c.Ladder
	switch {
	case ld.Every < 0:
		return bad("ladder.every", "ladder.every = %d, want >= 0 (0: never)", ld.Every)
	case ld.Every > 0 && len(ld.Players) == 0:
		return bad("ladder.players", "ladder.players: empty, want at least one player spec when ladder.every > 0")
	case ld.Every > 0 && ld.Games < 1:
		return bad("ladder.games", "ladder.games = %d, want >= 1", ld.Games)
	case ld.Every > 0 && ld.Simulations < 1:
		return bad("ladder.simulations", "ladder.simulations = %d, want >= 1", ld.Simulations)
	case ld.RandomPlies < 0 || ld.RandomPlies >= g.MaxGameLength():
		return bad("ladder.random_plies", "ladder.random_plies = %d, want 0..%d (a game of %s lasts at most %d plies)", ld.RandomPlies, g.MaxGameLength()-1, g.Name(), g.MaxGameLength())
	}
	for i, p := range ld.Players {
		if _, err := players.ParseSpec(p); err != nil {
			return bad("ladder.players", "ladder.players[%d]: %v", i, err)
		}
	}
	bc := c.Bench
	switch {
	case bc.Every < 0:
		return bad("bench.every", "bench.every = %d, want >= 0 (0: never)", bc.Every)
	case bc.Every > 0 && !strings.HasPrefix(c.Game, "connect4"):
		return bad("bench.every", "bench.every = %d, but the mistake-rate benchmark exists only for connect4 (game %q): set it to 0", bc.Every, c.Game)
	case bc.Every > 0 && len(bc.Sets) == 0:
		return bad("bench.sets", "bench.sets: empty, want test set names such as Test_L1_R1")
	case bc.Every > 0 && (bc.Positions < 1 || bc.Simulations < 1):
		return bad("bench.positions|bench.simulations", "bench.positions = %d and bench.simulations = %d, want both >= 1", bc.Positions, bc.Simulations)
	}
	for _, s := range bc.Sets {
		if !validSet(s) {
			return bad("bench.sets", "bench.sets: %q is not a Pons test set name (Test_L1_R1 .. Test_L3_R1)", s)
		}
	}
	bu := c.Bus
	switch {
	case !busName.MatchString(bu.Run):
		return bad("bus.run", "bus.run = %q, want 1-64 letters, digits, '-' or '_'", bu.Run)
	case bu.MaxStaleGenerations < 0 || bu.MaxStaleGenerations > 1000:
		return bad("bus.max_stale_generations", "bus.max_stale_generations = %d, want 0..1000", bu.MaxStaleGenerations)
	case bu.MaxBytes < 1<<20:
		return bad("bus.max_bytes", "bus.max_bytes = %d, want >= 1048576 (1 MiB)", bu.MaxBytes)
	case bu.MaxAge < time.Minute:
		return bad("bus.max_age", "bus.max_age = %v, want >= 1m", bu.MaxAge)
	}
	return nil
}

// busName is what bus.run and worker names may hold.
var busName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func validSet(s string) bool {
	switch s {
	case "Test_L1_R1", "Test_L1_R2", "Test_L1_R3", "Test_L2_R1", "Test_L2_R2", "Test_L3_R1":
		return true
	}
	return false
}

// Load reads a YAML config over the defaults, strictly (an unknown key or a
// wrong type is an error naming the line), applies the -set overrides
// ("key.path=value"), validates the result and builds every player spec
// (CheckPlayers), so that a mistake shows at start rather than an hour in.
func Load(path string, overrides []string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	cfg, err := Parse(data, overrides)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	if err := cfg.CheckPlayers(); err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

// Parse is Load on bytes, without building the players. The config must
// name its game; every other key has a default. An error names the line
// of the value at fault, or the -set flag that gave it. Keys of an older
// layout are moved to their current place, each with a line in
// cfg.Warnings; a removed key is an error that says what replaced it.
func Parse(data []byte, overrides []string) (*Config, error) {
	return parse(data, overrides, false)
}

// parse is Parse; saved marks a config that a training process wrote into
// its run folder, whose removed keys are dropped without a word (they held
// the defaults of an older version).
func parse(data []byte, overrides []string, saved bool) (*Config, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, errors.New(plainYAML(err.Error()))
	}
	if doc.Kind == 0 { // empty file
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("the top level must be a mapping of keys to values")
	}
	root := doc.Content[0]
	o := origins{byPath: map[string]string{}, set: map[*yaml.Node]bool{}}
	for _, text := range overrides {
		n, err := setOverride(root, text)
		if err != nil {
			return nil, err
		}
		o.set[n] = true
	}
	warnings, err := migrate(root, &o, saved)
	if err != nil {
		return nil, err
	}
	cfg := DefaultConfig()
	if err := checkKeys(root, reflect.TypeOf(cfg), "", "", &o); err != nil {
		return nil, err
	}
	if _, ok := o.byPath["game"]; !ok {
		return nil, fmt.Errorf("game: missing; a config names its game, e.g. \"game: connect4\" (games: %s)", strings.Join(games.Names(), ", "))
	}
	if err := root.Decode(&cfg); err != nil {
		return nil, errors.New(plainYAML(err.Error())) // checkKeys has checked every value: not reached
	}
	cfg.Warnings = warnings
	cfg.applyExperimental()
	if err := cfg.Validate(); err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			for _, p := range fe.paths {
				if where, ok := o.byPath[p]; ok {
					return nil, fmt.Errorf("%s: %w", where, err)
				}
			}
		}
		return nil, err
	}
	cfg.SelfPlay.OpponentTargets = cfg.Network.OpponentPolicy
	return &cfg, nil
}

// CheckPlayers builds every player the config names (ladder.players) for
// its game, loading the checkpoints of net players, and releases them: a
// spec that cannot be built is an error now, not at the first ladder match.
func (c *Config) CheckPlayers() error {
	g, err := games.New(c.Game)
	if err != nil {
		return fmt.Errorf("game: %w", err)
	}
	for i, text := range c.Ladder.Players {
		spec, err := players.ParseSpec(text)
		if err != nil {
			return fmt.Errorf("ladder.players[%d]: %w", i, err)
		}
		f, err := players.Build(g, spec)
		if err != nil {
			return fmt.Errorf("ladder.players[%d]: %w (or leave the player out of the ladder: -set 'ladder.players=[...]')", i, err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("ladder.players[%d]: %w", i, err)
		}
	}
	return nil
}

// ReadRunConfig reads the resolved config that a training process saved in
// a run folder. A file that does not parse is reported as damaged.
func ReadRunConfig(runDir string) (*Config, error) {
	path := filepath.Join(runDir, configFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	cfg, err := parse(data, nil, true)
	if err != nil {
		return nil, fmt.Errorf("%s is damaged (%v): restore it, or start a new run folder", path, err)
	}
	return cfg, nil
}

// StopRule says when the run stops, for its first log line: after
// iterations, after duration (of this process), whichever comes first, or
// only when stopped.
func (c *Config) StopRule() string {
	switch {
	case c.Iterations > 0 && c.Duration > 0:
		return fmt.Sprintf("at iteration %d or after %v of this process, whichever comes first", c.Iterations, c.Duration)
	case c.Iterations > 0:
		return fmt.Sprintf("at iteration %d", c.Iterations)
	case c.Duration > 0:
		return fmt.Sprintf("after %v of this process", c.Duration)
	}
	return "runs until stopped (Ctrl-C): neither duration nor iterations is set"
}

// fieldError is a value out of its range; paths are the YAML paths of the
// keys at fault, the first one first, for Parse to name their line.
type fieldError struct {
	paths []string
	msg   string
}

func (e *fieldError) Error() string { return e.msg }

// bad returns a fieldError about the keys paths ("a.b" or "a.b|c.d").
func bad(paths, format string, args ...any) error {
	return &fieldError{paths: strings.Split(paths, "|"), msg: fmt.Sprintf(format, args...)}
}

// inSection turns the Validate error of the package config at YAML path
// section ("mcts: simulations = 0, want >= 1") into a fieldError naming the
// key by its whole path ("selfplay.search.simulations = 0, want >= 1").
func inSection(section string, err error) error {
	msg := err.Error()
	for _, prefix := range []string{"mcts: ", "nn: evaluator ", "nn: ", "train: ", "sprt: ", "replay: ", "elo: "} {
		if strings.HasPrefix(msg, prefix) {
			msg = msg[len(prefix):]
			break
		}
	}
	last := section[strings.LastIndex(section, ".")+1:]
	msg = strings.TrimPrefix(msg, last+".")
	field := leadingKey(msg)
	if field == "" {
		return fmt.Errorf("%s: %s", section, msg)
	}
	return &fieldError{paths: []string{section + "." + field}, msg: section + "." + msg}
}

// leadingKey is the config key a package's Validate message starts with
// ("simulations" of "simulations = 0, want >= 1").
func leadingKey(msg string) string {
	if i := strings.IndexFunc(msg, func(r rune) bool { return !(r == '_' || unicode.IsLower(r) || unicode.IsDigit(r)) }); i >= 0 {
		return msg[:i]
	}
	return msg
}

// mctsError turns an mcts.Config.Validate error ("mcts: simulations = 0,
// want >= 1") into a fieldError naming the key by its path in a training
// config ("selfplay.search.simulations = 0, want >= 1").
func mctsError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "mcts: ")
	field := leadingKey(msg)
	path, ok := movedKeys["selfplay.mcts."+field] // its place in the current layout
	if !ok {
		return fmt.Errorf("selfplay: %s", msg)
	}
	return &fieldError{paths: []string{path}, msg: path + msg[len(field):]}
}

// origins says where each value of a config came from.
type origins struct {
	byPath map[string]string   // YAML path -> "line N" or "-set"
	set    map[*yaml.Node]bool // the nodes -set flags put in
}

var durationType = reflect.TypeOf(time.Duration(0))

// checkKeys walks a YAML mapping against the struct type t and returns an
// error naming the first key that no field has, with its line, its section
// and the valid keys (yaml.v3's own KnownFields check reports only a line),
// or the first value of the wrong type, in words rather than YAML tags. It
// records where every value came from in o. from is "-set" inside a value
// that a -set flag gave.
func checkKeys(n *yaml.Node, t reflect.Type, path, from string, o *origins) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || n.Kind != yaml.MappingNode {
		return nil
	}
	fields := map[string]reflect.Type{}
	var names []string
	var collect func(t reflect.Type)
	collect = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("yaml")
			name, opts, _ := strings.Cut(tag, ",")
			switch {
			case name == "-" || !f.IsExported():
			case strings.Contains(opts, "inline"):
				collect(f.Type)
			default:
				if name == "" {
					name = strings.ToLower(f.Name)
				}
				fields[name] = f.Type
				names = append(names, name)
			}
		}
	}
	collect(t)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		where := from
		if o.set[v] || k.Line == 0 {
			where = "-set"
		} else if where == "" {
			where = fmt.Sprintf("line %d", k.Line)
		}
		ft, ok := fields[k.Value]
		section := "at the top level"
		if path != "" {
			section = "in section " + path
		}
		if !ok {
			return fmt.Errorf("%s: unknown key %q %s; valid keys: %s", where, k.Value, section, strings.Join(names, ", "))
		}
		full := k.Value
		if path != "" {
			full = path + "." + k.Value
		}
		o.byPath[full] = where
		et := ft
		for et.Kind() == reflect.Pointer {
			et = et.Elem()
		}
		if et.Kind() == reflect.Struct && et != durationType {
			if v.Kind != yaml.MappingNode {
				return fmt.Errorf("%s: %s is a section of keys, not %s", where, full, describeNode(v))
			}
			childFrom := from
			if where == "-set" {
				childFrom = where
			}
			if err := checkKeys(v, ft, full, childFrom, o); err != nil {
				return err
			}
			continue
		}
		if err := checkValue(v, et); err != nil {
			return fmt.Errorf("%s: %s = %s, %v", where, full, describeNode(v), err)
		}
	}
	return nil
}

// checkValue checks that YAML value v decodes into type t, without
// truncating a fraction into an integer.
func checkValue(v *yaml.Node, t reflect.Type) error {
	want := "want " + describeType(t)
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if t != durationType && v.Kind == yaml.ScalarNode {
			if err := checkIntRange(v.Value, t); err != nil {
				return err
			}
			if v.ShortTag() == "!!float" {
				return errors.New(want)
			}
		}
	}
	if err := v.Decode(reflect.New(t).Interface()); err != nil {
		return errors.New(want)
	}
	return nil
}

// checkIntRange reports a whole number written in YAML's integer syntax
// (decimal, 0x, 0o or 0b, with _ separators) that does not fit the integer
// type t, naming the bound; other text is left to the decoder. YAML reads
// such a number as a float, which would otherwise be refused as not whole.
func checkIntRange(text string, t reflect.Type) error {
	n, ok := new(big.Int).SetString(strings.ReplaceAll(text, "_", ""), 0)
	if !ok {
		return nil
	}
	lo, hi := new(big.Int), new(big.Int).Lsh(big.NewInt(1), uint(t.Bits()))
	if t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64 {
		hi.Rsh(hi, 1)
		lo.Neg(hi)
	}
	hi.Sub(hi, big.NewInt(1))
	switch {
	case n.Cmp(hi) > 0:
		return fmt.Errorf("too large: want at most %s", hi)
	case n.Cmp(lo) < 0 && lo.Sign() < 0:
		return fmt.Errorf("too small: want at least %s", lo)
	}
	return nil
}

// describeType names a Go type in a config user's words.
func describeType(t reflect.Type) string {
	if t == durationType {
		return "a duration such as 90s, 30m or 2h"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number >= 0"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "text"
	case reflect.Slice, reflect.Array:
		return "a list of " + describeType(t.Elem()) + ", e.g. [a, b]"
	case reflect.Map:
		return "a section of key: value lines"
	}
	return t.String()
}

// describeNode shows a YAML value in an error message.
func describeNode(v *yaml.Node) string {
	switch v.Kind {
	case yaml.ScalarNode:
		if v.ShortTag() == "!!str" {
			return strconv.Quote(v.Value)
		}
		return v.Value
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a section"
	}
	return "an alias"
}

// plainYAML rewrites yaml.v3's messages without its tags: "cannot unmarshal
// !!str `x` into int" becomes "cannot read "x" as int".
func plainYAML(msg string) string {
	msg = strings.TrimPrefix(msg, "yaml: ")
	return yamlTag.ReplaceAllString(msg, "")
}

var (
	yamlTag  = regexp.MustCompile(`!!\w+ ?`)
	yamlLine = regexp.MustCompile(`^line \d+: `)
)

// setOverride applies one "a.b.c=value" override to a YAML mapping node,
// creating intermediate mappings as needed, and returns the value's node.
// The value is parsed as YAML, so numbers, booleans, durations and lists
// ([a, b]) work. Its nodes carry no line: errors name -set instead.
func setOverride(root *yaml.Node, o string) (*yaml.Node, error) {
	key, value, ok := strings.Cut(o, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return nil, fmt.Errorf("-set %q: want key.path=value", o)
	}
	var val yaml.Node
	if err := yaml.Unmarshal([]byte(value), &val); err != nil {
		return nil, fmt.Errorf("-set %q: value: %s", o, yamlLine.ReplaceAllString(plainYAML(err.Error()), ""))
	}
	var v *yaml.Node
	if val.Kind == yaml.DocumentNode && len(val.Content) == 1 {
		v = val.Content[0]
	} else {
		v = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: ""}
	}
	clearLines(v)
	node := root
	parts := strings.Split(key, ".")
	for i, p := range parts {
		if p == "" {
			return nil, fmt.Errorf("-set %q: empty key segment", o)
		}
		var child *yaml.Node
		for j := 0; j+1 < len(node.Content); j += 2 {
			if node.Content[j].Value == p {
				child = node.Content[j+1]
			}
		}
		last := i == len(parts)-1
		if child == nil {
			k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: p}
			if last {
				child = v
			} else {
				child = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			}
			node.Content = append(node.Content, k, child)
		} else if last {
			*child = *v
		}
		if last {
			return child, nil
		}
		if child.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("-set %q: %s takes a value, not a section", o, strings.Join(parts[:i+1], "."))
		}
		node = child
	}
	return nil, fmt.Errorf("-set %q: want key.path=value", o)
}

// clearLines zeroes the line numbers of a node and its children.
func clearLines(n *yaml.Node) {
	n.Line, n.Column = 0, 0
	for _, c := range n.Content {
		clearLines(c)
	}
}

// Marshal writes the resolved config as YAML (saved into the run folder).
func (c *Config) Marshal() ([]byte, error) {
	out := *c
	out.Experimental = ExperimentalConfig{
		Graph:            c.SelfPlay.MCTS.Graph,
		WDL:              c.Network.WDL,
		OpponentPolicy:   c.Network.OpponentPolicy,
		ValueTargetMix:   c.SelfPlay.ValueTargetMix,
		GumbelNoiseMoves: c.SelfPlay.MCTS.GumbelNoiseMoves,
	}
	return yaml.Marshal(&out)
}

// applyExperimental copies the experimental section into the settings it
// acts on.
func (c *Config) applyExperimental() {
	x := c.Experimental
	c.SelfPlay.MCTS.Graph = x.Graph
	c.Network.WDL = x.WDL
	c.Network.OpponentPolicy = x.OpponentPolicy
	c.SelfPlay.ValueTargetMix = x.ValueTargetMix
	c.SelfPlay.MCTS.GumbelNoiseMoves = x.GumbelNoiseMoves
}
