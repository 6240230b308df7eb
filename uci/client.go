package uci

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// ErrDied is wrapped by the errors Client returns once the engine has exited
// or closed its output.
var ErrDied = errors.New("engine died")

// ErrTimeout is wrapped by the error Client returns when the engine does not
// answer within the time allowed; the engine is killed.
var ErrTimeout = errors.New("engine timed out")

// ClientConfig configures Start.
type ClientConfig struct {
	// Path is the engine's program; Args its arguments.
	Path string
	Args []string
	// StderrLines is how many of the engine's last stderr lines are kept
	// for error reports (default 20).
	StderrLines int
}

// Client drives one outside engine process over UCI. It is safe for use by
// one goroutine at a time.
type Client struct {
	cfg    ClientConfig
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	done   chan struct{} // closed when the reader has stopped
	stop   chan struct{} // closed by Kill: the reader stops delivering
	once   sync.Once
	rerr   error // why the reader stopped; read after done
	stderr *tailBuffer
	waitMu sync.Mutex
	waited bool
	werr   error
}

// Start starts the engine process.
func Start(cfg ClientConfig) (*Client, error) {
	if cfg.Path == "" {
		return nil, errors.New("uci: no engine program")
	}
	if cfg.StderrLines <= 0 {
		cfg.StderrLines = 20
	}
	cmd := exec.Command(cfg.Path, cfg.Args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("uci: %s: %w", cfg.Path, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("uci: %s: %w", cfg.Path, err)
	}
	tb := &tailBuffer{max: cfg.StderrLines}
	cmd.Stderr = tb
	// An engine that leaves children holding its output open must not
	// hold up Wait once it has been killed.
	cmd.WaitDelay = time.Second
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("uci: starting %s: %w", cfg.Path, err)
	}
	c := &Client{cfg: cfg, cmd: cmd, stdin: stdin, lines: make(chan string), done: make(chan struct{}), stop: make(chan struct{}), stderr: tb}
	go func() {
		defer close(c.done)
		lr := newLineReader(stdout)
		for {
			line, tooLong, err := lr.next()
			if err != nil {
				c.rerr = err
				return
			}
			if tooLong {
				continue
			}
			select {
			case c.lines <- line:
			case <-c.stop:
				c.rerr = ErrDied
				return
			}
		}
	}()
	return c, nil
}

// Send writes one command line. An engine that has gone gives an error
// wrapping ErrDied.
func (c *Client) Send(line string) error {
	select {
	case <-c.done:
		return c.diedError(line)
	default:
	}
	if _, err := io.WriteString(c.stdin, line+"\n"); err != nil {
		c.Kill()
		return c.diedError(line)
	}
	return nil
}

// Await reads the engine's lines, passing each to seen (if not nil), until
// one whose first word is want, and returns that line. An engine that exits
// gives an error wrapping ErrDied; one that does not send it within timeout
// (0: no limit) or before ctx is done is killed, and the error wraps
// ErrTimeout or ctx's error. after names the command waited on, for errors.
func (c *Client) Await(ctx context.Context, timeout time.Duration, after, want string, seen func(fields []string)) (string, error) {
	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	for {
		select {
		case line := <-c.lines:
			f := strings.Fields(line)
			if len(f) == 0 {
				continue
			}
			if seen != nil {
				seen(f)
			}
			if f[0] == want {
				return line, nil
			}
		case <-c.done:
			return "", c.diedError(after)
		case <-timer:
			c.Kill()
			return "", fmt.Errorf("%w: no %s after %q within %v", ErrTimeout, want, after, timeout)
		case <-ctx.Done():
			c.Kill()
			return "", fmt.Errorf("uci: %q: %w", after, ctx.Err())
		}
	}
}

// Handshake sends uci and returns the engine's name and the options it
// declares.
func (c *Client) Handshake(ctx context.Context, timeout time.Duration) (name string, opts []Option, err error) {
	if err := c.Send("uci"); err != nil {
		return "", nil, err
	}
	_, err = c.Await(ctx, timeout, "uci", "uciok", func(f []string) {
		switch {
		case len(f) > 2 && f[0] == "id" && f[1] == "name":
			name = strings.Join(f[2:], " ")
		case f[0] == "option":
			if o, err := ParseOption(f[1:]); err == nil {
				opts = append(opts, o)
			}
		}
	})
	return name, opts, err
}

