package chess

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// EPD is one record of Extended Position Description, the test-suite format
// of chess programs: a position (FEN's first four fields) and operations,
// each an opcode with operands ended by a semicolon, such as
//
//	2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";
type EPD struct {
	Pos Position
	// ID is the id operation's operand ("" when there is none).
	ID string
	// Best and Avoid are the bm and am moves, read as SAN in Pos.
	Best, Avoid []Move
	// Ops holds every operation's operands as written, quotes removed, by
	// opcode (bm, am and id included).
	Ops map[string][]string
}

// ParseEPD reads one EPD record. The position must be legal (ParseFEN), an
// operation must end with a semicolon, and every bm and am move must be a
// legal move of the position in SAN; an error says which part is wrong.
func ParseEPD(line string) (EPD, error) {
	fields := strings.Fields(line)
	if len(fields) < 4 {
		return EPD{}, fmt.Errorf("epd %q: %d fields, want the 4 of the position then operations", line, len(fields))
	}
	pos, err := ParseFEN(strings.Join(fields[:4], " "))
	if err != nil {
		return EPD{}, fmt.Errorf("epd: %w", err)
	}
	e := EPD{Pos: pos, Ops: map[string][]string{}}
	rest := line
	for range 4 {
		rest = strings.TrimLeft(rest, " \t")
		if i := strings.IndexAny(rest, " \t"); i >= 0 {
			rest = rest[i:]
		} else {
			rest = ""
		}
	}
	ops, err := splitOps(rest)
	if err != nil {
		return EPD{}, fmt.Errorf("epd %q: %w", line, err)
	}
	for _, op := range ops {
		code, operands := op[0], op[1:]
		if _, dup := e.Ops[code]; dup {
			return EPD{}, fmt.Errorf("epd %q: operation %s given twice", line, code)
		}
		e.Ops[code] = operands
		switch code {
		case "id":
			if len(operands) != 1 {
				return EPD{}, fmt.Errorf("epd %q: id has %d operands, want 1", line, len(operands))
			}
			e.ID = operands[0]
		case "bm", "am":
			if len(operands) == 0 {
				return EPD{}, fmt.Errorf("epd %q: %s has no move", line, code)
			}
			for _, san := range operands {
				m, err := e.Pos.ParseSAN(san)
				if err != nil {
					return EPD{}, fmt.Errorf("epd %q: %s: %w", line, code, err)
				}
				if code == "bm" {
					e.Best = append(e.Best, m)
				} else {
					e.Avoid = append(e.Avoid, m)
				}
			}
		}
	}
	return e, nil
}

// splitOps splits EPD operations: each is an opcode and its operands
// separated by blanks and ended by ';'. A double-quoted operand may hold
// blanks and semicolons; its quotes are removed.
func splitOps(s string) ([][]string, error) {
	var ops [][]string
	var cur []string
	var tok strings.Builder
	inTok, quoted := false, false
	flush := func() {
		if inTok {
			cur = append(cur, tok.String())
			tok.Reset()
			inTok = false
		}
	}
	for _, c := range s {
		switch {
		case quoted && c == '"':
			quoted = false
		case quoted:
			tok.WriteRune(c)
		case c == '"':
			quoted, inTok = true, true
		case c == ';':
			flush()
			if len(cur) == 0 {
				return nil, fmt.Errorf("an empty operation (a semicolon with no opcode)")
			}
			ops = append(ops, cur)
			cur = nil
		case c == ' ' || c == '\t':
			flush()
		default:
			tok.WriteRune(c)
			inTok = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("an unclosed quote")
	}
	flush()
	if len(cur) > 0 {
		return nil, fmt.Errorf("operation %q has no closing semicolon", strings.Join(cur, " "))
	}
	return ops, nil
}

// ReadEPD reads EPD records, one a line; blank lines and lines starting
// with '#' are skipped. An error names the line.
func ReadEPD(r io.Reader) ([]EPD, error) {
	var out []EPD
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		e, err := ParseEPD(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Solved reports whether playing m answers the record: m is one of the best
// moves when there are any, and none of the moves to avoid.
func (e *EPD) Solved(m Move) bool {
	for _, a := range e.Avoid {
		if a == m {
			return false
		}
	}
	if len(e.Best) == 0 {
		return len(e.Avoid) > 0
	}
	for _, b := range e.Best {
		if b == m {
			return true
		}
	}
	return false
}
