package gtp

// Analysis over GTP, in the formats the analysis front ends read:
//
//   - lz-analyze, lz-genmove_analyze (Leela Zero's extension, which Sabaki
//     and Lizzie read): lines of
//     "info move D4 visits N winrate W prior P lcb L order K pv D4 Q16 ..."
//     with winrate, prior and lcb as integers 0..10000, one "info" group per
//     move, all the moves of one report on one line;
//   - kata-analyze, kata-genmove_analyze (KataGo's): the same with
//     "info move D4 visits N utility U winrate W scoreMean S scoreLead S
//     prior P lcb L order K pv ...", winrate, prior and lcb in 0..1 and
//     utility in -1..1, and, with "ownership true", the line ends with
//     "ownership" and size*size numbers in [-1, 1], row by row from the
//     top-left point (A9 on 9x9) to the bottom-right one. Every value is
//     for the player to move in the analysed position, as the winrate is
//     (KataGo's docs/GTP_Extensions.md, lightvector/KataGo: "All output
//     values are from the perspective of the current player"; the
//     ownership "in row-major order, starting at the top-left of the
//     board (e.g. A19)").
//     scoreLead and ownership come from the network's score and
//     ownership heads (network.score, network.ownership; OutcomeAnalyzer)
//     and are written only when the network has them; a network without
//     a head answers without its field, which the format allows, and
//     takes "ownership true" all the same. As KataGo's, they are
//     averages over the search: scoreLead (and scoreMean, KataGo's older
//     name for it, which Lizzie reads) is the mean, over the evaluations
//     backed up through the move's subtree, of the score head's final
//     margin in points, komi included, for the player to move (a
//     finished game's leaf counts its own score), and is written for
//     visited moves; the ownership is the mean of the ownership head over
//     every leaf evaluated below the analysed position. The search
//     evaluates the heads in the same forward pass as the policy and
//     value once a kata command asked for them (OutcomeAnalyzer's
//     TrackOutcomes);
//   - analyze and genmove_analyze, the names of lz-analyze and
//     lz-genmove_analyze some front ends use.
//
// With "movesOwnership true", kata-analyze also writes, after each move's
// pv, "movesOwnership" and the size*size ownership averaged over the leaves
// below that move (KataGo's key of that name; pv-reading front ends that take
// every word after "pv" do not ask for it).
//
// Their arguments are "[color] [interval] [key value ...]" with the keys
// interval (centiseconds), minmoves, maxmoves, ownership and
// movesOwnership. The analysis
// commands answer "=" at once and then stream one report every interval
// until any new input line arrives, which ends the answer with its blank
// line and is then handled as the next command; the genmove forms search
// as genmove does, report as they go, and end with "play VERTEX".
// References: KataGo's docs/GTP_Extensions.md (lightvector/KataGo), which
// documents both formats, Leela Zero's lz-analyze, and Sabaki's reader of
// them (@sabaki/gtp's parseAnalysis, splitting a line at "info").
//
// gogui-analyze_commands lists, in GoGui's "type/label/command" form, the
// commands GoGui can show: tabula-policy and tabula-visits (dboards of the
// network's priors and the search's visit shares), tabula-value (the root
// value as a string) and tabula-gfx (both as a picture, in GoGui's gfx
// language).

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"tabula/games"
)

// Analyzer is implemented by choosers with a search that can be watched
// (package players' PUCT players): the analysis commands need one.
type Analyzer interface {
	// Analyze searches s for sims more playouts, continuing the analysis
	// of earlier calls on the same position, and returns what the search
	// knows now.
	Analyze(ctx context.Context, s games.State, sims int) (Analysis, error)
	// MoveSimulations is the number of playouts one move's search spends.
	MoveSimulations() int
}

// Analysis is a search's view of a position, for the player to move.
type Analysis struct {
	// Value is the root's mean value in [-1, 1].
	Value float64
	// Moves are the root's actions, most visited first.
	Moves []AnalysisMove
	// Ownership, with an OutcomeAnalyzer tracking it, is the ownership
	// head averaged over the leaves evaluated below the position, one
	// value a board point in [-1, 1] (+1: the player to move owns it),
	// row-major from the top-left point; nil otherwise.
	Ownership []float64
}