// IsReady sends isready and waits for readyok.
func (c *Client) IsReady(ctx context.Context, timeout time.Duration) error {
	if err := c.Send("isready"); err != nil {
		return err
	}
	_, err := c.Await(ctx, timeout, "isready", "readyok", nil)
	return err
}

// Go sends the position and a go command with the limits, and returns the
// engine's bestmove text (as sent: "e2e4", "(none)", "0000", or anything
// else the engine wrote) with its last info line's depth, nodes and score.
func (c *Client) Go(ctx context.Context, timeout time.Duration, position string, lim Limits) (string, Info, error) {
	if err := c.Send("position " + position); err != nil {
		return "", Info{}, err
	}
	goLine := strings.TrimSpace("go " + lim.String())
	if err := c.Send(goLine); err != nil {
		return "", Info{}, err
	}
	var info Info
	line, err := c.Await(ctx, timeout, goLine, "bestmove", func(f []string) {
		if f[0] == "info" {
			if in := ParseInfo(f[1:]); in.Score.Known {
				info = in
			}
		}
	})
	if err != nil {
		return "", info, err
	}
	f := strings.Fields(line)
	if len(f) < 2 {
		return "", info, nil
	}
	return f[1], info, nil
}

// diedError describes why the engine stopped answering.
func (c *Client) diedError(line string) error {
	werr := c.wait(2 * time.Second)
	select {
	case <-c.done:
	case <-time.After(time.Second):
	}
	why := "closed its output"
	select {
	case <-c.done:
		if c.rerr != nil && !errors.Is(c.rerr, io.EOF) && !errors.Is(c.rerr, ErrDied) {
			why = c.rerr.Error()
		}
	default:
	}
	if werr != nil {
		why = werr.Error()
	} else if c.cmd.ProcessState != nil {
		why = "exited with " + c.cmd.ProcessState.String()
	}
	return fmt.Errorf("%w at %q: %s", ErrDied, line, why)
}

// wait waits up to d for the process to exit and returns its exit error;
// after d it kills the process.
func (c *Client) wait(d time.Duration) error {
	c.waitMu.Lock()
	defer c.waitMu.Unlock()
	if c.waited {
		return c.werr
	}
	ch := make(chan error, 1)
	go func() { ch <- c.cmd.Wait() }()
	select {
	case err := <-ch:
		c.werr = err
	case <-time.After(d):
		killProcess(c.cmd)
		c.werr = <-ch
	}
	c.waited = true
	return c.werr
}

// Kill stops the engine at once.
func (c *Client) Kill() {
	c.once.Do(func() { close(c.stop) })
	killProcess(c.cmd)
	_ = c.stdin.Close()
	_ = c.wait(time.Second)
}

// Close asks the engine to quit, waiting up to a second, then kills it.
func (c *Client) Close() error {
	select {
	case <-c.done:
	default:
		_ = c.Send("quit")
	}
	_ = c.stdin.Close()
	_ = c.wait(time.Second)
	c.once.Do(func() { close(c.stop) })
	return nil
}

// StderrTail returns the engine's last stderr lines, joined by newlines.
func (c *Client) StderrTail() string { return c.stderr.String() }

// tailBuffer keeps the last max lines written to it.
type tailBuffer struct {
	mu      sync.Mutex
	max     int
	lines   []string
	partial []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
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

func (t *tailBuffer) push(line string) {
	line = strings.TrimRight(line, "\r")
	t.lines = append(t.lines, line)
	if len(t.lines) > t.max {
		t.lines = t.lines[len(t.lines)-t.max:]
	}
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := t.lines
	if len(t.partial) > 0 {
		lines = append(lines[:len(lines):len(lines)], string(t.partial))
	}
	return strings.Join(lines, "\n")
}
