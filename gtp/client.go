package gtp

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

// EngineError is a failure response ("? ...") from the engine.
type EngineError struct {
	Command string
	Message string
}

func (e *EngineError) Error() string {
	return fmt.Sprintf("engine answered %q with: ? %s", e.Command, e.Message)
}

// ClientConfig configures Start.
type ClientConfig struct {
	// Path is the engine's program; Args its arguments.
	Path string
	Args []string
	// StderrLines is how many of the engine's last stderr lines are kept
	// for error reports (default 20).
	StderrLines int
}

// Client drives one outside engine process over GTP. It is safe for use by
// one goroutine at a time.
type Client struct {
	cfg    ClientConfig
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	resps  chan Response
	done   chan struct{} // closed when the reader has stopped
	stop   chan struct{} // closed by Kill: the reader stops delivering
	once   sync.Once
	rerr   error // why the reader stopped; read after done
	stderr *tailBuffer
	nextID int
	waitMu sync.Mutex
	waited bool
	werr   error
}

// Start starts the engine process.
func Start(cfg ClientConfig) (*Client, error) {
	if cfg.Path == "" {
		return nil, errors.New("gtp: no engine program")
	}
	if cfg.StderrLines <= 0 {
		cfg.StderrLines = 20
	}
	cmd := exec.Command(cfg.Path, cfg.Args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("gtp: %s: %w", cfg.Path, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("gtp: %s: %w", cfg.Path, err)
	}
	tb := &tailBuffer{max: cfg.StderrLines}
	cmd.Stderr = tb
	// An engine that leaves children holding its output open must not
	// hold up Wait once it has been killed.
	cmd.WaitDelay = time.Second
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("gtp: starting %s: %w", cfg.Path, err)
	}
	c := &Client{cfg: cfg, cmd: cmd, stdin: stdin, resps: make(chan Response), done: make(chan struct{}), stop: make(chan struct{}), stderr: tb}
	go func() {
		defer close(c.done)
		rr := NewResponseReader(stdout)
		for {
			r, err := rr.Read()
			if err != nil {
				c.rerr = err
				return
			}
			select {
			case c.resps <- r:
			case <-c.stop:
				c.rerr = ErrDied
				return
			}
		}
	}()
	return c, nil
}

// Do sends one command and returns the text of its success response. A
// failure response is an *EngineError; an engine that exits or closes its
// output gives an error wrapping ErrDied; one that does not answer within
// timeout (0: no limit) or before ctx is done is killed, and the error wraps
// ErrTimeout or ctx's error.
func (c *Client) Do(ctx context.Context, timeout time.Duration, name string, args ...string) (string, error) {
	c.nextID++
	cmd := Command{ID: c.nextID, HasID: true, Name: name, Args: args}
	line := cmd.String()
	select {
	case <-c.done:
		return "", c.diedError(line)
	default:
	}
	if _, err := io.WriteString(c.stdin, line+"\n"); err != nil {
		c.Kill()
		return "", c.diedError(line)
	}
	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	for {
		select {
		case r := <-c.resps:
			if r.HasID && r.ID != cmd.ID {
				continue // a late answer to an earlier command
			}
			if !r.Success {
				return "", &EngineError{Command: line, Message: r.Text}
			}
			return r.Text, nil
		case <-c.done:
			return "", c.diedError(line)
		case <-timer:
			c.Kill()
			return "", fmt.Errorf("%w: no answer to %q within %v", ErrTimeout, line, timeout)
		case <-ctx.Done():
			c.Kill()
			return "", fmt.Errorf("gtp: %q: %w", line, ctx.Err())
		}
	}
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
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, _ = c.Do(ctx, time.Second, "quit")
		cancel()
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
