package gtp

// final_status_list, kata-get-rules, loadsgf and printsgf.
//
// final_status_list (dead, alive or seki) answers from random playouts, not
// from the scoring: our rules score the board as it stands (Tromp-Taylor
// area scoring, what final_score reports), where every stone on the board is
// alive, so a player must capture dead stones before the game ends (our
// players do; GNU Go and Pachi are asked with kgs-genmove_cleanup). For a
// controller that marks dead stones itself, the engine plays statusPlayouts
// playouts from the position with gogame's playout policy (uniformly random
// legal moves that fill no single-point eye of the mover's own) and calls a
// stone dead when its point ends owned by the other colour in more than
// half of them; all other stones are alive. Seki is not told apart: stones
// in seki survive the playouts and are listed alive (their shared
// liberties count for neither side, as in Tromp-Taylor), so "seki" is
// always the empty list. The playouts are seeded by the position, so the
// same position always gets the same answer.

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"tabula/games/gogame"
	"tabula/games/othello"
	"tabula/games/sgf"
	"tabula/internal/atomicfile"
)

// statusPlayouts is the number of playouts final_status_list reads.
const statusPlayouts = 256

// finalStatusList answers final_status_list dead|alive|seki: one group a
// line, its stones' vertices separated by spaces.
func (e *Engine) finalStatusList(args []string) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("syntax error: final_status_list takes one argument (dead, alive or seki), got %d", len(args))
	}
	want := args[0]
	if want != "dead" && want != "alive" && want != "seki" {
		return "", fmt.Errorf("syntax error: final_status_list %q: want dead, alive or seki", clip(want))
	}
	s, ok := e.pos.State().(*gogame.State)
	if !ok {
		return "", fmt.Errorf("final_status_list is for go, not %s", e.pos.Dialect().Game().Name())
	}
	if want == "seki" {
		return "", nil
	}
	dead := DeadStones(s, statusPlayouts)
	d := e.pos.Dialect()
	n := d.Size()
	seen := make([]bool, n*n)
	var lines []string
	for p := range n * n {
		c := s.At(p)
		if c == gogame.Empty || seen[p] || dead[p] != (want == "dead") {
			continue
		}
		// The group of p: connected stones of its colour.
		var group []string
		stack := []int{p}
		seen[p] = true
		for len(stack) > 0 {
			q := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			group = append(group, d.FormatMove(q))
			r, col := q/n, q%n
			for _, nb := range [4][2]int{{r - 1, col}, {r + 1, col}, {r, col - 1}, {r, col + 1}} {
				if nb[0] < 0 || nb[0] >= n || nb[1] < 0 || nb[1] >= n {
					continue
				}
				m := nb[0]*n + nb[1]
				if !seen[m] && s.At(m) == c {
					seen[m] = true
					stack = append(stack, m)
				}
			}
		}
		lines = append(lines, strings.Join(group, " "))
	}
	return strings.Join(lines, "\n"), nil
}

// DeadStones reports for every point of s whether it holds a stone that
// ends owned by the other colour in more than half of playouts random
// playouts from s (see the comment at the top of this file). It is
// deterministic: the playouts are seeded by the position's hash.
func DeadStones(s *gogame.State, playouts int) []bool {
	n := s.Game().(*gogame.Game).Size()
	own := make([]float32, n*n)
	sum := make([]float32, n*n)
	rng := rand.New(rand.NewPCG(s.Hash(), uint64(s.MoveNumber())))
	c := s.Clone().(*gogame.State)
	for range playouts {
		c.CopyFrom(s)
		c.Playout(rng)
		c.FinalOwnership(own)
		for p, o := range own {
			sum[p] += o
		}
	}
	dead := make([]bool, n*n)
	for p := range dead {
		switch s.At(p) {
		case gogame.Black:
			dead[p] = sum[p] < 0
		case gogame.White:
			dead[p] = sum[p] > 0
		}
	}
	return dead
}

