package sgf

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"tabula/games/gogame"
)

// Write writes r as an SGF FF[4] collection of one game. Every move is
// checked against the rules first (Replay), so what is written reads back.
func Write(w io.Writer, r *Record) error {
	if _, err := r.Replay(); err != nil {
		return err
	}
	gm, size, _ := gameType(r.Game)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "(;FF[4]GM[%d]CA[UTF-8]SZ[%d]", gm, size)
	app := r.Application
	if app == "" {
		app = "tabula"
	}
	prop(bw, "AP", app)
	if g, ok := r.Game.(*gogame.Game); ok {
		bw.WriteString("KM[" + strconv.FormatFloat(g.Komi(), 'f', -1, 64) + "]")
		prop(bw, "RU", r.Rules)
	}
	prop(bw, "PB", r.Black)
	prop(bw, "PW", r.White)
	prop(bw, "DT", r.Date)
	prop(bw, "EV", r.Event)
	prop(bw, "RE", r.Result)
	prop(bw, "C", r.Comment)
	for _, st := range []struct {
		name string
		pts  []int
	}{{"AB", r.SetupBlack}, {"AW", r.SetupWhite}} {
		if len(st.pts) > 0 {
			bw.WriteString(st.name)
			for _, a := range st.pts {
				bw.WriteString("[" + point(a, size) + "]")
			}
		}
	}
	if r.SetupToMove == 1 {
		bw.WriteString("PL[W]")
	}
	bw.WriteByte('\n')
	p := pass(r.Game)
	for i, m := range r.Moves {
		color := "B"
		if m.Color == 1 {
			color = "W"
		}
		bw.WriteString(";" + color + "[")
		if m.Action != p {
			bw.WriteString(point(m.Action, size))
		}
		bw.WriteByte(']')
		c := m.Comment
		if m.HasValue {
			c = formatValue(m.Value)
			if m.Comment != "" {
				c += "\n" + m.Comment
			}
		}
		prop(bw, "C", c)
		if i%10 == 9 {
			bw.WriteByte('\n')
		}
	}
	bw.WriteString(")\n")
	return bw.Flush()
}

// prop writes a text property, escaped, unless its value is empty.
func prop(w *bufio.Writer, name, value string) {
	if value == "" {
		return
	}
	w.WriteString(name + "[" + escape(value) + "]")
}

// escape backslashes the characters SGF text cannot hold bare.
func escape(s string) string {
	if !strings.ContainsAny(s, `]\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == ']' || s[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
