// Package progress shows how far a long job has got: a bar with a count and a
// time estimate on a terminal, plain periodic lines (no carriage returns) in a
// log file, a pipe or CI.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Bar is what a long job reports to: a terminal bar or periodic lines.
type Bar interface {
	Add(n int) error
	Set(n int) error
	Finish() error
}

// LineEvery is how often a progress line is written when the output
// is not a terminal (a log file, a pipe, CI).
var LineEvery = 10 * time.Second

// New returns a progress display for a job of n units: a bar with a
// count and a time estimate on a terminal, plain lines every
// LineEvery (no carriage returns) on anything else, and nothing for
// a nil writer.
func New(w io.Writer, n int, desc string) Bar {
	switch {
	case w == nil:
		return noProgress{}
	case IsTerminal(w):
		return progressbar.NewOptions(n, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(desc),
			progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish(),
			progressbar.OptionThrottle(200*time.Millisecond))
	}
	return &lineProgress{w: w, desc: desc, total: n, start: time.Now(), last: time.Now()}
}

// IsTerminal reports whether w is a terminal: a file whose terminal
// attributes can be read (termios on Unix, a console mode on Windows).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	return term.IsTerminal(int(f.Fd()))
}

type noProgress struct{}

func (noProgress) Add(int) error { return nil }
func (noProgress) Set(int) error { return nil }
func (noProgress) Finish() error { return nil }

// lineProgress writes "desc: done/total (pct%), elapsed, eta" lines, at most
// one per LineEvery, and a last line at Finish if it wrote any.
type lineProgress struct {
	mu          sync.Mutex
	w           io.Writer
	desc        string
	total, done int
	start, last time.Time
	wrote       bool
	finished    bool
}

func (p *lineProgress) Add(n int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.update(p.done + n)
}

func (p *lineProgress) Set(n int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.update(n)
}

func (p *lineProgress) update(n int) error {
	p.done = n
	if p.finished || time.Since(p.last) < LineEvery {
		return nil
	}
	return p.line()
}

func (p *lineProgress) Finish() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return nil
	}
	p.finished = true
	if !p.wrote {
		return nil
	}
	return p.line()
}

// line writes the current state; called with mu held.
func (p *lineProgress) line() error {
	p.last = time.Now()
	p.wrote = true
	elapsed := time.Since(p.start)
	msg := fmt.Sprintf("%s: %d/%d", p.desc, p.done, p.total)
	if p.total > 0 {
		msg += fmt.Sprintf(" (%.0f%%)", 100*float64(p.done)/float64(p.total))
	}
	msg += fmt.Sprintf(", %s elapsed", elapsed.Round(time.Second))
	if p.done > 0 && p.done < p.total && !p.finished {
		eta := time.Duration(float64(elapsed) * float64(p.total-p.done) / float64(p.done))
		msg += fmt.Sprintf(", about %s left", eta.Round(time.Second))
	}
	_, err := fmt.Fprintln(p.w, msg)
	return err
}