// kataGetRules answers kata-get-rules with KataGo's JSON form of the rules
// (KataGo's docs/GTP_Extensions.md): ours are area scoring, positional
// superko, suicide forbidden, no button, no tax, and the komi.
func (e *Engine) kataGetRules() (string, error) {
	d := e.pos.Dialect()
	if !d.IsGo() {
		return "", fmt.Errorf("kata-get-rules is for go, not %s", d.Game().Name())
	}
	return fmt.Sprintf(`{"friendlyPassOk":false,"hasButton":false,"ko":"POSITIONAL","komi":%s,"scoring":"AREA","suicide":false,"tax":"NONE","whiteHandicapBonus":"0"}`,
		strconv.FormatFloat(d.Komi(), 'f', -1, 64)), nil
}

// loadSGF answers loadsgf FILE [N]: the board size, komi and moves of the
// file's main line, up to and not including move N (all of them without
// N), as GTP 2 says. The file is the one the controller names (GTP is a
// local channel the user controls). A file that sets up stones (AB, AW, PL:
// handicap or a composed position) is refused: the engine plays from the
// empty board.
func (e *Engine) loadSGF(args []string) (string, error) {
	if len(args) < 1 || len(args) > 2 {
		return "", fmt.Errorf("syntax error: loadsgf takes FILE [MOVE_NUMBER], got %d argument(s)", len(args))
	}
	upTo := -1
	if len(args) == 2 {
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 1 {
			return "", fmt.Errorf("syntax error: loadsgf move number %q: want an integer >= 1", clip(args[1]))
		}
		upTo = n - 1
	}
	f, err := os.Open(args[0])
	if err != nil {
		return "", fmt.Errorf("cannot load file: %w", err)
	}
	rec, err := sgf.Read(f)
	f.Close()
	if err != nil {
		return "", fmt.Errorf("cannot load file %s: %w", args[0], err)
	}
	if len(rec.SetupBlack) > 0 || len(rec.SetupWhite) > 0 || rec.SetupToMove != 0 {
		return "", fmt.Errorf("cannot load file %s: it sets up stones (AB, AW or PL); the engine plays from the empty board only", args[0])
	}
	d := e.pos.Dialect()
	_, isGo := rec.Game.(*gogame.Game)
	if isGo != d.IsGo() {
		return "", fmt.Errorf("cannot load file %s: it is a game of %s, the engine plays %s", args[0], rec.Game.Name(), d.Game().Name())
	}
	var size int
	switch g := rec.Game.(type) {
	case *gogame.Game:
		size = g.Size()
	case *othello.Game:
		size = g.Size()
	}
	nd, err := d.WithSize(size)
	if err == nil && isGo {
		nd, err = nd.WithKomi(rec.Game.(*gogame.Game).Komi())
	}
	if err != nil {
		return "", fmt.Errorf("cannot load file %s: %w", args[0], err)
	}
	if err := e.rebuild(nd, size != d.Size()); err != nil {
		return "", fmt.Errorf("cannot load file %s: %w", args[0], err)
	}
	e.pos.Clear()
	for i, m := range rec.Moves {
		if upTo >= 0 && i >= upTo {
			break
		}
		if err := e.pos.Play(m.Color, m.Action); err != nil {
			return "", fmt.Errorf("cannot load file %s: move %d: %w", args[0], i+1, err)
		}
	}
	return "", nil
}

// printSGF answers printsgf [FILE]: the game so far as SGF, in the answer
// or, with FILE, written to it (atomically) with an empty answer.
func (e *Engine) printSGF(args []string) (string, error) {
	if len(args) > 1 {
		return "", fmt.Errorf("syntax error: printsgf takes at most a file name, got %d arguments", len(args))
	}
	d := e.pos.Dialect()
	rec, err := sgf.FromActions(d.Game(), e.pos.Actions(), nil)
	if err != nil {
		return "", fmt.Errorf("cannot write the game: %w", err)
	}
	rec.Application = e.cfg.Name + ":" + e.cfg.Version
	if d.IsGo() {
		rec.Rules = "Tromp-Taylor"
	}
	var b bytes.Buffer
	if err := sgf.Write(&b, rec); err != nil {
		return "", fmt.Errorf("cannot write the game: %w", err)
	}
	if len(args) == 0 {
		return strings.TrimRight(b.String(), "\n"), nil
	}
	if args[0] == "" {
		return "", errors.New("syntax error: printsgf: empty file name")
	}
	if err := atomicfile.Write(args[0], b.Bytes()); err != nil {
		return "", fmt.Errorf("cannot write file: %w", err)
	}
	return "", nil
}
