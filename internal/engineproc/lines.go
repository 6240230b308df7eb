package engineproc

import (
	"bufio"
	"io"
	"strings"
)

// LineReader reads lines of at most a fixed length; a longer line is
// reported and skipped, not an error that ends the input, so that one bad
// line does not stop an engine or a session.
type LineReader struct {
	r   *bufio.Reader
	max int
}

// NewLineReader reads lines of at most max bytes from r.
func NewLineReader(r io.Reader, max int) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, 4096), max: max}
}

// Next returns the next line without its line ending. tooLong reports a
// line longer than the limit, of which line holds the first bytes. At the end
// of input it returns io.EOF (after a last line without a newline).
func (lr *LineReader) Next() (line string, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if len(buf)+len(chunk) > lr.max+2 {
			tooLong = true
			if room := lr.max - len(buf); room > 0 {
				buf = append(buf, chunk[:min(room, len(chunk))]...)
			}
		} else {
			buf = append(buf, chunk...)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && (len(buf) > 0 || tooLong):
			return strings.TrimRight(string(buf), "\r\n"), tooLong, nil
		case err != nil:
			return "", false, err
		}
		return strings.TrimRight(string(buf), "\r\n"), tooLong, nil
	}
}

// Line is one input line: its text without the line ending, and whether it
// was longer than the limit (Text then holds its first bytes).
type Line struct {
	Text    string
	TooLong bool
}

// ReadLines reads lines of at most max bytes from r on a goroutine of its
// own and delivers them on lines, which it closes at the end of r or on a
// read error; an error other than io.EOF is first sent on errc, which holds
// one. Closing stop ends the goroutine.
func ReadLines(r io.Reader, max int, stop <-chan struct{}) (lines <-chan Line, errc <-chan error) {
	out := make(chan Line)
	ec := make(chan error, 1)
	go func() {
		defer close(out)
		lr := NewLineReader(r, max)
		for {
			text, tooLong, err := lr.Next()
			if err != nil {
				if err != io.EOF {
					ec <- err
				}
				return
			}
			select {
			case out <- Line{text, tooLong}:
			case <-stop:
				return
			}
		}
	}()
	return out, ec
}
