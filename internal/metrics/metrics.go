// Package metrics is the schema of a training run's metrics.jsonl: one
// Record per line, one line per iteration (and one for a final ladder).
// pipeline writes it; watch, scripts/curve and pipeline's restart read it.
//
// Every struct lists its fields in the order of their JSON names, so that a
// line comes out with its keys sorted. A pointer, or a field marked
// omitempty, is a key that some lines lack: nil (or empty) where the line
// has no such key. Lines written before a key existed read it as zero.
package metrics

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
)

// Record is one line of metrics.jsonl. An iteration's line has every
// section but Ladder and Bench (present when the iteration played them) and
// FinalLadder; a final ladder's line has FinalLadder, Best, Train (with
// TotalSteps alone), Ladder and the times.
type Record struct {
	Bench *Bench `json:"bench,omitempty"`
	// Best is the best checkpoint's file name after the iteration.
	Best string `json:"best"`
	Bus  *Bus   `json:"bus,omitempty"`
	CPU  *CPU   `json:"cpu,omitempty"`
	// FinalLadder marks the ladder played once more at the end of a run.
	FinalLadder bool    `json:"final_ladder,omitempty"`
	Gate        *Gate   `json:"gate,omitempty"`
	Iteration   int     `json:"iteration"`
	Ladder      *Ladder `json:"ladder,omitempty"`
	Replay      *Replay `json:"replay,omitempty"`
	// Resumed marks an iteration that a restart finished: its self-play
	// figures are the new process's.
	Resumed bool `json:"resumed,omitempty"`
	// RunSeconds is the run's time over all its processes (what learning
	// curves plot against); nil in lines written before it was recorded
	// (package runclock rebuilds it from WallSeconds).
	RunSeconds *Float    `json:"run_seconds,omitempty"`
	SelfPlay   *SelfPlay `json:"selfplay,omitempty"`
	Time       string    `json:"time"` // when the line was written, RFC 3339 in UTC
	Train      *Train    `json:"train,omitempty"`
	// WallSeconds counts from the start of the process that wrote the line.
	WallSeconds Float `json:"wall_seconds"`
	// Workers describes each self-play process (the trainer's own is
	// "trainer") since the previous line.
	Workers map[string]Worker `json:"workers,omitzero"`
}

// CPU holds the CPU time this process spent since the previous line, and
// how much of it went to the trainer's own self-play and to training steps;
// the rest (Process - SelfPlay - Train) went to gating, the ladder, the
// benchmark, ingesting games and the runtime's own threads (the garbage
// collector's workers). Outside programs (GNU Go in a ladder, say) run in
// processes of their own and are not counted. SelfPlay and Train are
// absent where thread clocks are not measured (internal/cputime); the
// section is absent where the process clock is not.
type CPU struct {
	ProcessS  Float  `json:"process_s"`
	SelfPlayS *Float `json:"selfplay_s,omitempty"`
	TrainS    *Float `json:"train_s,omitempty"`
}

// Train holds the training phase's figures: the means over the
// iteration's steps. A final ladder's line has TotalSteps alone.
type Train struct {
	LearningRate *Float `json:"learning_rate,omitempty"`
	LossL2       *Float `json:"loss_l2,omitempty"`
	// The auxiliary heads' losses, unweighted, where the network has them:
	// LossOwnership and LossScore both when it has either head.
	LossOppPolicy *Float `json:"loss_opp_policy,omitempty"`
	LossOwnership *Float `json:"loss_ownership,omitempty"`
	LossPolicy    *Float `json:"loss_policy,omitempty"`
	LossScore     *Float `json:"loss_score,omitempty"`
	LossTotal     *Float `json:"loss_total,omitempty"`
	LossValue     *Float `json:"loss_value,omitempty"`
	// PolicyEntropy is the trained policy's mean entropy on the last batch
	// (NaN, written as null, when no batch could be drawn).
	PolicyEntropy *Float `json:"policy_entropy,omitempty"`
	Steps         *int   `json:"steps,omitempty"` // taken by this process
	// StepsBeforeRestart were taken by an interrupted process; the losses
	// are the means over both.
	StepsBeforeRestart int   `json:"steps_before_restart,omitempty"`
	TotalSteps         int64 `json:"total_steps"`
}