// AnalysisMove is one action at the root.
type AnalysisMove struct {
	Action int
	Visits int
	Q      float64 // mean value in [-1, 1]
	Prior  float64 // in [0, 1]
	PV     []int   // principal variation, starting with Action
	// Score, with Scored, is the final margin in points for the player to
	// move, averaged over the action's subtree (OutcomeAnalyzer).
	Score  float64
	Scored bool
	// Ownership, with an OutcomeAnalyzer tracking it, is the ownership
	// head averaged over the leaves evaluated below the action, as
	// Analysis.Ownership; nil otherwise or before the action's first visit.
	Ownership []float64
}

// OutcomeAnalyzer is implemented by Analyzers whose network has KataGo's
// ownership or score head (package players' net players, with a network
// trained with network.ownership or network.score): kata-analyze and
// kata-genmove_analyze then report them.
type OutcomeAnalyzer interface {
	// OutcomeHeads reports which of the two heads the network has.
	OutcomeHeads() (ownership, score bool)
	// TrackOutcomes makes the following Analyze calls back up the score
	// head over the search tree and fill AnalysisMove.Score and, with
	// ownership, accumulate the ownership head at the root and fill
	// Analysis.Ownership. It stays on for the Analyzer's later searches
	// (asking for less keeps it as it is); turning it on, or adding the
	// ownership, restarts the analysis' tree.
	TrackOutcomes(ownership bool) error
}

// AnalysisCommands are the commands Engine adds to Commands when its
// chooser is an Analyzer.
var AnalysisCommands = []string{
	"lz-analyze", "kata-analyze", "analyze",
	"lz-genmove_analyze", "kata-genmove_analyze", "genmove_analyze",
	"gogui-analyze_commands", "tabula-policy", "tabula-visits", "tabula-value", "tabula-gfx",
}

// analysisChunk is the number of playouts between two looks at the input
// and the clock.
const analysisChunk = 8

// maxAnalysisVisits caps an open-ended analysis: past it the search stops
// and the engine waits for the next command.
const maxAnalysisVisits = 1 << 20

// analysisRequest is a parsed analysis command.
type analysisRequest struct {
	kata      bool
	genmove   bool
	color     int
	interval  time.Duration // 0: no reports while searching
	minMoves  int
	maxMoves  int
	ownership bool
	// movesOwnership: kata-analyze's per-move ownership, after each
	// move's pv.
	movesOwnership bool
}

// isStreaming reports whether a command streams its answer (Run answers it).
func isStreaming(name string) bool {
	switch name {
	case "lz-analyze", "kata-analyze", "analyze", "lz-genmove_analyze", "kata-genmove_analyze", "genmove_analyze":
		return true
	}
	return false
}

// parseAnalysis reads "[color] [interval] [key value ...]".
func (e *Engine) parseAnalysis(cmd Command) (analysisRequest, error) {
	req := analysisRequest{
		kata:    strings.HasPrefix(cmd.Name, "kata-"),
		genmove: strings.HasSuffix(cmd.Name, "genmove_analyze"),
		color:   e.pos.State().CurrentPlayer(),
	}
	args := cmd.Args
	if len(args) > 0 {
		if c, err := ParseColor(args[0]); err == nil {
			req.color = c
			args = args[1:]
		} else if req.genmove {
			return req, fmt.Errorf("syntax error: %s needs a color first: %w", cmd.Name, err)
		}
	} else if req.genmove {
		return req, fmt.Errorf("syntax error: %s needs a color", cmd.Name)
	}
	interval := func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 360000 {
			return fmt.Errorf("syntax error: interval %q: want centiseconds 0..360000", clip(v))
		}
		req.interval = time.Duration(n) * 10 * time.Millisecond
		return nil
	}
	if len(args) > 0 {
		if _, err := strconv.Atoi(args[0]); err == nil {
			if err := interval(args[0]); err != nil {
				return req, err
			}
			args = args[1:]
		}
	}
	for len(args) > 0 {
		if len(args) < 2 {
			return req, fmt.Errorf("syntax error: %s: key %q without a value", cmd.Name, clip(args[0]))
		}
		k, v := args[0], args[1]
		args = args[2:]
		var err error
		switch k {
		case "interval":
			err = interval(v)
		case "minmoves", "maxmoves":
			n, perr := strconv.Atoi(v)
			if perr != nil || n < 0 {
				err = fmt.Errorf("syntax error: %s %q: want a count", k, clip(v))
			} else if k == "minmoves" {
				req.minMoves = n
			} else {
				req.maxMoves = n
			}
		case "ownership", "movesOwnership":
			var on bool
			switch v {
			case "true":
				on = true
			case "false":
			default:
				err = fmt.Errorf("syntax error: %s %q: want true or false", k, clip(v))
			}
			if k == "ownership" {
				req.ownership = on
			} else {
				req.movesOwnership = on
			}
		default:
			err = fmt.Errorf("syntax error: %s: unknown key %q (known: interval, minmoves, maxmoves, ownership, movesOwnership)", cmd.Name, clip(k))
		}
		if err != nil {
			return req, err
		}
	}
	return req, nil
}

