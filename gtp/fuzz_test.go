package gtp

import (
	"io"
	"strings"
	"testing"
	"time"
)

// FuzzParseCommand checks that any line parses without panicking and that a
// parsed command reads back the same from its String form.
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"1 genmove b", "play w D4 # c", "\x00name\t", "42", "", "-1 x y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		cmd, ok, err := ParseCommand(line)
		if !ok || err != nil {
			return
		}
		again, ok2, err2 := ParseCommand(cmd.String())
		if !ok2 || err2 != nil || again.String() != cmd.String() {
			t.Errorf("%q -> %q -> %q (%v, %v)", line, cmd.String(), again.String(), ok2, err2)
		}
	})
}

// FuzzResponseReader checks that any engine output reads without panicking
// or looping, and that what WriteResponse writes reads back.
func FuzzResponseReader(f *testing.F) {
	for _, s := range []string{"= D4\n\n", "?3 illegal move\n\n", "=\nA\nB\n\n", "garbage", "=12"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		rr := NewResponseReader(strings.NewReader(out))
		for range len(out) + 1 {
			if _, err := rr.Read(); err != nil {
				break
			}
		}
		var b strings.Builder
		text := strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(out, "\r", ""), "\n", " "))
		if err := WriteResponse(&b, Command{ID: 7, HasID: true}, true, text); err != nil {
			t.Fatal(err)
		}
		r, err := NewResponseReader(strings.NewReader(b.String())).Read()
		if err != nil && err != io.EOF {
			t.Fatalf("reading back %q: %v", b.String(), err)
		}
		if err == nil && (r.ID != 7 || !r.Success || r.Text != strings.TrimSpace(text)) {
			t.Errorf("wrote %q, read %+v", text, r)
		}
	})
}

// FuzzTimeSettings checks that any arguments to time_settings and
// kgs-time_settings parse without panicking into a clock whose budgets are
// never negative and never exceed the time a player has.
func FuzzTimeSettings(f *testing.F) {
	for _, s := range []string{"300 0 0", "0 30 0", "600 60 25", "byoyomi 60 30 5", "canadian 0 10 1", "absolute 1e7", "none", "1.5 NaN 3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		for _, parse := range []func([]string) (TimeControl, error){parseTimeSettings, parseKGSTimeSettings} {
			tc, err := parse(strings.Fields(args))
			if err != nil {
				continue
			}
			var c Clock
			c.SetControl(tc)
			left, _ := c.Left(0)
			b := c.Budget(0, 30)
			if b < 0 || (tc.System != NoTime && b > max(left+tc.Byo, time.Millisecond)) {
				t.Errorf("%q: %+v gives a budget of %v with %v left", args, tc, b, left)
			}
		}
	})
}