// UnmarshalJSON reads a Train, keeping a loss written as null as NaN.
func (t *Train) UnmarshalJSON(data []byte) error {
	type plain Train
	return unmarshalKeepingNulls(data, (*plain)(t))
}

// Gate holds the gating decision on the iteration's candidate. A match
// has every field but Games; with gate.games = 0 the line has Candidate,
// Games (0), Promoted and Reason; a promotion whose match figures were lost
// to a restart has Candidate, Promoted and Reason.
type Gate struct {
	Best      string `json:"best,omitempty"` // the network the candidate played
	Candidate string `json:"candidate"`
	Draws     *int   `json:"draws,omitempty"`
	EloDiff   *Float `json:"elo_diff,omitempty"` // ±Inf, written as null, after a 100% or 0% score
	Games     *int   `json:"games,omitempty"`
	LLR       *Float `json:"llr,omitempty"`
	Losses    *int   `json:"losses,omitempty"`
	Method    string `json:"method,omitempty"` // "sprt" or "winrate"
	Promoted  bool   `json:"promoted"`
	Reason    string `json:"reason"`
	Score     *Float `json:"score,omitempty"`
	Verdict   string `json:"verdict,omitempty"` // the SPRT's, "continue" without one
	Wins      *int   `json:"wins,omitempty"`
}

// UnmarshalJSON reads a Gate, keeping a figure written as null as NaN.
func (g *Gate) UnmarshalJSON(data []byte) error {
	type plain Gate
	return unmarshalKeepingNulls(data, (*plain)(g))
}

// Ladder holds the Elo fit of the best network (index 0) against the fixed
// players, the first of which is the anchor at 0. When the fit failed it
// has Error, Players and Scores only.
type Ladder struct {
	Elo     []Float `json:"elo,omitempty"`
	High    []Float `json:"elo_high,omitempty"`
	Low     []Float `json:"elo_low,omitempty"`
	Error   string  `json:"error,omitempty"`
	Extreme []bool  `json:"extreme,omitempty"` // rated by the prior alone (all or no points)
	// GameScores is the best network's share of the games against each
	// player when Scores are shares of the points (ScoreUnit).
	GameScores map[string]Float `json:"game_scores,omitempty"`
	Players    []string         `json:"players"` // "best", then the ladder's player specs
	// ScoreUnit is "points" when Scores are the best network's share of
	// the points won (a game whose results carry points: backgammon on
	// money scoring); absent, they are shares of the games (draws a half).
	ScoreUnit string           `json:"score_unit,omitempty"`
	Scores    map[string]Float `json:"scores"` // the best network's score against each player, in ScoreUnit
}

// ScoreLabel names what Scores measure: "points" or "games".
func (l *Ladder) ScoreLabel() string {
	if l.ScoreUnit == "" {
		return "games"
	}
	return l.ScoreUnit
}

// Bench is the best network's mistake rate on each Pons set, or why the
// benchmark was skipped.
type Bench struct {
	Rates   map[string]Float // by set name
	Skipped string           // the reason; Rates is then empty
}

// MarshalJSON writes {"skipped": reason} or the rates by set.
func (b Bench) MarshalJSON() ([]byte, error) {
	if b.Skipped != "" {
		return json.Marshal(map[string]string{"skipped": b.Skipped})
	}
	if b.Rates == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(b.Rates)
}

// UnmarshalJSON reads a string "skipped" as the reason and every number or
// null as a set's rate; other entries are ignored.
func (b *Bench) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*b = Bench{Rates: map[string]Float{}}
	for k, v := range raw {
		var s string
		if k == "skipped" && json.Unmarshal(v, &s) == nil {
			b.Skipped = s
			continue
		}
		var f Float
		if json.Unmarshal(v, &f) == nil {
			b.Rates[k] = f
		}
	}
	return nil
}

