package gtp

import (
	"strings"
	"testing"
	"time"
)

func TestParseTimeSettings(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		cmd  string
		args string
		want TimeControl
	}{
		{"time_settings", "300 0 0", TimeControl{System: Absolute, Main: 300 * s}},
		{"time_settings", "0 30 0", TimeControl{System: NoTime}},
		{"time_settings", "600 60 25", TimeControl{System: Canadian, Main: 600 * s, Byo: 60 * s, Stones: 25}},
		{"time_settings", "1.5 0 0", TimeControl{System: Absolute, Main: 1500 * time.Millisecond}},
		{"kgs-time_settings", "none", TimeControl{System: NoTime}},
		{"kgs-time_settings", "absolute 120", TimeControl{System: Absolute, Main: 120 * s}},
		{"kgs-time_settings", "byoyomi 60 30 5", TimeControl{System: Byoyomi, Main: 60 * s, Byo: 30 * s, Periods: 5}},
		{"kgs-time_settings", "canadian 60 300 25", TimeControl{System: Canadian, Main: 60 * s, Byo: 300 * s, Stones: 25}},
		{"kgs-time_settings", "byoyomi 60 0 0", TimeControl{System: Absolute, Main: 60 * s}},
	} {
		parse := parseTimeSettings
		if c.cmd == "kgs-time_settings" {
			parse = parseKGSTimeSettings
		}
		got, err := parse(strings.Fields(c.args))
		if err != nil || got != c.want {
			t.Errorf("%s %s: %+v, %v; want %+v", c.cmd, c.args, got, err, c.want)
		}
	}
	for _, c := range []struct{ cmd, args, want string }{
		{"time_settings", "300 0", "takes main_time byo_yomi_time byo_yomi_stones"},
		{"time_settings", "x 0 0", `main_time "x"`},
		{"time_settings", "-1 0 0", `main_time "-1"`},
		{"time_settings", "0 0 0", "no time"},
		{"time_settings", "10 5 -2", `byo_yomi_stones "-2"`},
		{"kgs-time_settings", "", "needs a system"},
		{"kgs-time_settings", "fischer 10 5", `unknown system "fischer"`},
		{"kgs-time_settings", "byoyomi 60 30", "takes 3 argument(s), got 2"},
		{"kgs-time_settings", "absolute 0", "no time"},
		{"kgs-time_settings", "canadian 0 0 0", "no time"},
	} {
		parse := parseTimeSettings
		if c.cmd == "kgs-time_settings" {
			parse = parseKGSTimeSettings
		}
		_, err := parse(strings.Fields(c.args))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want an error saying %q", c.cmd, c.args, err, c.want)
		}
	}
}

// TestClockCharge walks each system through main time and overtime.
func TestClockCharge(t *testing.T) {
	s := time.Second
	var c Clock
	c.SetControl(TimeControl{System: Absolute, Main: 10 * s})
	if !c.Charge(0, 4*s) || !c.Charge(0, 5*s) || c.Charge(0, 2*s) {
		t.Error("absolute 10s: 4s and 5s fit, 2s more do not")
	}
	if l, st := c.Left(1); l != 10*s || st != 0 {
		t.Errorf("white's clock moved: %v %d", l, st)
	}

	c.SetControl(TimeControl{System: Byoyomi, Main: 10 * s, Byo: 5 * s, Periods: 2})
	steps := []struct {
		spent  time.Duration
		ok     bool
		left   time.Duration
		stones int
	}{
		{8 * s, true, 2 * s, 0},  // main time
		{6 * s, true, 5 * s, 2},  // 2s of main, 4s of the first period: kept
		{7 * s, true, 5 * s, 1},  // overran one period
		{4 * s, true, 5 * s, 1},  // within the last period
		{6 * s, false, 0 * s, 0}, // overran the last one
	}
	for i, st := range steps {
		ok := c.Charge(0, st.spent)
		l, n := c.Left(0)
		if ok != st.ok || l != st.left || n != st.stones {
			t.Errorf("byoyomi step %d: %v, left %v %d; want %v, %v %d", i, ok, l, n, st.ok, st.left, st.stones)
		}
	}

	c.SetControl(TimeControl{System: Canadian, Main: 0, Byo: 10 * s, Stones: 3})
	for i, st := range []struct {
		spent  time.Duration
		ok     bool
		left   time.Duration
		stones int
	}{
		{3 * s, true, 7 * s, 2},
		{3 * s, true, 4 * s, 1},
		{3 * s, true, 10 * s, 3}, // the period's stones are played: a new one
		{11 * s, false, -1 * s, 3},
	} {
		ok := c.Charge(0, st.spent)
		l, n := c.Left(0)
		if ok != st.ok || l != st.left || n != st.stones {
			t.Errorf("canadian step %d: %v, left %v %d; want %v, %v %d", i, ok, l, n, st.ok, st.left, st.stones)
		}
	}
}

// TestClockBudget checks that a move's budget fits the time left with the
// reserve kept back, and spreads main time over the moves expected.
func TestClockBudget(t *testing.T) {
	s := time.Second
	var c Clock
	if c.Budget(0, 40) != 0 {
		t.Error("no clock: want no limit")
	}
	c.SetControl(TimeControl{System: Absolute, Main: 40 * s})
	if b := c.Budget(0, 40); b != 900*time.Millisecond {
		t.Errorf("absolute 40s over 40 moves: %v, want 0.9s", b)
	}
	c.SetLeft(0, 30*time.Millisecond, 0)
	if b := c.Budget(0, 40); b <= 0 || b > 30*time.Millisecond {
		t.Errorf("30ms left: budget %v", b)
	}
	c.SetControl(TimeControl{System: Byoyomi, Main: 0, Byo: 10 * s, Periods: 3})
	if b := c.Budget(0, 40); b != 9*s {
		t.Errorf("byo-yomi 10s: %v, want 9s", b)
	}
	c.SetControl(TimeControl{System: Canadian, Main: 20 * s, Byo: 10 * s, Stones: 5})
	if b := c.Budget(0, 40); b != 2250*time.Millisecond {
		t.Errorf("canadian 20s + 10s/5 over 40 moves: %v, want (0.5s+2s)*0.9", b)
	}
	c.SetLeft(0, 4*s, 4)
	if b := c.Budget(0, 40); b != 900*time.Millisecond {
		t.Errorf("canadian 4s for 4 stones: %v, want 0.9s", b)
	}
	if b := c.Budget(1, 40); b != 2250*time.Millisecond {
		t.Errorf("white's budget changed: %v", b)
	}
}

// TestClockOverrun: a move that overran its limit makes the next budgets
// keep the overrun back, less and less as moves keep to their limits.
func TestClockOverrun(t *testing.T) {
	var c Clock
	c.SetControl(TimeControl{System: Byoyomi, Byo: 10 * time.Second, Periods: 1})
	base := c.Budget(0, 40)
	c.Overran(base, base+800*time.Millisecond)
	if b := c.Budget(0, 40); b != base-800*time.Millisecond {
		t.Errorf("after an 800ms overrun: %v, want %v", b, base-800*time.Millisecond)
	}
	c.Overran(base, base) // on time: the overrun kept back decays by an eighth
	if b := c.Budget(0, 40); b != base-700*time.Millisecond {
		t.Errorf("after a move on time: %v, want %v", b, base-700*time.Millisecond)
	}
}
