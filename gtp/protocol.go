// Package gtp speaks the Go Text Protocol (GTP version 2) from both sides:
// Engine answers a controller's commands on behalf of any move chooser (the
// `play gtp` command), and Client drives an outside engine such as GNU Go or
// GRhino (the gtp, gnugo and grhino players of package players). Both share the
// protocol's parsing and formatting and the mapping between a game and its
// GTP dialect (Dialect).
//
// Two games have a GTP dialect: Go (vertices such as "D4", columns A..T
// without I, rows counted from the bottom, "pass") and Othello as GRhino
// speaks it (columns a..h, rows 1..8 counted from the top, "pass").
package gtp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"tabula/internal/engineproc"
)

// MaxLineBytes is the longest command or response line accepted; longer ones
// are an error rather than an unbounded buffer.
const MaxLineBytes = 64 << 10

// Command is one parsed command line: an optional numeric id, the command
// name and its arguments.
type Command struct {
	ID    int
	HasID bool
	Name  string
	Args  []string
}

// String writes the command as a line without the newline.
func (c Command) String() string {
	var b strings.Builder
	if c.HasID {
		b.WriteString(strconv.Itoa(c.ID))
		b.WriteByte(' ')
	}
	b.WriteString(c.Name)
	for _, a := range c.Args {
		b.WriteByte(' ')
		b.WriteString(a)
	}
	return b.String()
}

// Preprocess applies the protocol's cleaning of an input line: control
// characters other than tab and newline are removed, tabs become spaces,
// everything from '#' on is a comment, and surrounding space is trimmed.
func Preprocess(line string) string {
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	clean := true
	for i := 0; i < len(line); i++ {
		if c := line[i]; c < 32 || c == 127 {
			clean = false
			break
		}
	}
	if !clean {
		b := make([]byte, 0, len(line))
		for i := 0; i < len(line); i++ {
			switch c := line[i]; {
			case c == '\t':
				b = append(b, ' ')
			case c < 32 || c == 127:
			default:
				b = append(b, c)
			}
		}
		line = string(b)
	}
	return strings.TrimSpace(line)
}

// ParseCommand reads one command line. It returns ok false for a line that
// is empty after preprocessing (the protocol ignores those), and an error
// for a line that has an id but no command.
func ParseCommand(line string) (cmd Command, ok bool, err error) {
	fields := strings.Fields(Preprocess(line))
	if len(fields) == 0 {
		return Command{}, false, nil
	}
	if id, err := strconv.Atoi(fields[0]); err == nil && fields[0][0] >= '0' && fields[0][0] <= '9' {
		cmd.ID, cmd.HasID = id, true
		fields = fields[1:]
		if len(fields) == 0 {
			return cmd, true, errors.New("syntax error: an id without a command")
		}
	}
	cmd.Name = fields[0]
	cmd.Args = fields[1:]
	return cmd, true, nil
}

// WriteResponse writes a success ("=") or failure ("?") response with the
// command's id, if it had one, and the blank line that ends it. Blank lines
// inside text would end the response early, so they are dropped.
func WriteResponse(w io.Writer, cmd Command, success bool, text string) error {
	var b strings.Builder
	if success {
		b.WriteByte('=')
	} else {
		b.WriteByte('?')
	}
	if cmd.HasID {
		b.WriteString(strconv.Itoa(cmd.ID))
	}
	lines := strings.Split(strings.ReplaceAll(text, "\r", ""), "\n")
	b.WriteByte(' ')
	b.WriteString(lines[0])
	for _, l := range lines[1:] {
		if strings.TrimSpace(l) != "" {
			b.WriteByte('\n')
			b.WriteString(l)
		}
	}
	b.WriteString("\n\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Response is one response read from an engine.
type Response struct {
	Success bool
	ID      int
	HasID   bool
	Text    string // the text after the status and id, lines joined by "\n"
}

// ResponseReader reads responses from an engine's output.
type ResponseReader struct {
	sc *bufio.Scanner
}

// NewResponseReader reads responses from r.
func NewResponseReader(r io.Reader) *ResponseReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), MaxLineBytes)
	return &ResponseReader{sc: sc}
}

// Read returns the next response. Blank lines before a response are
// skipped. It returns io.EOF at a clean end of input before a response, and
// io.ErrUnexpectedEOF when the input ends inside one.
func (rr *ResponseReader) Read() (Response, error) {
	var first string
	for {
		if !rr.sc.Scan() {
			if err := rr.sc.Err(); err != nil {
				return Response{}, err
			}
			return Response{}, io.EOF
		}
		first = strings.TrimRight(rr.sc.Text(), "\r")
		if strings.TrimSpace(first) != "" {
			break
		}
	}
	var resp Response
	switch first[0] {
	case '=':
		resp.Success = true
	case '?':
	default:
		return Response{}, fmt.Errorf("gtp: response line %q does not start with '=' or '?'", clip(first))
	}
	rest := first[1:]
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	if i > 0 {
		id, err := strconv.Atoi(rest[:i])
		if err != nil {
			return Response{}, fmt.Errorf("gtp: response id in %q: %w", clip(first), err)
		}
		resp.ID, resp.HasID = id, true
	}
	lines := []string{strings.TrimSpace(rest[i:])}
	for {
		if !rr.sc.Scan() {
			if err := rr.sc.Err(); err != nil {
				return Response{}, err
			}
			return Response{}, io.ErrUnexpectedEOF
		}
		l := strings.TrimRight(rr.sc.Text(), "\r")
		if strings.TrimSpace(l) == "" {
			break
		}
		lines = append(lines, l)
	}
	if lines[0] == "" && len(lines) > 1 {
		lines = lines[1:]
	}
	resp.Text = strings.Join(lines, "\n")
	return resp, nil
}

// clip shortens text for an error message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// ParseColor reads a GTP colour: "b", "black", "w" or "white" in any case.
// It returns 0 for black (the first mover) and 1 for white.
func ParseColor(text string) (int, error) {
	switch strings.ToLower(text) {
	case "b", "black":
		return 0, nil
	case "w", "white":
		return 1, nil
	}
	return 0, fmt.Errorf("invalid color %q: want b, black, w or white", clip(text))
}

// ColorName returns "b" for player 0 and "w" for player 1.
func ColorName(player int) string {
	if player == 0 {
		return "b"
	}
	return "w"
}

// LineReader reads lines of at most a fixed length; a longer line is
// reported and skipped, not an error that ends the input, so that one bad
// line does not stop an engine or a session. Its Next returns the next line
// without its line ending, whether it was too long (line then holds its
// first bytes), and io.EOF at the end of input.
type LineReader = engineproc.LineReader

// NewLineReader reads lines of at most max bytes from r.
func NewLineReader(r io.Reader, max int) *LineReader { return engineproc.NewLineReader(r, max) }
