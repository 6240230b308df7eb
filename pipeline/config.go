package pipeline

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"tabula/arena"
	"tabula/elo"
	"tabula/games"
	"tabula/mcts"
	"tabula/nn"
	"tabula/nn/train"
	"tabula/replay"
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

	Network   nn.Config          `yaml:"network"`
	Evaluator nn.EvaluatorConfig `yaml:"evaluator"`
	SelfPlay  SelfPlayConfig     `yaml:"selfplay"`
	Replay    replay.Config      `yaml:"replay"`
	Train     TrainConfig        `yaml:"train"`
	Gate      GateConfig         `yaml:"gate"`
	Ladder    LadderConfig       `yaml:"ladder"`
	Bench     BenchConfig        `yaml:"bench"`
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
	// MCTS configures the search of self-play games.
	MCTS mcts.Config `yaml:"mcts"`
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
	// Players are the fixed opponents, as arena player specs; the first is
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
		Evaluator:       nn.DefaultEvaluatorConfig(),
		SelfPlay:        SelfPlayConfig{Workers: 0, GamesPerRound: 100, ChunkGames: 10, MCTS: sp},
		Replay:          replay.DefaultConfig(),
		Train:           TrainConfig{Config: tc, StepsPerIteration: 100, MinExamples: 2000, BLAS: train.BLASTabula},
		Gate: GateConfig{Games: 40, Simulations: 50, Method: "sprt", Threshold: 0.55, RandomPlies: 4,
			SPRT: elo.SPRT{Elo0: 0, Elo1: 35, Alpha: 0.05, Beta: 0.05}},
		Ladder: LadderConfig{Every: 5, Players: []string{"random", "alphabeta:depth=3", "mcts:rollouts=200"},
			Games: 20, Simulations: 100, RandomPlies: 2},
		Bench: BenchConfig{Every: 5, Sets: []string{"Test_L1_R1", "Test_L2_R1"}, Positions: 100, Simulations: 100, Verdicts: "data/connect4/verdicts"},
	}
}

