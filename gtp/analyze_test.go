package gtp_test

import (
	"bufio"
	"context"
	"io"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"tabula/games"
	"tabula/games/gogame"
	"tabula/gtp"
	"tabula/mcts"
	"tabula/players"
)

// infoMove is one "info" group of an analysis line.
type infoMove struct {
	fields map[string]string
	pv     []string
}

// parseInfo reads an analysis line as Sabaki does: the line is split at
// each "info" keyword; within a group, keys and values alternate, and "pv"
// takes every word after it (the documented grammar of lz-analyze and
// kata-analyze, whose consumers must accept fields in any order).
func parseInfo(t *testing.T, line string) []infoMove {
	t.Helper()
	words := strings.Fields(line)
	if len(words) == 0 || words[0] != "info" {
		t.Fatalf("analysis line %q does not start with info", line)
	}
	var out []infoMove
	for i := 0; i < len(words); {
		if words[i] != "info" {
			t.Fatalf("analysis line %q: %q where info was expected", line, words[i])
		}
		m := infoMove{fields: map[string]string{}}
		i++
		for i < len(words) && words[i] != "info" {
			k := words[i]
			if k == "pv" {
				i++
				for i < len(words) && words[i] != "info" {
					m.pv = append(m.pv, words[i])
					i++
				}
				break
			}
			if i+1 >= len(words) {
				t.Fatalf("analysis line %q: key %q without a value", line, k)
			}
			m.fields[k] = words[i+1]
			i += 2
		}
		out = append(out, m)
	}
	return out
}

// sabakiPV matches a group's principal variation as Sabaki finds it: the
// run of vertices that ends the group.
var sabakiPV = regexp.MustCompile(`(pass|[A-Za-z]\d+)(\s+(pass|[A-Za-z]\d+))*\s*$`)

// lizzieGroup reads one group as Lizzie's MoveData does: words in
// key-value pairs up to "pv", which takes the rest; Leela Zero's winrate,
// prior and lcb are integers in hundredths of a percent (parsed with
// Integer.parseInt), KataGo's decimals in [0, 1]. It returns the winrate in
// percent and the PV.
func lizzieGroup(t *testing.T, group string, kata bool) (float64, []string) {
	t.Helper()
	data := strings.Fields(group)
	var wr float64
	for i := 0; i < len(data); i++ {
		k := data[i]
		if k == "pv" {
			return wr, data[i+1:]
		}
		i++
		if i >= len(data) {
			t.Fatalf("Lizzie: key %q without a value in %q", k, group)
		}
		if k == "winrate" || k == "visits" || k == "lcb" || k == "prior" || k == "order" {
			if kata && k != "visits" && k != "order" {
				x, err := strconv.ParseFloat(data[i], 64)
				if err != nil {
					t.Fatalf("Lizzie (KataGo): %s %q: %v", k, data[i], err)
				}
				if k == "winrate" {
					wr = 100 * x
				}
			} else {
				x, err := strconv.Atoi(data[i])
				if err != nil {
					t.Fatalf("Lizzie: %s %q is not an integer: %v", k, data[i], err)
				}
				if k == "winrate" {
					wr = float64(x) / 100
				}
			}
		}
	}
	t.Fatalf("Lizzie: no pv in %q", group)
	return 0, nil
}

