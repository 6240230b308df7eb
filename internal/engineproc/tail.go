package engineproc

import (
	"strings"
	"sync"
)

// TailBuffer keeps the last lines written to it, each cut to 1024 bytes.
type TailBuffer struct {
	mu      sync.Mutex
	max     int
	lines   []string
	partial []byte
}

// NewTailBuffer keeps the last max lines.
func NewTailBuffer(max int) *TailBuffer { return &TailBuffer{max: max} }

// Write records p's complete lines and holds back a last partial one.
func (t *TailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, b := range p {
		if b == '\n' {
			t.push(string(t.partial))
			t.partial = t.partial[:0]
			continue
		}
		if len(t.partial) < 1024 {
			t.partial = append(t.partial, b)
		}
	}
	return len(p), nil
}

func (t *TailBuffer) push(line string) {
	line = strings.TrimRight(line, "\r")
	t.lines = append(t.lines, line)
	if len(t.lines) > t.max {
		t.lines = t.lines[len(t.lines)-t.max:]
	}
}

// String returns the kept lines and any partial last one, joined by
// newlines.
func (t *TailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := t.lines
	if len(t.partial) > 0 {
		lines = append(lines[:len(lines):len(lines)], string(t.partial))
	}
	return strings.Join(lines, "\n")
}