// Validate checks every section and names the first bad field by its YAML
// path.
func (c *Config) Validate() error {
	if _, err := games.New(c.Game); err != nil {
		return fmt.Errorf("game: %w", err)
	}
	switch {
	case c.RunDir == "":
		return errors.New("run_dir: must not be empty")
	case c.Duration < 0:
		return fmt.Errorf("duration = %v, want >= 0 (0: no limit)", c.Duration)
	case c.Iterations < 0:
		return fmt.Errorf("iterations = %d, want >= 0 (0: no limit)", c.Iterations)
	case c.KeepCheckpoints < 0:
		return fmt.Errorf("keep_checkpoints = %d, want >= 0 (0: keep all)", c.KeepCheckpoints)
	}
	if err := c.Network.Validate(); err != nil {
		return fmt.Errorf("network: %w", err)
	}
	if err := c.Evaluator.Validate(); err != nil {
		return fmt.Errorf("evaluator: %w", err)
	}
	sp := c.SelfPlay
	switch {
	case sp.Workers < 0 || sp.Workers > 256:
		return fmt.Errorf("selfplay.workers = %d, want 0..256 (0: one per core)", sp.Workers)
	case sp.GamesPerRound < 1:
		return fmt.Errorf("selfplay.games_per_round = %d, want >= 1", sp.GamesPerRound)
	case sp.ChunkGames < 1:
		return fmt.Errorf("selfplay.chunk_games = %d, want >= 1", sp.ChunkGames)
	}
	if err := sp.MCTS.Validate(); err != nil {
		return fmt.Errorf("selfplay.mcts: %w", err)
	}
	if err := c.Replay.Validate(); err != nil {
		return err
	}
	if err := c.Train.Config.Validate(); err != nil {
		return err
	}
	switch {
	case c.Train.BLAS != train.BLASTabula && c.Train.BLAS != train.BLASGonum:
		return fmt.Errorf("train.blas = %q, want %q or %q", c.Train.BLAS, train.BLASTabula, train.BLASGonum)
	case c.Train.StepsPerIteration < 1:
		return fmt.Errorf("train.steps_per_iteration = %d, want >= 1", c.Train.StepsPerIteration)
	case c.Train.MinExamples < c.Train.BatchSize:
		return fmt.Errorf("train.min_examples = %d, want >= train.batch_size (%d)", c.Train.MinExamples, c.Train.BatchSize)
	case c.Train.MinExamples > c.Replay.Window:
		return fmt.Errorf("train.min_examples = %d, want <= replay.window (%d)", c.Train.MinExamples, c.Replay.Window)
	}
	gt := c.Gate
	switch {
	case gt.Games < 0:
		return fmt.Errorf("gate.games = %d, want >= 0 (0: every new network becomes the best)", gt.Games)
	case gt.Simulations < 1:
		return fmt.Errorf("gate.simulations = %d, want >= 1", gt.Simulations)
	case gt.Method != "sprt" && gt.Method != "winrate":
		return fmt.Errorf("gate.method = %q, want \"sprt\" or \"winrate\"", gt.Method)
	case !(gt.Threshold >= 0 && gt.Threshold <= 1):
		return fmt.Errorf("gate.threshold = %v, want in [0, 1]", gt.Threshold)
	case gt.RandomPlies < 0:
		return fmt.Errorf("gate.random_plies = %d, want >= 0", gt.RandomPlies)
	}
	if gt.Method == "sprt" {
		if err := gt.SPRT.Validate(); err != nil {
			return fmt.Errorf("gate.sprt: %w", err)
		}
	}
	ld := c.Ladder
	switch {
	case ld.Every < 0:
		return fmt.Errorf("ladder.every = %d, want >= 0 (0: never)", ld.Every)
	case ld.Every > 0 && len(ld.Players) == 0:
		return errors.New("ladder.players: empty, want at least one player spec when ladder.every > 0")
	case ld.Every > 0 && ld.Games < 1:
		return fmt.Errorf("ladder.games = %d, want >= 1", ld.Games)
	case ld.Every > 0 && ld.Simulations < 1:
		return fmt.Errorf("ladder.simulations = %d, want >= 1", ld.Simulations)
	case ld.RandomPlies < 0:
		return fmt.Errorf("ladder.random_plies = %d, want >= 0", ld.RandomPlies)
	}
	for i, p := range ld.Players {
		if _, err := arena.ParseSpec(p); err != nil {
			return fmt.Errorf("ladder.players[%d]: %w", i, err)
		}
	}
	bc := c.Bench
	switch {
	case bc.Every < 0:
		return fmt.Errorf("bench.every = %d, want >= 0 (0: never)", bc.Every)
	case bc.Every > 0 && !strings.HasPrefix(c.Game, "connect4"):
		return fmt.Errorf("bench.every = %d, but the mistake-rate benchmark exists only for connect4 (game %q): set it to 0", bc.Every, c.Game)
	case bc.Every > 0 && len(bc.Sets) == 0:
		return errors.New("bench.sets: empty, want test set names such as Test_L1_R1")
	case bc.Every > 0 && (bc.Positions < 1 || bc.Simulations < 1):
		return fmt.Errorf("bench.positions = %d and bench.simulations = %d, want both >= 1", bc.Positions, bc.Simulations)
	}
	for _, s := range bc.Sets {
		if !validSet(s) {
			return fmt.Errorf("bench.sets: %q is not a Pons test set name (Test_L1_R1 .. Test_L3_R1)", s)
		}
	}
	return nil
}

func validSet(s string) bool {
	switch s {
	case "Test_L1_R1", "Test_L1_R2", "Test_L1_R3", "Test_L2_R1", "Test_L2_R2", "Test_L3_R1":
		return true
	}
	return false
}

