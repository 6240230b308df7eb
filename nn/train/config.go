// Package train trains an nn.Weights network: it computes the AlphaZero
// loss over a fixed-size batch and its gradient, and applies SGD with
// momentum or Adam, writing the updated parameters and batch-norm running
// statistics back into the nn.Weights it was given.
//
// Two engines compute the loss and gradient (Config.Engine). "direct", the
// default, is a hand-written pass over nn/gemm's SGEMM with the activations
// kept channels-last, allocating nothing per step. "gorgonia" builds the
// network as a gorgonia graph (with convolution, batch-norm, residual and
// policy-loss ops of our own) and lets gorgonia differentiate it; it is the
// reference the direct engine is tested against, and it multiplies matrices
// with the BLAS set by UseBLAS (call UseBLAS(BLASTabula) once at start-up).
// Trainer.Checkpoint and Resume carry the optimiser state through nn
// checkpoints, so that a run resumes exactly, with either engine.
//
// A Trainer is fixed to one batch size and is not safe for concurrent use;
// inference workers take Trainer.Weights snapshots and run package nn's own
// forward pass.
package train

import (
	"fmt"
	"math"
)

// Config sets the batch size, the optimiser, its learning-rate schedule, the
// weight decay and the batch-norm running-statistics momentum.
type Config struct {
	// BatchSize is the number of examples in every Step; the graph is built
	// for exactly this size.
	BatchSize int `yaml:"batch_size"`
	// Optimizer is "sgd" (with momentum) or "adam".
	Optimizer string `yaml:"optimizer"`
	// LearningRate is the base learning rate the schedule starts from.
	LearningRate float64 `yaml:"learning_rate"`
	// Momentum is SGD's momentum: v = Momentum*v + g; theta -= lr*v.
	Momentum float64 `yaml:"momentum"`
	// Beta1, Beta2 and Epsilon are Adam's moment decay rates and its
	// denominator guard.
	Beta1   float64 `yaml:"adam_beta1"`
	Beta2   float64 `yaml:"adam_beta2"`
	Epsilon float64 `yaml:"adam_epsilon"`
	// WeightDecay is c in the loss term c*||theta||^2. Theta is every
	// convolution and dense weight matrix; biases and batch-norm parameters
	// are not decayed (decaying the batch-norm scale or a bias does not
	// restrain the function the network computes, it only shifts it).
	WeightDecay float64 `yaml:"weight_decay"`
	// Schedule is "constant", "step" (multiply by Gamma every StepSize
	// steps), "cosine" (from LearningRate down to MinLearningRate over
	// TotalSteps steps, then MinLearningRate) or "timed" (LearningRate
	// until the caller drops it to LearningRate*Gamma with
	// Trainer.DropLearningRate: the pipeline does at DropAt of the run's
	// duration, so the drop needs no estimate of the steps a machine makes).
	Schedule        string  `yaml:"schedule"`
	StepSize        int     `yaml:"step_size"`
	Gamma           float64 `yaml:"gamma"`
	TotalSteps      int     `yaml:"total_steps"`
	MinLearningRate float64 `yaml:"min_learning_rate"`
	// DropAt is the share of the run's duration after which schedule
	// "timed" drops the learning rate to LearningRate*Gamma.
	DropAt float64 `yaml:"drop_at"`
	// BNMomentum is the weight of the current batch in the batch-norm
	// running averages: running = BNMomentum*batch + (1-BNMomentum)*running
	// (PyTorch's convention; the variance folded in is the unbiased one).
	BNMomentum float64 `yaml:"bn_momentum"`
	// Engine computes the loss and its gradient: "direct" (a hand-written
	// pass over our SGEMM, channels-last, no graph; networks without the
	// auxiliary heads and global pooling), "gorgonia" (the network as a
	// gorgonia graph with our ops, differentiated by gorgonia; every
	// network) or "auto" (direct where it applies, else gorgonia). Both
	// compute the same function; direct takes 2.4-2.6x fewer CPU-seconds
	// per sample (docs/benchmarks.md, Training).
	Engine string `yaml:"engine"`
	// OwnershipWeight and ScoreWeight weigh the auxiliary heads' losses
	// (network.ownership, network.score) in the total: the ownership loss
	// is the binary cross-entropy averaged over the board's points, so
	// 1.5 is KataGo's 1.5/N on a sum over the points; the score loss is
	// the squared error of margin/(board points). A network without the
	// head ignores its weight.
	OwnershipWeight float64 `yaml:"ownership_weight"`
	ScoreWeight     float64 `yaml:"score_weight"`
	// OppPolicyWeight weighs the opponent-policy head's loss
	// (experimental.opponent_policy): the cross-entropy of the opponent's reply,
	// averaged over the batch (examples without a target count 0). KataGo
	// uses 0.15.
	OppPolicyWeight float64 `yaml:"opp_policy_weight"`
}

// Engine names accepted in Config.Engine.
const (
	EngineAuto     = "auto"
	EngineDirect   = "direct"
	EngineGorgonia = "gorgonia"
)

