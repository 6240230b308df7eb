package gtp

// Time control: time_settings, kgs-time_settings and time_left set the
// clock; before each genmove the engine gives a chooser that takes a time
// limit (TimeLimiter) the time this move may spend, and after it charges
// the time spent to the mover's clock until the controller's next
// time_left corrects it.
//
// The systems are those of KGS's kgs-time_settings (none, absolute,
// byoyomi, canadian); GTP's own time_settings is Canadian overtime, with
// "byo_yomi_time 0" meaning absolute time and "byo_yomi_time > 0,
// byo_yomi_stones 0" meaning no limit (GTP 2 draft, section 6.3.4). In
// time_left, stones is 0 in main time, and in overtime the stones left in
// the period (Canadian) or the periods left (Japanese byo-yomi, as kgsGtp
// sends it).

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
)

// TimeLimiter is implemented by choosers whose search can stop on a time
// limit (package players' PUCT players): SetMoveTime sets the limit of the
// next moves' searches, 0 for their own configured limit.
type TimeLimiter interface {
	SetMoveTime(d time.Duration)
}

// TimeSystem is a kind of game clock.
type TimeSystem int

const (
	// NoTime: no limit (the default).
	NoTime TimeSystem = iota
	// Absolute: main time only; a player who runs out loses.
	Absolute
	// Byoyomi: main time, then Periods periods of Byo each; a move made
	// within a period keeps it, one that overruns it uses it up.
	Byoyomi
	// Canadian: main time, then Stones moves in each period of Byo.
	Canadian
)

func (t TimeSystem) String() string {
	return [...]string{"none", "absolute", "byoyomi", "canadian"}[t]
}

// TimeControl is a clock's settings.
type TimeControl struct {
	System  TimeSystem
	Main    time.Duration
	Byo     time.Duration // a period's time (Byoyomi, Canadian)
	Periods int           // Byoyomi
	Stones  int           // moves a period (Canadian)
}

// playerClock is one player's time: Left in main time (Stones 0) or in the
// current overtime period, with Stones moves (Canadian) or periods
// (Byoyomi) left there.
type playerClock struct {
	Left   time.Duration
	Stones int
}

// Clock is both players' time under one TimeControl.
type Clock struct {
	tc     TimeControl
	player [2]playerClock
	// overhead is what a move took beyond the limit it was given (the
	// search's last batch, keeping the tree, a loaded machine): the
	// largest recent overrun, decaying by an eighth a move. Budget keeps
	// it back.
	overhead time.Duration
}

// Overran records that a move given limit took spent.
func (c *Clock) Overran(limit, spent time.Duration) {
	c.overhead = max(spent-limit, c.overhead-c.overhead/8, 0)
}

// SetControl sets the clock's system and gives both players its main time
// (or, without main time, their first overtime period).
func (c *Clock) SetControl(tc TimeControl) {
	c.tc = tc
	for i := range c.player {
		c.player[i] = playerClock{Left: tc.Main}
		if tc.Main == 0 {
			c.enterOvertime(i)
		}
	}
}

// Control returns the clock's settings.
func (c *Clock) Control() TimeControl { return c.tc }

// Left returns color's time and stones as time_left gives them.
func (c *Clock) Left(color int) (time.Duration, int) {
	return c.player[color].Left, c.player[color].Stones
}

// SetLeft records color's time as time_left gives it.
func (c *Clock) SetLeft(color int, left time.Duration, stones int) {
	c.player[color] = playerClock{Left: left, Stones: stones}
}

// enterOvertime starts color's first overtime period.
func (c *Clock) enterOvertime(color int) {
	p := &c.player[color]
	switch c.tc.System {
	case Byoyomi:
		p.Left, p.Stones = c.tc.Byo, c.tc.Periods
	case Canadian:
		p.Left, p.Stones = c.tc.Byo, c.tc.Stones
	}
}

// Charge takes spent off color's clock, moving into and through overtime
// as the system says. It reports false when color has run out of time.
func (c *Clock) Charge(color int, spent time.Duration) bool {
	p := &c.player[color]
	switch c.tc.System {
	case NoTime:
		return true
	case Absolute:
		p.Left -= spent
		return p.Left >= 0
	}
	if p.Stones == 0 { // main time
		if spent <= p.Left {
			p.Left -= spent
			return true
		}
		spent -= p.Left
		c.enterOvertime(color)
	}
	switch c.tc.System {
	case Byoyomi:
		for spent > p.Left {
			spent -= p.Left
			p.Stones--
			if p.Stones <= 0 {
				p.Left = 0
				return false
			}
		}
		p.Left = c.tc.Byo
	case Canadian:
		p.Left -= spent
		if p.Left < 0 {
			return false
		}
		p.Stones--
		if p.Stones <= 0 {
			c.enterOvertime(color)
		}
	}
	return true
}