// Load reads a YAML config over the defaults, strictly (an unknown key or a
// wrong type is an error naming the line), applies the -set overrides
// ("key.path=value"), and validates the result.
func Load(path string, overrides []string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	cfg, err := Parse(data, overrides)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

// Parse is Load on bytes.
func Parse(data []byte, overrides []string) (*Config, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Kind == 0 { // empty file
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("the top level must be a mapping of keys to values")
	}
	for _, o := range overrides {
		if err := setOverride(doc.Content[0], o); err != nil {
			return nil, err
		}
	}
	cfg := DefaultConfig()
	keys := map[int]string{}
	if err := checkKeys(doc.Content[0], reflect.TypeOf(cfg), "", keys); err != nil {
		return nil, err
	}
	if err := doc.Content[0].Decode(&cfg); err != nil {
		return nil, explainYAMLError(err, keys)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// checkKeys walks a YAML mapping against the struct type t and returns an
// error naming the first key that no field has, with its line, its section
// and the valid keys: yaml.v3's own KnownFields check reports only a line.
// It records the dotted path of every value by line in keys, for
// explainYAMLError.
func checkKeys(n *yaml.Node, t reflect.Type, path string, keys map[int]string) error {
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
		ft, ok := fields[k.Value]
		where := "at the top level"
		if path != "" {
			where = "in section " + path
		}
		if !ok {
			return fmt.Errorf("%s: unknown key %q %s; valid keys: %s", lineOf(k), k.Value, where, strings.Join(names, ", "))
		}
		full := k.Value
		if path != "" {
			full = path + "." + k.Value
		}
		if et := ft; v.Kind == yaml.MappingNode {
			for et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() != reflect.Struct && et.Kind() != reflect.Map {
				return fmt.Errorf("%s: key %s takes a value, not a section", lineOf(k), full)
			}
		}
		keys[v.Line] = full
		if err := checkKeys(v, ft, full, keys); err != nil {
			return err
		}
	}
	return nil
}

// lineOf says where a node came from: its line, or a -set override.
func lineOf(n *yaml.Node) string {
	if n.Line == 0 {
		return "-set"
	}
	return fmt.Sprintf("line %d", n.Line)
}

// explainYAMLError adds the key to yaml.v3's "line N: cannot unmarshal ..."
// messages; values set with -set have no line and are named as such.
func explainYAMLError(err error, keys map[int]string) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	msgs := make([]string, len(te.Errors))
	for i, m := range te.Errors {
		var line int
		if _, serr := fmt.Sscanf(m, "line %d:", &line); serr == nil {
			if key, ok := keys[line]; ok && line > 0 {
				m = fmt.Sprintf("key %s (%s)", key, m)
			} else if line == 0 {
				m = "a -set value: " + strings.TrimPrefix(m, "line 0: ")
			}
		}
		msgs[i] = m
	}
	return errors.New(strings.Join(msgs, "; "))
}

// setOverride applies one "a.b.c=value" override to a YAML mapping node,
// creating intermediate mappings as needed. The value is parsed as YAML, so
// numbers, booleans, durations and lists ([a, b]) work.
func setOverride(root *yaml.Node, o string) error {
	key, value, ok := strings.Cut(o, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return fmt.Errorf("-set %q: want key.path=value", o)
	}
	var val yaml.Node
	if err := yaml.Unmarshal([]byte(value), &val); err != nil {
		return fmt.Errorf("-set %q: value: %w", o, err)
	}
	var v *yaml.Node
	if val.Kind == yaml.DocumentNode && len(val.Content) == 1 {
		v = val.Content[0]
	} else {
		v = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: ""}
	}
	node := root
	parts := strings.Split(key, ".")
	for i, p := range parts {
		if p == "" {
			return fmt.Errorf("-set %q: empty key segment", o)
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
		if !last {
			if child.Kind != yaml.MappingNode {
				return fmt.Errorf("-set %q: %s is not a section", o, strings.Join(parts[:i+1], "."))
			}
			node = child
		}
	}
	return nil
}

// Marshal writes the resolved config as YAML (saved into the run folder).
func (c *Config) Marshal() ([]byte, error) {
	return yaml.Marshal(c)
}
