package gtp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"tabula/internal/engineproc"
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
	proc   *engineproc.Proc[Response]
	nextID int
}

// Start starts the engine process.
func Start(cfg ClientConfig) (*Client, error) {
	if cfg.Path == "" {
		return nil, errors.New("gtp: no engine program")
	}
	if cfg.StderrLines <= 0 {
		cfg.StderrLines = 20
	}
	proc, err := engineproc.Start(engineproc.Config{Path: cfg.Path, Args: cfg.Args, StderrLines: cfg.StderrLines, Prefix: "gtp", Died: ErrDied},
		func(r io.Reader) func() (Response, bool, error) {
			rr := NewResponseReader(r)
			return func() (Response, bool, error) {
				resp, err := rr.Read()
				return resp, false, err
			}
		})
	if err != nil {
		return nil, err
	}
	return &Client{cfg: cfg, proc: proc}, nil
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
	if err := c.proc.Send(line); err != nil {
		return "", err
	}
	dl := c.proc.Deadline(timeout)
	defer dl.Stop()
	timedOut := func() error {
		return fmt.Errorf("%w: no answer to %q %s", ErrTimeout, line, dl.Why())
	}
	for {
		r, err := c.proc.Receive(ctx, dl.C, line, timedOut)
		if err != nil {
			return "", err
		}
		if r.HasID && r.ID != cmd.ID {
			continue // a late answer to an earlier command
		}
		if !r.Success {
			return "", &EngineError{Command: line, Message: r.Text}
		}
		return r.Text, nil
	}
}

// Kill stops the engine at once.
func (c *Client) Kill() { c.proc.Kill() }

// Close asks the engine to quit, waiting up to a second, then kills it.
func (c *Client) Close() error {
	if !c.proc.Stopped() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, _ = c.Do(ctx, time.Second, "quit")
		cancel()
	}
	c.proc.Shutdown()
	return nil
}

// StderrTail returns the engine's last stderr lines, joined by newlines.
func (c *Client) StderrTail() string { return c.proc.StderrTail() }
