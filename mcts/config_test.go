package mcts

import (
	"math"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	for _, tc := range []struct {
		field string
		tweak func(*Config)
	}{
		{"simulations", func(c *Config) { c.Simulations = 0 }},
		{"chance", func(c *Config) { c.Chance = "dice" }},
		{"move_time", func(c *Config) { c.MoveTime = -1 }},
		{"c_puct", func(c *Config) { c.CPuct = math.NaN() }},
		{"dirichlet_alpha", func(c *Config) { c.DirichletAlpha = -1 }},
		{"dirichlet_epsilon", func(c *Config) { c.DirichletEpsilon = 1.5 }},
		{"fpu_reduction", func(c *Config) { c.FPUReduction = -0.1 }},
		{"temperature_moves", func(c *Config) { c.TemperatureMoves = -1 }},
		{"gumbel_noise_moves", func(c *Config) { c.GumbelNoiseMoves = -1 }},
		{"temperature", func(c *Config) { c.Temperature = math.NaN() }},
		{"final_temperature", func(c *Config) { c.FinalTemperature = -1 }},
		{"virtual_loss", func(c *Config) { c.VirtualLoss = -1 }},
		{"batch_size", func(c *Config) { c.BatchSize = 0 }},
		{"games_in_flight", func(c *Config) { c.GamesInFlight = 0 }},
		{"full_search_fraction", func(c *Config) { c.FullSearchFraction = 2 }},
		{"fast_simulations", func(c *Config) { c.PlayoutCap, c.FastSimulations = true, c.Simulations+1 }},
		{"forced_playout_k", func(c *Config) { c.ForcedPlayoutK = -1 }},
		{"resign_threshold", func(c *Config) { c.ResignThreshold = -2 }},
		{"resign_consecutive", func(c *Config) { c.ResignConsecutive = 0 }},
		{"no_resign_fraction", func(c *Config) { c.NoResignFraction = -0.5 }},
	} {
		c := DefaultConfig()
		tc.tweak(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.field+" ") {
			t.Errorf("bad %s: error %v", tc.field, err)
		}
	}
	if err := (UCTConfig{Rollouts: 0, C: 1}).Validate(); err == nil {
		t.Error("uct rollouts 0: no error")
	}
	if err := DefaultUCTConfig().Validate(); err != nil {
		t.Error(err)
	}
}

func TestConfigYAML(t *testing.T) {
	var c Config
	in := "search: {algorithm: gumbel, simulations: 50, c_puct: 2.5, move_time: 250ms}\nplay: {playout_cap: true, fast_simulations: 10}\n"
	if err := yaml.Unmarshal([]byte(in), &c); err != nil {
		t.Fatal(err)
	}
	if c.Search != SearchGumbel || c.Simulations != 50 || c.CPuct != 2.5 || c.MoveTime.Milliseconds() != 250 || !c.PlayoutCap || c.FastSimulations != 10 {
		t.Errorf("decoded %+v", c)
	}
}

func TestDefaultDirichletAlpha(t *testing.T) {
	for _, tc := range []struct {
		actions int
		want    float64
	}{{7, 1}, {37, 0.5}, {65, 0.5}, {82, 0.146}, {362, 0.033}} {
		if got := DefaultDirichletAlpha(fakeGame{tc.actions}); math.Abs(got-tc.want) > 0.001 {
			t.Errorf("%d actions: alpha %v, want %v", tc.actions, got, tc.want)
		}
	}
}

func TestDirichlet(t *testing.T) {
	rng := newRNG(1)
	var buf []float64
	for _, alpha := range []float64{0.03, 0.3, 1, 3} {
		var mean0, maxSum float64
		const draws = 4000
		for range draws {
			x := dirichlet(rng, alpha, 5, &buf)
			var s float64
			for _, v := range x {
				if v < 0 {
					t.Fatalf("alpha %v: negative draw %v", alpha, v)
				}
				s += v
			}
			if math.Abs(s-1) > 1e-9 {
				t.Fatalf("alpha %v: draw sums to %v", alpha, s)
			}
			mean0 += x[0] / draws
			maxSum += slicesMax(x) / draws
		}
		if math.Abs(mean0-0.2) > 0.03 {
			t.Errorf("alpha %v: mean of a component %v, want 0.2", alpha, mean0)
		}
		// Small alpha concentrates the mass on one component.
		if alpha <= 0.03 && maxSum < 0.9 || alpha >= 3 && maxSum > 0.5 {
			t.Errorf("alpha %v: mean largest component %v", alpha, maxSum)
		}
	}
}

func slicesMax(x []float64) float64 {
	m := x[0]
	for _, v := range x {
		m = max(m, v)
	}
	return m
}
