// Package engineproc runs an outside program that speaks a line protocol
// (a GTP or UCI engine): it starts the program in a process group of its
// own, delivers what it writes from a reader goroutine, sends it lines,
// receives with a timeout or a context, keeps the last lines of its stderr,
// and waits for, kills and describes the death of the process.
package engineproc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"
)

// Config configures Start.
type Config struct {
	// Path is the program; Args its arguments.
	Path string
	Args []string
	// StderrLines is how many of the program's last stderr lines are kept
	// (default 20).
	StderrLines int
	// Prefix starts the messages of start and context errors ("gtp").
	Prefix string
	// Died is wrapped by the errors returned once the program has exited
	// or closed its output.
	Died error
}

// errStopped is why the reader stopped when Kill or Shutdown stopped it.
var errStopped = errors.New("engineproc: stopped")

// Proc is one running program whose output is read as items of type T. It
// is safe for use by one goroutine at a time, except that Kill may be
// called from any.
type Proc[T any] struct {
	cfg    Config
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    chan T
	done   chan struct{} // closed when the reader has stopped
	stop   chan struct{} // closed by Kill: the reader stops delivering
	once   sync.Once
	rerr   error // why the reader stopped; read after done
	stderr *TailBuffer
	waitMu sync.Mutex
	waited bool
	werr   error
}

// Start starts the program. newReader is called on the reader goroutine
// with the program's stdout and returns the function that reads the next
// item; an item it marks skip is dropped, and an error stops the reader.
func Start[T any](cfg Config, newReader func(io.Reader) func() (item T, skip bool, err error)) (*Proc[T], error) {
	if cfg.StderrLines <= 0 {
		cfg.StderrLines = 20
	}
	cmd := exec.Command(cfg.Path, cfg.Args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", cfg.Prefix, cfg.Path, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", cfg.Prefix, cfg.Path, err)
	}
	tb := NewTailBuffer(cfg.StderrLines)
	cmd.Stderr = tb
	// A program that leaves children holding its output open must not
	// hold up Wait once it has been killed.
	cmd.WaitDelay = time.Second
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: starting %s: %w", cfg.Prefix, cfg.Path, err)
	}
	p := &Proc[T]{cfg: cfg, cmd: cmd, stdin: stdin, out: make(chan T), done: make(chan struct{}), stop: make(chan struct{}), stderr: tb}
	go func() {
		defer close(p.done)
		next := newReader(stdout)
		for {
			item, skip, err := next()
			if err != nil {
				p.rerr = err
				return
			}
			if skip {
				continue
			}
			select {
			case p.out <- item:
			case <-p.stop:
				p.rerr = errStopped
				return
			}
		}
	}()
	return p, nil
}

// Stopped reports whether the reader has stopped: the program has closed
// its output or been killed.
func (p *Proc[T]) Stopped() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Send writes one line. When the program has gone it returns
// DiedError(line), killing it if the write failed.
func (p *Proc[T]) Send(line string) error {
	if p.Stopped() {
		return p.DiedError(line)
	}
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.Kill()
		return p.DiedError(line)
	}
	return nil
}

// Receive returns the next item read from the program. When the program has
// gone it returns DiedError(what); when timer receives (a Deadline's C) it
// kills the program
// and returns timedOut(); when ctx is done it kills the program and returns
// an error wrapping ctx's. what names the command waited on.
func (p *Proc[T]) Receive(ctx context.Context, timer <-chan time.Time, what string, timedOut func() error) (T, error) {
	var zero T
	select {
	case item := <-p.out:
		return item, nil
	case <-p.done:
		return zero, p.DiedError(what)
	case <-timer:
		p.Kill()
		return zero, timedOut()
	case <-ctx.Done():
		p.Kill()
		return zero, fmt.Errorf("%s: %q: %w", p.cfg.Prefix, what, ctx.Err())
	}
}

// DiedError describes why the program stopped answering at line: its exit
// status, or the reader's error, or that it closed its output. It wraps
// Config.Died.
func (p *Proc[T]) DiedError(line string) error {
	werr := p.wait(2 * time.Second)
	select {
	case <-p.done:
	case <-time.After(time.Second):
	}
	why := "closed its output"
	select {
	case <-p.done:
		if p.rerr != nil && !errors.Is(p.rerr, io.EOF) && !errors.Is(p.rerr, errStopped) {
			why = p.rerr.Error()
		}
	default:
	}
	if werr != nil {
		why = werr.Error()
	} else if p.cmd.ProcessState != nil {
		why = "exited with " + p.cmd.ProcessState.String()
	}
	return fmt.Errorf("%w at %q: %s", p.cfg.Died, line, why)
}

// wait waits up to d for the process to exit and returns its exit error;
// after d it kills the process.
func (p *Proc[T]) wait(d time.Duration) error {
	p.waitMu.Lock()
	defer p.waitMu.Unlock()
	if p.waited {
		return p.werr
	}
	ch := make(chan error, 1)
	go func() { ch <- p.cmd.Wait() }()
	select {
	case err := <-ch:
		p.werr = err
	case <-time.After(d):
		killProcess(p.cmd)
		p.werr = <-ch
	}
	p.waited = true
	return p.werr
}

// Kill stops the program and its process group at once.
func (p *Proc[T]) Kill() {
	p.once.Do(func() { close(p.stop) })
	killProcess(p.cmd)
	_ = p.stdin.Close()
	_ = p.wait(time.Second)
}

// Shutdown closes the program's input, waits up to a second for it to
// exit, then kills it, and stops the reader. Callers send their protocol's
// quit first.
func (p *Proc[T]) Shutdown() {
	_ = p.stdin.Close()
	_ = p.wait(time.Second)
	p.once.Do(func() { close(p.stop) })
}

// StderrTail returns the program's last stderr lines, joined by newlines.
func (p *Proc[T]) StderrTail() string { return p.stderr.String() }
