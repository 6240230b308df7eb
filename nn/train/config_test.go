package train

import (
	"math"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("DefaultConfig: %v", err)
	}
	for _, tc := range []struct {
		field string
		edit  func(c *Config)
	}{
		{"batch_size", func(c *Config) { c.BatchSize = 1 }},
		{"optimizer", func(c *Config) { c.Optimizer = "rmsprop" }},
		{"learning_rate", func(c *Config) { c.LearningRate = 0 }},
		{"learning_rate", func(c *Config) { c.LearningRate = math.NaN() }},
		{"momentum", func(c *Config) { c.Momentum = 1 }},
		{"adam_beta1", func(c *Config) { c.Beta1 = -0.1 }},
		{"adam_beta2", func(c *Config) { c.Beta2 = 1 }},
		{"adam_epsilon", func(c *Config) { c.Epsilon = 0 }},
		{"weight_decay", func(c *Config) { c.WeightDecay = -1e-4 }},
		{"schedule", func(c *Config) { c.Schedule = "linear" }},
		{"step_size", func(c *Config) { c.Schedule, c.StepSize = "step", 0 }},
		{"gamma", func(c *Config) { c.Schedule, c.Gamma = "step", 1.5 }},
		{"total_steps", func(c *Config) { c.Schedule, c.TotalSteps = "cosine", 0 }},
		{"min_learning_rate", func(c *Config) { c.Schedule, c.MinLearningRate = "cosine", 1 }},
		{"gamma", func(c *Config) { c.Schedule, c.Gamma = "timed", 0 }},
		{"drop_at", func(c *Config) { c.Schedule, c.DropAt = "timed", 1 }},
		{"drop_at", func(c *Config) { c.Schedule, c.DropAt = "timed", 0 }},
		{"drop_at", func(c *Config) { c.Schedule, c.DropAt = "timed", math.NaN() }},
		{"bn_momentum", func(c *Config) { c.BNMomentum = 0 }},
	} {
		c := DefaultConfig()
		tc.edit(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.field+" = ") {
			t.Errorf("%s: Validate() = %v, want an error naming %s", tc.field, err, tc.field)
		}
	}
}

func TestLearningRateSchedules(t *testing.T) {
	base := DefaultConfig()
	base.LearningRate = 0.1
	step := base
	step.Schedule, step.StepSize, step.Gamma = "step", 100, 0.5
	cosine := base
	cosine.Schedule, cosine.TotalSteps, cosine.MinLearningRate = "cosine", 1000, 0.001
	for _, tc := range []struct {
		name string
		cfg  Config
		step int64
		want float64
	}{
		{"constant", base, 0, 0.1},
		{"constant", base, 1e6, 0.1},
		{"step", step, 0, 0.1},
		{"step", step, 99, 0.1},
		{"step", step, 100, 0.05},
		{"step", step, 250, 0.025},
		{"cosine", cosine, 0, 0.1},
		{"cosine", cosine, 500, 0.001 + 0.099*0.5},
		{"cosine", cosine, 250, 0.001 + 0.099*0.5*(1+math.Sqrt(0.5))},
		{"cosine", cosine, 1000, 0.001},
		{"cosine", cosine, 5000, 0.001},
	} {
		if err := tc.cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		if got := tc.cfg.LearningRateAt(tc.step); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s at step %d: %v, want %v", tc.name, tc.step, got, tc.want)
		}
	}
}