// checkInfo checks one analysis line in the lz (winrate 0..10000) or kata
// (0..1) format against the position: legal moves, orders 0, 1, ...,
// visits not increasing, each pv starting with its move.
func checkInfo(t *testing.T, line string, kata bool, s games.State) {
	t.Helper()
	g := s.Game().(*gogame.Game)
	moves := parseInfo(t, line)
	// Sabaki and Lizzie split the line at each "info".
	groups := regexp.MustCompile(`\s*info\s+`).Split(line, -1)[1:]
	if len(groups) != len(moves) {
		t.Fatalf("%d groups split as Sabaki does, %d info keywords", len(groups), len(moves))
	}
	for k, grp := range groups {
		m := sabakiPV.FindString(grp)
		if pv := strings.Fields(m); len(pv) == 0 || pv[0] != moves[k].fields["move"] || !slices.Equal(pv, moves[k].pv) {
			t.Errorf("Sabaki reads the pv of %q as %q", grp, m)
		}
		wr, pv := lizzieGroup(t, grp, kata)
		if wr < 0 || wr > 100 || !slices.Equal(pv, moves[k].pv) {
			t.Errorf("Lizzie reads %q as winrate %.2f%%, pv %v", grp, wr, pv)
		}
	}
	prevVisits := -1
	for k, m := range moves {
		for _, key := range []string{"move", "visits", "winrate", "prior", "lcb", "order"} {
			if _, ok := m.fields[key]; !ok {
				t.Fatalf("group %d of %q lacks %s", k, line, key)
			}
		}
		a, err := g.ParseAction(m.fields["move"])
		if err != nil || !s.IsLegal(a) {
			t.Errorf("move %s is not legal here (%v)", m.fields["move"], err)
		}
		if o, _ := strconv.Atoi(m.fields["order"]); o != k {
			t.Errorf("order %s in group %d", m.fields["order"], k)
		}
		v, err := strconv.Atoi(m.fields["visits"])
		if err != nil || v < 0 || (prevVisits >= 0 && v > prevVisits) {
			t.Errorf("visits %s after %d", m.fields["visits"], prevVisits)
		}
		prevVisits = v
		for _, key := range []string{"winrate", "prior", "lcb"} {
			if kata {
				x, err := strconv.ParseFloat(m.fields[key], 64)
				if err != nil || x < 0 || x > 1 {
					t.Errorf("kata %s %q outside [0, 1]", key, m.fields[key])
				}
			} else {
				x, err := strconv.Atoi(m.fields[key])
				if err != nil || x < 0 || x > 10000 {
					t.Errorf("lz %s %q is not an integer in [0, 10000]", key, m.fields[key])
				}
			}
		}
		if kata {
			if u, err := strconv.ParseFloat(m.fields["utility"], 64); err != nil || u < -1 || u > 1 {
				t.Errorf("kata utility %q", m.fields["utility"])
			}
		}
		if len(m.pv) == 0 || m.pv[0] != m.fields["move"] {
			t.Errorf("pv %v does not start with %s", m.pv, m.fields["move"])
		}
		c := s.Clone()
		for _, v := range m.pv {
			a, err := g.ParseAction(v)
			if err == nil {
				err = games.Play(c, a)
			}
			if err != nil {
				t.Errorf("pv %v: %s: %v", m.pv, v, err)
				break
			}
		}
	}
}

// gtpSession drives an engine through pipes, one line at a time.
type gtpSession struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
	done  chan error
}

