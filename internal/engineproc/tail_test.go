package engineproc

import "testing"

// TestTailBuffer keeps the last lines, drops carriage returns, and shows a
// partial last line.
func TestTailBuffer(t *testing.T) {
	tb := NewTailBuffer(2)
	_, _ = tb.Write([]byte("one\ntwo\r\nthr"))
	_, _ = tb.Write([]byte("ee\nfour"))
	if got, want := tb.String(), "two\nthree\nfour"; got != want {
		t.Errorf("tail %q, want %q", got, want)
	}
}