// Budget returns the time color may spend on its next move, 0 for no limit:
// the main time spread over the moves it expects to play (movesLeft, its
// own moves to the end of the game), plus what overtime gives each move
// then; in overtime, the period's share of one move. A reserve (a tenth of
// it, and at least 50 ms, for the engine's latency and a loaded machine)
// is kept back, so that the answer reaches the controller in time.
func (c *Clock) Budget(color, movesLeft int) time.Duration {
	p := c.player[color]
	movesLeft = max(movesLeft, 1)
	var per time.Duration // what one overtime move may spend
	switch c.tc.System {
	case NoTime:
		return 0
	case Byoyomi:
		per = c.tc.Byo
	case Canadian:
		per = c.tc.Byo / time.Duration(max(c.tc.Stones, 1))
	}
	var b time.Duration
	switch {
	case c.tc.System == Absolute:
		b = p.Left / time.Duration(movesLeft)
	case p.Stones == 0:
		b = p.Left/time.Duration(movesLeft) + per
	case c.tc.System == Byoyomi:
		b = p.Left
	default: // Canadian overtime: the period's time over its stones left
		b = p.Left / time.Duration(max(p.Stones, 1))
	}
	// Never more than the time left before overtime or loss, less the
	// reserve.
	limit := p.Left
	if p.Stones == 0 && c.tc.System != Absolute {
		limit += per
	}
	b = min(b, limit)
	b -= max(b/10, 50*time.Millisecond) + c.overhead
	return max(b, time.Millisecond)
}

// parseSeconds reads a GTP time in seconds (an integer, or a decimal as
// some controllers send).
func parseSeconds(what, v string) (time.Duration, error) {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || x < 0 || x > 1e7 || math.IsNaN(x) {
		return 0, fmt.Errorf("syntax error: %s %q: want seconds, 0..1e7", what, clip(v))
	}
	return time.Duration(x * float64(time.Second)), nil
}

// parseCount reads a count of stones or periods.
func parseCount(what, v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 1e6 {
		return 0, fmt.Errorf("syntax error: %s %q: want a count, 0..1000000", what, clip(v))
	}
	return n, nil
}

// parseTimeSettings reads time_settings' "main_time byo_yomi_time
// byo_yomi_stones".
func parseTimeSettings(args []string) (TimeControl, error) {
	if len(args) != 3 {
		return TimeControl{}, fmt.Errorf("syntax error: time_settings takes main_time byo_yomi_time byo_yomi_stones, got %d argument(s)", len(args))
	}
	main, err := parseSeconds("main_time", args[0])
	if err != nil {
		return TimeControl{}, err
	}
	byo, err := parseSeconds("byo_yomi_time", args[1])
	if err != nil {
		return TimeControl{}, err
	}
	stones, err := parseCount("byo_yomi_stones", args[2])
	if err != nil {
		return TimeControl{}, err
	}
	switch {
	case byo == 0:
		if main == 0 {
			return TimeControl{}, errors.New("syntax error: time_settings 0 0 0 would leave no time: use byo_yomi_time > 0 with 0 stones for no limit")
		}
		return TimeControl{System: Absolute, Main: main}, nil
	case stones == 0:
		return TimeControl{System: NoTime}, nil
	}
	return TimeControl{System: Canadian, Main: main, Byo: byo, Stones: stones}, nil
}

// parseKGSTimeSettings reads kgs-time_settings' "none", "absolute main",
// "byoyomi main period_time periods" or "canadian main period_time
// stones".
func parseKGSTimeSettings(args []string) (TimeControl, error) {
	if len(args) == 0 {
		return TimeControl{}, errors.New("syntax error: kgs-time_settings needs a system: none, absolute, byoyomi or canadian")
	}
	want := map[string]int{"none": 0, "absolute": 1, "byoyomi": 3, "canadian": 3}
	n, ok := want[args[0]]
	if !ok {
		return TimeControl{}, fmt.Errorf("syntax error: kgs-time_settings: unknown system %q (known: none, absolute, byoyomi, canadian)", clip(args[0]))
	}
	if len(args)-1 != n {
		return TimeControl{}, fmt.Errorf("syntax error: kgs-time_settings %s takes %d argument(s), got %d", args[0], n, len(args)-1)
	}
	tc := TimeControl{}
	if n == 0 {
		return tc, nil
	}
	main, err := parseSeconds("main_time", args[1])
	if err != nil {
		return tc, err
	}
	if args[0] == "absolute" {
		if main == 0 {
			return tc, errors.New("syntax error: kgs-time_settings absolute 0 would leave no time")
		}
		return TimeControl{System: Absolute, Main: main}, nil
	}
	byo, err := parseSeconds("period_time", args[2])
	if err != nil {
		return tc, err
	}
	k, err := parseCount(map[string]string{"byoyomi": "periods", "canadian": "stones"}[args[0]], args[3])
	if err != nil {
		return tc, err
	}
	if byo == 0 || k == 0 {
		if main == 0 {
			return tc, fmt.Errorf("syntax error: kgs-time_settings %s with no main time and no overtime would leave no time", args[0])
		}
		return TimeControl{System: Absolute, Main: main}, nil
	}
	if args[0] == "byoyomi" {
		return TimeControl{System: Byoyomi, Main: main, Byo: byo, Periods: k}, nil
	}
	return TimeControl{System: Canadian, Main: main, Byo: byo, Stones: k}, nil
}