func startSession(t *testing.T, e *gtp.Engine) *gtpSession {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &gtpSession{t: t, in: inW, lines: make(chan string, 1000), done: make(chan error, 1)}
	go func() {
		s.done <- e.Run(context.Background(), inR, outW)
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	return s
}

func (s *gtpSession) send(cmd string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, cmd+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

func (s *gtpSession) line() string {
	s.t.Helper()
	select {
	case l, ok := <-s.lines:
		if !ok {
			s.t.Fatal("the engine stopped answering")
		}
		return l
	case <-time.After(20 * time.Second):
		s.t.Fatal("no answer within 20s")
	}
	return ""
}

// answer reads a whole ordinary answer: its first line and the lines up to
// the blank one.
func (s *gtpSession) answer() []string {
	s.t.Helper()
	var out []string
	for {
		l := s.line()
		if l == "" {
			return out
		}
		out = append(out, l)
	}
}

func newAnalysisEngine(t *testing.T) (*gtp.Engine, games.Game) {
	g, err := games.New("go:size=9,komi=7.5")
	if err != nil {
		t.Fatal(err)
	}
	cfg := mcts.DefaultConfig()
	cfg.Simulations = 48
	cfg.BatchSize = 8
	f := players.PUCTFactory("puct", cfg, mcts.UniformEvaluator{})
	e, err := gtp.NewEngine(gtp.DefaultEngineConfig(), g, func(games.Game) (gtp.Chooser, error) {
		return f.New(rand.New(rand.NewPCG(1, 2)))
	})
	if err != nil {
		t.Fatal(err)
	}
	return e, g
}

// TestAnalysisSession interleaves analysis with play in one GTP session:
// each analysis streams reports in the documented formats until the next
// command, which is then answered correctly; the genmove forms end with
// "play VERTEX" and play it.
func TestAnalysisSession(t *testing.T) {
	e, g := newAnalysisEngine(t)
	s := startSession(t, e)
	state := g.NewInitialState()
	play := func(v string) {
		a, err := g.(*gogame.Game).ParseAction(v)
		if err == nil {
			err = games.Play(state, a)
		}
		if err != nil {
			t.Fatal(err)
		}
	}

	s.send("1 list_commands")
	if got := strings.Join(s.answer(), " "); !strings.Contains(got, "lz-analyze") || !strings.Contains(got, "kata-genmove_analyze") {
		t.Errorf("list_commands lacks the analysis commands: %s", got)
	}
	s.send("2 play b E5")
	if a := s.answer(); len(a) != 1 || a[0] != "=2 " {
		t.Fatalf("play: %q", a)
	}
	play("E5")
	for _, c := range []struct {
		cmd  string
		kata bool
	}{{"3 lz-analyze w 1", false}, {"5 kata-analyze interval 1 ownership true", true}, {"7 analyze 1 maxmoves 3", false}} {
		s.send(c.cmd)
		id := strings.Fields(c.cmd)[0]
		if l := s.line(); l != "="+id {
			t.Fatalf("%s: first line %q", c.cmd, l)
		}
		for range 3 {
			l := s.line()
			checkInfo(t, l, c.kata, state)
			if strings.Contains(l, "ownership") || strings.Contains(l, "scoreLead") {
				t.Errorf("fields without a head to fill them: %q", l)
			}
			if strings.HasPrefix(c.cmd, "7 ") && len(parseInfo(t, l)) > 3 {
				t.Errorf("maxmoves 3: %q", l)
			}
		}
		// The next command stops the analysis; its answer follows the
		// analysis' blank line.
		n, _ := strconv.Atoi(id)
		next := strconv.Itoa(n + 1)
		v := map[string]string{"3": "C3", "5": "G7", "7": "C7"}[id]
		color := "w"
		if id == "5" {
			color = "b"
		}
		s.send(next + " play " + color + " " + v)
		for {
			l := s.line()
			if l == "" {
				break
			}
			if !strings.HasPrefix(l, "info ") {
				t.Fatalf("%s: line %q inside the analysis", c.cmd, l)
			}
		}
		if a := s.answer(); len(a) != 1 || a[0] != "="+next+" " {
			t.Fatalf("%s after analysis: %q", next, a)
		}
		play(v)
	}
	// Black is to move (E5 C3 G7 C7): a genmove form with reports.
	s.send("9 kata-genmove_analyze b 1")
	if l := s.line(); l != "=9" {
		t.Fatalf("kata-genmove_analyze: first line %q", l)
	}
	var moved string
	for {
		l := s.line()
		if l == "" {
			break
		}
		if mv, ok := strings.CutPrefix(l, "play "); ok {
			moved = mv
			continue
		}
		checkInfo(t, l, true, state)
	}
	if moved == "" {
		t.Fatal("kata-genmove_analyze ended without play")
	}
	play(moved)
	s.send("10 lz-genmove_analyze w")
	a := s.answer()
	if len(a) != 2 || a[0] != "=10" || !strings.HasPrefix(a[1], "play ") {
		t.Fatalf("lz-genmove_analyze without interval: %q", a)
	}
	play(strings.TrimPrefix(a[1], "play "))
	// undo takes back the analysed move; an analysis of the position
	// before it and a plain genmove follow.
	s.send("100 undo")
	if a := s.answer(); len(a) != 1 || a[0] != "=100 " {
		t.Fatalf("undo: %q", a)
	}
	state = g.NewInitialState()
	for _, v := range []string{"E5", "C3", "G7", "C7", moved} {
		play(v)
	}
	s.send("101 lz-analyze w 1")
	if l := s.line(); l != "=101" {
		t.Fatalf("lz-analyze after undo: first line %q", l)
	}
	checkInfo(t, s.line(), false, state)
	s.send("102 genmove w")
	for {
		l := s.line()
		if l == "" {
			break
		}
		if !strings.HasPrefix(l, "info ") {
			t.Fatalf("line %q inside the analysis", l)
		}
	}
	a = s.answer()
	if len(a) != 1 || !strings.HasPrefix(a[0], "=102 ") {
		t.Fatalf("genmove after analysis: %q", a)
	}
	play(strings.TrimPrefix(a[0], "=102 "))
	// The engine's board is ours.
	s.send("11 showboard")
	board := strings.Join(s.answer()[1:], "\n")
	if board != strings.TrimRight(state.String(), "\n") {
		t.Errorf("engine's board\n%s\nwant\n%s", board, state)
	}
	s.send("12 lz-analyze b bogus 3")
	if a := s.answer(); len(a) != 1 || !strings.HasPrefix(a[0], "?12 syntax error") {
		t.Errorf("bad key: %q", a)
	}
	s.send("16 kata-analyze b movesOwnership maybe")
	if a := s.answer(); len(a) != 1 || !strings.HasPrefix(a[0], `?16 syntax error: movesOwnership "maybe"`) {
		t.Errorf("bad movesOwnership: %q", a)
	}
	s.send("13 gogui-analyze_commands")
	if a := s.answer(); len(a) < 2 || !strings.Contains(strings.Join(a, "\n"), "dboard/") {
		t.Errorf("gogui-analyze_commands: %q", a)
	}
	s.send("14 tabula-visits")
	if a := s.answer(); len(a) != 10 {
		t.Errorf("tabula-visits: %d lines, want = and 9 rows: %q", len(a), a)
	}
	// Input ending inside an analysis ends the session cleanly.
	s.send("15 lz-analyze 50")
	if l := s.line(); l != "=15" {
		t.Fatalf("first line %q", l)
	}
	s.in.Close()
	for l := range s.lines {
		if l != "" && !strings.HasPrefix(l, "info ") {
			t.Errorf("after the end of input: %q", l)
		}
	}
	if err := <-s.done; err != nil {
		t.Errorf("Run: %v", err)
	}
}