// DefaultConfig is Adam at 1e-3, batch 256, weight decay 1e-4, constant
// learning rate, batch-norm momentum 0.1.
func DefaultConfig() Config {
	return Config{
		BatchSize:       256,
		Optimizer:       "adam",
		LearningRate:    1e-3,
		Momentum:        0.9,
		Beta1:           0.9,
		Beta2:           0.999,
		Epsilon:         1e-8,
		WeightDecay:     1e-4,
		Schedule:        "constant",
		StepSize:        10000,
		Gamma:           0.1,
		TotalSteps:      100000,
		MinLearningRate: 1e-5,
		DropAt:          0.75,
		BNMomentum:      0.1,
		Engine:          EngineAuto,
		OwnershipWeight: 1.5,
		ScoreWeight:     0.5,
		OppPolicyWeight: 0.15,
	}
}

// Validate names the first field out of range.
func (c Config) Validate() error {
	bad := func(field string, v any, want string) error {
		return fmt.Errorf("train: %s = %v, want %s", field, v, want)
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case c.BatchSize < 2 || c.BatchSize > 1<<16:
		return bad("batch_size", c.BatchSize, "2..65536")
	case c.Optimizer != "sgd" && c.Optimizer != "adam":
		return bad("optimizer", fmt.Sprintf("%q", c.Optimizer), `"sgd" or "adam"`)
	case !finite(c.LearningRate) || c.LearningRate <= 0 || c.LearningRate > 10:
		return bad("learning_rate", c.LearningRate, "in (0, 10]")
	case !finite(c.Momentum) || c.Momentum < 0 || c.Momentum >= 1:
		return bad("momentum", c.Momentum, "in [0, 1)")
	case !finite(c.Beta1) || c.Beta1 < 0 || c.Beta1 >= 1:
		return bad("adam_beta1", c.Beta1, "in [0, 1)")
	case !finite(c.Beta2) || c.Beta2 < 0 || c.Beta2 >= 1:
		return bad("adam_beta2", c.Beta2, "in [0, 1)")
	case !finite(c.Epsilon) || c.Epsilon <= 0 || c.Epsilon > 1:
		return bad("adam_epsilon", c.Epsilon, "in (0, 1]")
	case !finite(c.WeightDecay) || c.WeightDecay < 0 || c.WeightDecay > 1:
		return bad("weight_decay", c.WeightDecay, "in [0, 1]")
	case c.Schedule != "constant" && c.Schedule != "step" && c.Schedule != "cosine" && c.Schedule != "timed":
		return bad("schedule", fmt.Sprintf("%q", c.Schedule), `"constant", "step", "cosine" or "timed"`)
	case c.Schedule == "step" && c.StepSize < 1:
		return bad("step_size", c.StepSize, "at least 1 with schedule step")
	case (c.Schedule == "step" || c.Schedule == "timed") && (!finite(c.Gamma) || c.Gamma <= 0 || c.Gamma > 1):
		return bad("gamma", c.Gamma, fmt.Sprintf("in (0, 1] with schedule %s", c.Schedule))
	case c.Schedule == "timed" && (!finite(c.DropAt) || c.DropAt <= 0 || c.DropAt >= 1):
		return bad("drop_at", c.DropAt, "in (0, 1) with schedule timed (the share of the duration before the drop)")
	case c.Schedule == "cosine" && c.TotalSteps < 1:
		return bad("total_steps", c.TotalSteps, "at least 1 with schedule cosine")
	case c.Schedule == "cosine" && (!finite(c.MinLearningRate) || c.MinLearningRate < 0 || c.MinLearningRate > c.LearningRate):
		return bad("min_learning_rate", c.MinLearningRate, fmt.Sprintf("in [0, learning_rate=%v] with schedule cosine", c.LearningRate))
	case !finite(c.BNMomentum) || c.BNMomentum <= 0 || c.BNMomentum > 1:
		return bad("bn_momentum", c.BNMomentum, "in (0, 1]")
	case c.Engine != EngineAuto && c.Engine != EngineDirect && c.Engine != EngineGorgonia:
		return bad("engine", fmt.Sprintf("%q", c.Engine), fmt.Sprintf("%q, %q or %q", EngineAuto, EngineDirect, EngineGorgonia))
	case !finite(c.OwnershipWeight) || c.OwnershipWeight < 0 || c.OwnershipWeight > 100:
		return bad("ownership_weight", c.OwnershipWeight, "in [0, 100]")
	case !finite(c.ScoreWeight) || c.ScoreWeight < 0 || c.ScoreWeight > 100:
		return bad("score_weight", c.ScoreWeight, "in [0, 100]")
	case !finite(c.OppPolicyWeight) || c.OppPolicyWeight < 0 || c.OppPolicyWeight > 100:
		return bad("opp_policy_weight", c.OppPolicyWeight, "in [0, 100]")
	}
	return nil
}

// LearningRateAt is the learning rate used by the step that follows step
// completed steps (the first Step uses LearningRateAt(0)), before a drop of
// schedule "timed" (Trainer.LearningRate includes it).
func (c Config) LearningRateAt(step int64) float64 {
	switch c.Schedule {
	case "step":
		return c.LearningRate * math.Pow(c.Gamma, float64(step/int64(c.StepSize)))
	case "cosine":
		if step >= int64(c.TotalSteps) {
			return c.MinLearningRate
		}
		f := 0.5 * (1 + math.Cos(math.Pi*float64(step)/float64(c.TotalSteps)))
		return c.MinLearningRate + (c.LearningRate-c.MinLearningRate)*f
	}
	return c.LearningRate
}