// SelfPlay holds the trainer's own self-play since the previous line.
type SelfPlay struct {
	Draws               int   `json:"draws"`
	Examples            int   `json:"examples"`
	FalseResigns        int   `json:"false_resigns"`
	FirstWins           int   `json:"first_wins"`
	Games               int   `json:"games"`
	GamesPerS           Float `json:"games_per_s"`
	LeavesPerPosition   Float `json:"leaves_per_position"` // evaluator requests per position
	MeanLength          Float `json:"mean_length"`
	NetEvalsPerPosition Float `json:"net_evals_per_position"` // network calls per position
	NoResignGames       int   `json:"no_resign_games"`
	Positions           int   `json:"positions"`
	PositionsPerS       Float `json:"positions_per_s"`
	// Precision is the self-play network's, in the latest round.
	Precision  string `json:"precision"`
	Resigned   int    `json:"resigned"`
	SecondWins int    `json:"second_wins"`
}

// Replay holds the replay window's size and the examples added to it in
// this process.
type Replay struct {
	Added  int64 `json:"added"`
	Window int   `json:"window"`
}

// Bus counts what the trainer has taken from the bus since its process
// started.
type Bus struct {
	Bad        int `json:"bad"`
	Chunks     int `json:"chunks"`
	Duplicates int `json:"duplicates"`
	Games      int `json:"games"`
	Positions  int `json:"positions"`
	Stale      int `json:"stale"`
}

// Worker describes one self-play process: the games it delivered since
// the previous line, their rates, and its heartbeat (HeartbeatAgeS,
// Generation and TotalGames are nil without one).
type Worker struct {
	Alive         bool   `json:"alive"` // a recent heartbeat (pipeline: five heartbeat periods), not its last
	Duplicates    int    `json:"duplicates"`
	Exited        bool   `json:"exited,omitempty"` // its last heartbeat said it exited
	Games         int    `json:"games"`
	GamesPerS     Float  `json:"games_per_s"`
	Generation    *int   `json:"generation,omitempty"` // of the network it plays with
	HeartbeatAgeS *Float `json:"heartbeat_age_s,omitempty"`
	Positions     int    `json:"positions"`
	PositionsPerS Float  `json:"positions_per_s"`
	Stale         int    `json:"stale"`
	TotalGames    *int64 `json:"total_games,omitempty"` // since it started
}

// Float is a number that JSON writes as null when it is not finite (NaN,
// ±Inf: an Elo difference after a 100% score, say) and reads back from
// null as NaN.
type Float float64

// MarshalJSON writes f as encoding/json writes a float64, or null.
func (f Float) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(f))
}

// UnmarshalJSON reads a number, or null as NaN.
func (f *Float) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*f = Float(math.NaN())
		return nil
	}
	return json.Unmarshal(data, (*float64)(f))
}

// Ptr returns a pointer to v, for the optional fields.
func Ptr[T any](v T) *T { return &v }

// Num returns a pointer to x as a Float, for the optional fields.
func Num(x float64) *Float { return Ptr(Float(x)) }

// Get returns the value f points to and whether it is a number: false for
// nil (no such key) and for NaN (written as null).
func (f *Float) Get() (float64, bool) {
	if f == nil || math.IsNaN(float64(*f)) {
		return 0, false
	}
	return float64(*f), true
}

var floatPtr = reflect.TypeFor[*Float]()

// unmarshalKeepingNulls decodes data into the struct v points to, then sets
// each *Float field whose key data holds as null to NaN (encoding/json
// leaves it nil), so that the field writes back as null, not as an absent
// key.
func unmarshalKeepingNulls(data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return err
	}
	if !bytes.Contains(data, []byte("null")) {
		return nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	s := reflect.ValueOf(v).Elem()
	for i := range s.NumField() {
		f := s.Type().Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Type == floatPtr && string(raw[key]) == "null" {
			s.Field(i).Set(reflect.ValueOf(Ptr(Float(math.NaN()))))
		}
	}
	return nil
}