// formatAnalysis writes one report line: an "info" group per move, and,
// for kata-analyze with ownership true and an ownership in an, the
// "ownership" section after the last group.
func (e *Engine) formatAnalysis(req analysisRequest, an Analysis) string {
	d := e.pos.Dialect()
	var b strings.Builder
	n := 0
	for i, m := range an.Moves {
		if m.Visits == 0 && i >= req.minMoves {
			break
		}
		if req.maxMoves > 0 && n >= req.maxMoves {
			break
		}
		n++
	}
	for i, m := range an.Moves[:n] {
		wr := (m.Q + 1) / 2
		lcb := 0.0
		if m.Visits > 0 {
			lcb = max(0, wr-1.96*math.Sqrt(max(wr*(1-wr), 0.01)/float64(m.Visits)))
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("info move " + d.FormatMove(m.Action) + " visits " + strconv.Itoa(m.Visits))
		if req.kata {
			fmt.Fprintf(&b, " utility %.6f winrate %.6f", m.Q, wr)
			if m.Scored {
				// scoreMean is KataGo's older name of scoreLead,
				// which Lizzie reads.
				fmt.Fprintf(&b, " scoreMean %.6f scoreLead %.6f", m.Score, m.Score)
			}
			fmt.Fprintf(&b, " prior %.6f lcb %.6f", m.Prior, lcb)
		} else {
			fmt.Fprintf(&b, " winrate %d prior %d lcb %d", per10k(wr), per10k(m.Prior), per10k(lcb))
		}
		b.WriteString(" order " + strconv.Itoa(i) + " pv")
		for _, a := range m.PV {
			b.WriteString(" " + d.FormatMove(a))
		}
		if req.kata && req.movesOwnership && m.Ownership != nil {
			b.WriteString(" movesOwnership")
			for _, v := range m.Ownership {
				b.WriteString(" " + strconv.FormatFloat(v, 'f', 6, 64))
			}
		}
	}
	if b.Len() > 0 && req.kata && req.ownership && an.Ownership != nil {
		b.WriteString(" ownership")
		for _, v := range an.Ownership {
			b.WriteString(" " + strconv.FormatFloat(v, 'f', 6, 64))
		}
	}
	return b.String()
}

// trackOutcomes asks an OutcomeAnalyzer chooser with the score head to back
// the heads up for a kata command (the ownership when asked and there).
func (e *Engine) trackOutcomes(req analysisRequest) {
	oa, ok := e.chooser.(OutcomeAnalyzer)
	if !ok || !req.kata {
		return
	}
	own, score := oa.OutcomeHeads()
	if !score && !own {
		return
	}
	if err := oa.TrackOutcomes((req.ownership || req.movesOwnership) && own); err != nil {
		e.log.Warn("gtp: ownership and score heads unavailable; reporting without them", "error", err.Error())
	}
}

func per10k(x float64) int {
	return int(math.Round(min(max(x, 0), 1) * 10000))
}

// analysisState returns the position to analyse for color: the current one,
// or, when color is not to move, the position after the other colour's pass
// (the position itself is not changed).
func (e *Engine) analysisState(color int) (games.State, error) {
	s := e.pos.State().Clone()
	if s.IsTerminal() {
		return nil, ErrGameOver
	}
	if s.CurrentPlayer() != color {
		p := e.pos.Dialect().Pass()
		if !s.IsLegal(p) {
			return nil, fmt.Errorf("it is %s's turn", colorWord(s.CurrentPlayer()))
		}
		s.ApplyAction(p)
		if s.IsTerminal() {
			return nil, ErrGameOver
		}
	}
	return s, nil
}

// streamAnalysis answers a streaming command. It writes the "=" line, then
// reports, and returns the input line that stopped an open-ended analysis
// (nil when input ended or a genmove form finished).
func (e *Engine) streamAnalysis(ctx context.Context, cmd Command, bw *bufio.Writer, next func(block bool) (*line, bool)) (*line, error) {
	fail := func(err error) (*line, error) {
		return nil, writeFlush(bw, cmd, false, err.Error())
	}
	req, err := e.parseAnalysis(cmd)
	if err != nil {
		return fail(err)
	}
	an, ok := e.chooser.(Analyzer)
	if !ok {
		return fail(errors.New("unknown command"))
	}
	var s games.State
	if req.genmove {
		s, err = e.pos.Ready(req.color)
		if err == nil {
			s = s.Clone()
		}
	} else {
		s, err = e.analysisState(req.color)
	}
	if err != nil {
		return fail(fmt.Errorf("cannot analyze: %w", err))
	}
	if sy, ok := e.chooser.(Syncer); ok && req.genmove {
		sy.Sync(e.pos.Actions())
	}
	// The "=" line, with the id, opens the answer.
	header := "="
	if cmd.HasID {
		header += strconv.Itoa(cmd.ID)
	}
	if _, err := bw.WriteString(header + "\n"); err != nil {
		return nil, err
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	budget := maxAnalysisVisits
	var deadline time.Time // the game clock's limit for a genmove form
	var limit time.Duration
	start := time.Now()
	if req.genmove {
		budget = max(an.MoveSimulations(), 1)
		if e.clock.Control().System != NoTime {
			limit = e.clock.Budget(req.color, movesLeft(s))
			deadline = start.Add(limit)
		}
	}
	last := start
	var res Analysis
	visits := 0
	e.trackOutcomes(req)
	for visits < budget && (deadline.IsZero() || visits == 0 || time.Now().Before(deadline)) {
		if !req.genmove {
			if ln, more := next(false); ln != nil || !more {
				return ln, finish(bw, "")
			}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		step := min(analysisChunk, budget-visits)
		if res, err = an.Analyze(ctx, s, step); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			e.log.Warn("gtp: analysis stopped", "error", err.Error())
			break
		}
		visits += step
		if req.interval > 0 && time.Since(last) >= req.interval {
			last = time.Now()
			if out := e.formatAnalysis(req, res); out != "" {
				if _, err := bw.WriteString(out + "\n"); err != nil {
					return nil, err
				}
				if err := bw.Flush(); err != nil {
					return nil, err
				}
			}
		}
	}
	if req.genmove {
		if len(res.Moves) == 0 {
			return nil, finish(bw, "")
		}
		a := res.Moves[0].Action
		if req.interval > 0 {
			if out := e.formatAnalysis(req, res); out != "" {
				bw.WriteString(out + "\n")
			}
		}
		if !deadline.IsZero() {
			spent := time.Since(start)
			e.clock.Overran(limit, spent)
			if !e.clock.Charge(req.color, spent) {
				e.log.Warn("gtp: out of time by the engine's own clock", "color", colorWord(req.color))
			}
		}
		if err := e.pos.Play(req.color, a); err != nil {
			e.log.Warn("gtp: the analysed move is not legal", "error", err.Error())
			return nil, finish(bw, "play resign\n")
		}
		return nil, finish(bw, "play "+e.pos.Dialect().FormatMove(a)+"\n")
	}
	// The budget is spent: wait for the next line.
	ln, _ := next(true)
	return ln, finish(bw, "")
}

// finish writes text and the blank line that ends a streamed answer.
func finish(bw *bufio.Writer, text string) error {
	if _, err := bw.WriteString(text + "\n"); err != nil {
		return err
	}
	return bw.Flush()
}

func writeFlush(bw *bufio.Writer, cmd Command, ok bool, text string) error {
	if err := WriteResponse(bw, cmd, ok, text); err != nil {
		return err
	}
	return bw.Flush()
}

// goguiAnalyzeCommands answers gogui-analyze_commands in GoGui's
// "type/label/command" form (GoGui's documentation, "Analyze Commands"):
// boards of numbers (dboard) for the network's policy and the search's
// visit shares, the root value as text (string), and a picture (gfx) of
// both.
func goguiAnalyzeCommands() string {
	return "dboard/Policy/tabula-policy\n" +
		"dboard/Visit shares/tabula-visits\n" +
		"string/Value/tabula-value\n" +
		"gfx/Policy, visits and best line/tabula-gfx"
}

// goguiTopMoves is the number of moves tabula-gfx labels.
const goguiTopMoves = 8

// goguiAnalysis runs the GoGui analysis command name for the player to
// move: tabula-policy needs the root's priors only (one playout expands
// it); the others search one move's playouts, continuing any analysis of
// the same position.
func (e *Engine) goguiAnalysis(ctx context.Context, an Analyzer, name string) (string, error) {
	s, err := e.analysisState(e.pos.State().CurrentPlayer())
	if err != nil {
		return "", fmt.Errorf("cannot analyze: %w", err)
	}
	sims := max(an.MoveSimulations(), 1)
	if name == "tabula-policy" {
		sims = 1
	}
	res, err := an.Analyze(ctx, s, sims)
	if err != nil {
		return "", fmt.Errorf("cannot analyze: %w", err)
	}
	d := e.pos.Dialect()
	n := d.Size()
	total := 0
	for _, m := range res.Moves {
		total += m.Visits
	}
	switch name {
	case "tabula-value":
		return valueText(s, res, total), nil
	case "tabula-policy", "tabula-visits":
		cell := make([]float64, n*n)
		for _, m := range res.Moves {
			if m.Action < n*n {
				if name == "tabula-policy" {
					cell[m.Action] = m.Prior
				} else if total > 0 {
					cell[m.Action] = float64(m.Visits) / float64(total)
				}
			}
		}
		return numberBoard(n, cell), nil
	}
	// tabula-gfx: the policy as shading (INFLUENCE, 0..1), the visit share
	// in percent on the most visited moves (LABEL), the best move marked
	// (SQUARE), its principal variation (VAR) and the value (TEXT).
	var infl, label strings.Builder
	infl.WriteString("INFLUENCE")
	label.WriteString("LABEL")
	for i, m := range res.Moves {
		if m.Action >= n*n {
			continue
		}
		if m.Prior > 0 {
			fmt.Fprintf(&infl, " %s %.3f", d.FormatMove(m.Action), m.Prior)
		}
		if i < goguiTopMoves && m.Visits > 0 && total > 0 {
			fmt.Fprintf(&label, " %s %d", d.FormatMove(m.Action), int(math.Round(100*float64(m.Visits)/float64(total))))
		}
	}
	lines := []string{infl.String(), label.String()}
	if len(res.Moves) > 0 && res.Moves[0].Visits > 0 {
		best := res.Moves[0]
		if best.Action < n*n {
			lines = append(lines, "SQUARE "+d.FormatMove(best.Action))
		}
		v := "VAR"
		color := s.CurrentPlayer()
		for _, a := range best.PV {
			v += " " + "bw"[color:color+1] + " " + d.FormatMove(a)
			color = 1 - color
		}
		lines = append(lines, v)
	}
	lines = append(lines, "TEXT "+valueText(s, res, total))
	return strings.Join(lines, "\n"), nil
}

// valueText describes the root value for the player to move.
func valueText(s games.State, res Analysis, visits int) string {
	return fmt.Sprintf("%s to move: value %.3f (winrate %.1f%%) after %d visits", colorWord(s.CurrentPlayer()), res.Value, 50*(res.Value+1), visits)
}

// numberBoard writes n x n numbers as GoGui's dboard: the top row first.
func numberBoard(n int, cell []float64) string {
	var b strings.Builder
	for r := range n {
		b.WriteByte('\n')
		for c := range n {
			if c > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strconv.FormatFloat(cell[r*n+c], 'f', 4, 64))
		}
	}
	return b.String()
}
