package uci

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"tabula/internal/engineproc"
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
	cfg  ClientConfig
	proc *engineproc.Proc[string]
}

// Start starts the engine process.
func Start(cfg ClientConfig) (*Client, error) {
	if cfg.Path == "" {
		return nil, errors.New("uci: no engine program")
	}
	if cfg.StderrLines <= 0 {
		cfg.StderrLines = 20
	}
	proc, err := engineproc.Start(engineproc.Config{Path: cfg.Path, Args: cfg.Args, StderrLines: cfg.StderrLines, Prefix: "uci", Died: ErrDied},
		func(r io.Reader) func() (string, bool, error) {
			// A line longer than MaxLineBytes is skipped.
			return engineproc.NewLineReader(r, MaxLineBytes).Next
		})
	if err != nil {
		return nil, err
	}
	return &Client{cfg: cfg, proc: proc}, nil
}

// Send writes one command line. An engine that has gone gives an error
// wrapping ErrDied.
func (c *Client) Send(line string) error { return c.proc.Send(line) }

// Await reads the engine's lines, passing each to seen (if not nil), until
// one whose first word is want, and returns that line. An engine that exits
// gives an error wrapping ErrDied; one that does not send it within timeout
// (0: no limit) or before ctx is done is killed, and the error wraps
// ErrTimeout or ctx's error. after names the command waited on, for errors.
func (c *Client) Await(ctx context.Context, timeout time.Duration, after, want string, seen func(fields []string)) (string, error) {
	dl := c.proc.Deadline(timeout)
	defer dl.Stop()
	timedOut := func() error {
		return fmt.Errorf("%w: no %s after %q %s", ErrTimeout, want, after, dl.Why())
	}
	for {
		line, err := c.proc.Receive(ctx, dl.C, after, timedOut)
		if err != nil {
			return "", err
		}
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

// Kill stops the engine at once.
func (c *Client) Kill() { c.proc.Kill() }

// Close asks the engine to quit, waiting up to a second, then kills it.
func (c *Client) Close() error {
	if !c.proc.Stopped() {
		_ = c.Send("quit")
	}
	c.proc.Shutdown()
	return nil
}

// StderrTail returns the engine's last stderr lines, joined by newlines.
func (c *Client) StderrTail() string { return c.proc.StderrTail() }
