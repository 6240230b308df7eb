package chess

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// PGNGame is one game of a PGN file: its tags in order, the position it
// starts from (the FEN tag's, else the initial position), its moves and
// its result ("1-0", "0-1", "1/2-1/2" or "*"). Comments, when not nil,
// holds the comment after each move ("" for none): String writes them as
// {comment}, ParsePGN reads those of the main line.
type PGNGame struct {
	Tags     [][2]string
	Start    Position
	Moves    []Move
	Comments []string
	Result   string
}

// Tag returns the value of tag name, or "".
func (g *PGNGame) Tag(name string) string {
	for _, t := range g.Tags {
		if t[0] == name {
			return t[1]
		}
	}
	return ""
}

// SetTag sets tag name to value, replacing an existing one.
func (g *PGNGame) SetTag(name, value string) {
	for i, t := range g.Tags {
		if t[0] == name {
			g.Tags[i][1] = value
			return
		}
	}
	g.Tags = append(g.Tags, [2]string{name, value})
}

// sevenTags is PGN's Seven Tag Roster, written first and in this order.
var sevenTags = []string{"Event", "Site", "Date", "Round", "White", "Black", "Result"}

// String writes the game in PGN export format: the Seven Tag Roster ("?"
// for a missing tag), then the other tags, a blank line, the moves in SAN
// with move numbers, lines of at most 80 characters, and the result.
func (g *PGNGame) String() string {
	var b strings.Builder
	result := g.Result
	if result == "" {
		result = "*"
	}
	for _, name := range sevenTags {
		v := g.Tag(name)
		switch {
		case name == "Result":
			v = result
		case v == "" && name == "Date":
			v = "????.??.??"
		case v == "":
			v = "?"
		}
		fmt.Fprintf(&b, "[%s %s]\n", name, quotePGN(v))
	}
	start := g.Start
	if start.fullmove == 0 { // a zero Position: the game starts at the initial position
		start = StartPosition()
	}
	isStart := start.FEN() == StartFEN
	for _, t := range g.Tags {
		if contains(sevenTags, t[0]) || t[0] == "FEN" || t[0] == "SetUp" {
			continue
		}
		fmt.Fprintf(&b, "[%s %s]\n", t[0], quotePGN(t[1]))
	}
	if !isStart {
		fmt.Fprintf(&b, "[SetUp \"1\"]\n[FEN %s]\n", quotePGN(start.FEN()))
	}
	b.WriteByte('\n')
	p := start
	line := 0
	word := func(w string) {
		if line > 0 && line+1+len(w) > 80 {
			b.WriteByte('\n')
			line = 0
		}
		if line > 0 {
			b.WriteByte(' ')
			line++
		}
		b.WriteString(w)
		line += len(w)
	}
	for i, m := range g.Moves {
		if p.side == White {
			word(fmt.Sprintf("%d.", p.fullmove))
		} else if i == 0 {
			word(fmt.Sprintf("%d...", p.fullmove))
		}
		word(p.SAN(m))
		if i < len(g.Comments) && g.Comments[i] != "" {
			// A comment ends at the first '}': PGN has no escape for it.
			word("{" + strings.ReplaceAll(g.Comments[i], "}", ")") + "}")
		}
		p.Make(m)
	}
	word(result)
	b.WriteByte('\n')
	return b.String()
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

func quotePGN(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// ParsePGN reads the games of a PGN text. Move text is SAN (ParseSAN's
// variants accepted); move numbers, comments ({...} and ; to the end of the
// line), numeric annotation glyphs ($1), suffix annotations and variations
// in parentheses, nested or not, are skipped. Every move is checked for
// legality; an error names the game, the move and what is wrong.
func ParsePGN(text string) ([]PGNGame, error) {
	var out []PGNGame
	r := &pgnReader{s: text}
	for {
		r.skipSpace()
		if r.i >= len(r.s) {
			return out, nil
		}
		g, err := r.game()
		if err != nil {
			return out, fmt.Errorf("pgn game %d: %w", len(out)+1, err)
		}
		out = append(out, g)
	}
}

type pgnReader struct {
	s        string
	i        int
	comments []string // the {comments} skipped since the last move
}

func (r *pgnReader) skipSpace() {
	for r.i < len(r.s) {
		c := r.s[r.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			r.i++
		case c == '%' && (r.i == 0 || r.s[r.i-1] == '\n'): // escape line
			r.skipLine()
		case c == ';':
			r.skipLine()
		case c == '{':
			j := strings.IndexByte(r.s[r.i:], '}')
			if j < 0 {
				j = len(r.s) - r.i
			}
			r.comments = append(r.comments, strings.Join(strings.Fields(r.s[r.i+1:r.i+j]), " "))
			r.i = min(r.i+j+1, len(r.s))
		default:
			return
		}
	}
}

func (r *pgnReader) skipLine() {
	if j := strings.IndexByte(r.s[r.i:], '\n'); j >= 0 {
		r.i += j + 1
	} else {
		r.i = len(r.s)
	}
}

// game reads the tags and the movetext of one game.
func (r *pgnReader) game() (PGNGame, error) {
	var g PGNGame
	for r.skipSpace(); r.i < len(r.s) && r.s[r.i] == '['; r.skipSpace() {
		end := strings.IndexByte(r.s[r.i:], '\n')
		if end < 0 {
			end = len(r.s) - r.i
		}
		line := strings.TrimSpace(r.s[r.i : r.i+end])
		r.i += end
		name, value, ok := parseTag(line)
		if !ok {
			return g, fmt.Errorf("malformed tag %q, want [Name \"value\"]", line)
		}
		g.Tags = append(g.Tags, [2]string{name, value})
	}
	g.Start = StartPosition()
	if fen := g.Tag("FEN"); fen != "" {
		p, err := ParseFEN(fen)
		if err != nil {
			return g, err
		}
		g.Start = p
	}
	p := g.Start
	depth := 0 // variation nesting
	for {
		r.comments = r.comments[:0]
		r.skipSpace()
		if depth == 0 && len(g.Moves) > 0 && len(r.comments) > 0 {
			// The comments after a move of the main line are that move's.
			if g.Comments == nil {
				g.Comments = make([]string, len(g.Moves))
			}
			g.Comments[len(g.Moves)-1] = strings.Join(r.comments, " ")
		}
		if r.i >= len(r.s) {
			if depth > 0 {
				return g, fmt.Errorf("unclosed variation")
			}
			g.Result = "*"
			return g, nil
		}
		if r.s[r.i] == '[' && depth == 0 {
			g.Result = "*" // the next game begins without a result token
			return g, nil
		}
		switch r.s[r.i] {
		case '(':
			depth++
			r.i++
			continue
		case ')':
			if depth == 0 {
				return g, fmt.Errorf("')' without '('")
			}
			depth--
			r.i++
			continue
		}
		j := r.i
		for j < len(r.s) && !strings.ContainsRune(" \t\r\n(){};[", rune(r.s[j])) {
			j++
		}
		tok := r.s[r.i:j]
		r.i = j
		if depth > 0 {
			continue
		}
		switch {
		case tok == "1-0" || tok == "0-1" || tok == "1/2-1/2" || tok == "*":
			g.Result = tok
			if res := g.Tag("Result"); res != "" && res != tok {
				return g, fmt.Errorf("result %s differs from the Result tag %s", tok, res)
			}
			return g, nil
		case tok[0] == '$':
			continue
		case unicode.IsDigit(rune(tok[0])) && !strings.HasPrefix(tok, "0-0"):
			// A move number ("12." or "12...") possibly run into its move ("12.e4").
			k := 0
			for k < len(tok) && tok[k] >= '0' && tok[k] <= '9' {
				k++
			}
			for k < len(tok) && tok[k] == '.' {
				k++
			}
			if _, err := strconv.Atoi(strings.TrimRight(tok[:k], ".")); err != nil || k == len(tok) {
				if err != nil {
					return g, fmt.Errorf("unexpected %q", tok)
				}
				continue
			}
			tok = tok[k:]
		}
		m, err := p.ParseSAN(tok)
		if err != nil {
			return g, fmt.Errorf("move %d (%s): %w", len(g.Moves)+1, tok, err)
		}
		p.Make(m)
		g.Moves = append(g.Moves, m)
		if g.Comments != nil {
			g.Comments = append(g.Comments, "")
		}
	}
}

// parseTag reads `[Name "value"]` with PGN's escapes in the value.
func parseTag(line string) (name, value string, ok bool) {
	if !strings.HasPrefix(line, "[") || !strings.HasSuffix(line, "]") {
		return "", "", false
	}
	body := strings.TrimSpace(line[1 : len(line)-1])
	sp := strings.IndexAny(body, " \t")
	if sp <= 0 {
		return "", "", false
	}
	name, rest := body[:sp], strings.TrimSpace(body[sp:])
	if len(rest) < 2 || rest[0] != '"' || rest[len(rest)-1] != '"' {
		return "", "", false
	}
	var b strings.Builder
	for i := 1; i < len(rest)-1; i++ {
		if rest[i] == '\\' && i+1 < len(rest)-1 {
			i++
		}
		b.WriteByte(rest[i])
	}
	return name, b.String(), true
}
