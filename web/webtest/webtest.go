// Package webtest drives play's page in a browser (chromedp) for tests of
// the served page and of the static export, which share the same front end.
package webtest

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// Board is what the page publishes on its canvas's data attributes.
type Board struct {
	Over, Busy, ToMove, Human, Moves, Legal string
	// Deal is the position's token (a card deal's or backgammon's dice),
	// empty in the other games.
	Deal string
}

// MoveList returns Moves as actions.
func (b Board) MoveList() []int { return ints(b.Moves) }

// LegalList returns Legal as actions.
func (b Board) LegalList() []int { return ints(b.Legal) }

func ints(list string) []int {
	out := []int{}
	for _, f := range strings.Split(list, ",") {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

const readBoard = `(() => { const d = document.getElementById("board").dataset;
  return {Over: d.over, Busy: d.busy, ToMove: d.toMove, Human: d.human, Moves: d.moves, Legal: d.legal, Deal: d.deal}; })()`

// Read returns the board's published state.
func Read(ctx context.Context) (Board, error) {
	var b Board
	err := chromedp.Run(ctx, chromedp.Evaluate(readBoard, &b))
	return b, err
}

// ClickColumn clicks, with the mouse, column col (0-based) of a Connect Four
// board drawn on the page.
func ClickColumn(ctx context.Context, col int) error {
	var rect []float64
	if err := chromedp.Run(ctx, chromedp.Evaluate(`(() => { const r = document.getElementById("board").getBoundingClientRect();
  return [r.left, r.top, r.width, r.height]; })()`, &rect)); err != nil {
		return err
	}
	cell := rect[2] / 7
	return chromedp.Run(ctx, chromedp.MouseClickXY(rect[0]+(float64(col)+0.5)*cell, rect[1]+3.5*cell))
}

// WaitTurn waits until the engine is not thinking and it is the person's
// turn, the game is over, or an error is shown.
func WaitTurn(ctx context.Context) (Board, error) {
	var ok bool
	err := chromedp.Run(ctx, chromedp.Poll(`(() => { const d = document.getElementById("board").dataset;
  return d.busy === "0" && (d.over === "1" || d.toMove === d.human || document.getElementById("error").textContent !== ""); })()`, &ok,
		chromedp.WithPollingInterval(10*time.Millisecond)))
	if err != nil {
		return Board{}, fmt.Errorf("waiting for the person's turn: %w", err)
	}
	return Read(ctx)
}

// Text returns the text of the element with id.
func Text(ctx context.Context, id string) (string, error) {
	var s string
	err := chromedp.Run(ctx, chromedp.Text("#"+id, &s, chromedp.ByID))
	return s, err
}

// Game is how a Connect Four game played by PlayConnectFour went.
type Game struct {
	Moves        []int
	Result       string
	TriedIllegal bool // a click on a full column was tried (and refused)
}

// PlayConnectFour plays a whole game of Connect Four as red against the
// page's engine, which must be started (a new game with the person first) by
// the caller. Red clicks on the left columns first, so that one fills up;
// the first time a column is full, a click on it must be refused with a
// message. After each red move the engine must answer, showing its move,
// its top moves (policy) and its value. It returns when the result appears.
func PlayConnectFour(ctx context.Context) (Game, error) {
	var game Game
	st, err := WaitTurn(ctx)
	if err != nil {
		return game, err
	}
	if st.Moves != "" || st.Human != "0" {
		return game, fmt.Errorf("new game: %+v, want an empty board and the person (red) to move", st)
	}
	for clicks := 0; st.Over != "1"; clicks++ {
		if clicks > 21 {
			return game, fmt.Errorf("the game did not end within 21 moves of red: %v", st.MoveList())
		}
		moves, legal := st.MoveList(), st.LegalList()
		if !game.TriedIllegal {
			for c := 0; c < 7; c++ {
				if slices.Contains(legal, c) {
					continue
				}
				game.TriedIllegal = true
				if err := ClickColumn(ctx, c); err != nil {
					return game, err
				}
				msg, err := Text(ctx, "error")
				if err != nil {
					return game, err
				}
				if !strings.Contains(msg, "not legal") {
					return game, fmt.Errorf("click on full column %d: error text %q, want \"not legal\"", c+1, msg)
				}
				if after, err := Read(ctx); err != nil || after.Moves != st.Moves {
					return game, fmt.Errorf("click on full column %d changed the moves from %q to %q (%v)", c+1, st.Moves, after.Moves, err)
				}
				break
			}
		}
		col := legal[0]
		for _, c := range []int{0, 6, 1} {
			if slices.Contains(legal, c) {
				col = c
				break
			}
		}
		if err := ClickColumn(ctx, col); err != nil {
			return game, err
		}
		next, err := WaitTurn(ctx)
		if err != nil {
			return game, err
		}
		got := next.MoveList()
		if len(got) <= len(moves) || got[len(moves)] != col {
			msg, _ := Text(ctx, "error")
			return game, fmt.Errorf("after clicking column %d at moves %v: moves %v (error shown: %q)", col+1, moves, got, msg)
		}
		if next.Over != "1" {
			if len(got) != len(moves)+2 {
				msg, _ := Text(ctx, "error")
				return game, fmt.Errorf("the engine did not answer: moves %v (error shown: %q)", got, msg)
			}
			engineMove, _ := Text(ctx, "engine-move")
			think, _ := Text(ctx, "think")
			value, err := Text(ctx, "value")
			if err != nil {
				return game, err
			}
			if engineMove != strconv.Itoa(got[len(got)-1]+1) || !strings.Contains(think, "top:") {
				return game, fmt.Errorf("engine move shown %q (played %d), analysis %q", engineMove, got[len(got)-1]+1, think)
			}
			if _, err := strconv.ParseFloat(value, 64); err != nil {
				return game, fmt.Errorf("engine value shown %q: %v", value, err)
			}
		}
		st = next
	}
	game.Moves = st.MoveList()
	result, err := Text(ctx, "result")
	if err != nil {
		return game, err
	}
	game.Result = result
	if !strings.Contains(result, "wins") && !strings.Contains(result, "Draw") {
		msg, _ := Text(ctx, "error")
		return game, fmt.Errorf("result shown %q (error %q)", result, msg)
	}
	return game, nil
}

// ClickCell clicks, with the mouse, the cell of action a on a board of
// size x size cells drawn on the page (Othello, Go, tic-tac-toe), placed
// where the page says it drew the board (its canvas's data-geometry).
func ClickCell(ctx context.Context, a, size int) error {
	var g []float64
	if err := chromedp.Run(ctx, chromedp.Evaluate(`(() => { const c = document.getElementById("board"), r = c.getBoundingClientRect();
  const g = JSON.parse(c.dataset.geometry); return [r.left + g.x0, r.top + g.y0, g.cell]; })()`, &g)); err != nil {
		return err
	}
	r, c := a/size, a%size
	return chromedp.Run(ctx, chromedp.MouseClickXY(g[0]+(float64(c)+0.5)*g[2], g[1]+(float64(r)+0.5)*g[2]))
}

// CheckIllegalCellRefused starts a new game of Othello 6x6 with the person
// first against the opponent already chosen, clicks the corner a1 (never
// legal at the start), checks that the page refuses it with a message and
// changes nothing, then clicks a legal move and checks that the engine
// answers, and that Undo takes both moves back.
func CheckIllegalCellRefused(ctx context.Context, opponent string) error {
	if err := chromedp.Run(ctx,
		chromedp.SetValue("#game", "othello:size=6", chromedp.ByID),
		chromedp.Evaluate(`document.getElementById("game").dispatchEvent(new Event("change"))`, nil),
		chromedp.Poll(`document.querySelector("#opponent option") !== null && [...document.querySelectorAll("#opponent option")].some(o => o.value === `+strconv.Quote(opponent)+`)`, nil,
			chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.SetValue("#opponent", opponent, chromedp.ByID),
		chromedp.SetValue("#colour", "0", chromedp.ByID),
		chromedp.Click("#new", chromedp.ByID),
	); err != nil {
		return err
	}
	st, err := WaitTurn(ctx)
	if err != nil {
		return err
	}
	if st.Moves != "" || st.Human != "0" || st.ToMove != "0" {
		return fmt.Errorf("new othello game: %+v", st)
	}
	if err := ClickCell(ctx, 0, 6); err != nil {
		return err
	}
	msg, err := Text(ctx, "error")
	if err != nil {
		return err
	}
	if !strings.Contains(msg, "not legal") {
		return fmt.Errorf("click on a1: error text %q, want \"not legal\"", msg)
	}
	if after, err := Read(ctx); err != nil || after.Moves != "" {
		return fmt.Errorf("click on a1 changed the moves to %q (%v)", after.Moves, err)
	}
	move := st.LegalList()[0]
	if err := ClickCell(ctx, move, 6); err != nil {
		return err
	}
	next, err := WaitTurn(ctx)
	if err != nil {
		return err
	}
	if got := next.MoveList(); len(got) != 2 || got[0] != move {
		msg, _ := Text(ctx, "error")
		return fmt.Errorf("after clicking action %d: moves %v, want it and the engine's answer (error shown %q)", move, got, msg)
	}
	if msg, _ := Text(ctx, "error"); msg != "" {
		return fmt.Errorf("error still shown after a legal move: %q", msg)
	}
	// Undo takes back the engine's answer and the person's move.
	if err := chromedp.Run(ctx,
		chromedp.Click("#undo", chromedp.ByID),
		chromedp.Poll(`document.getElementById("board").dataset.moves === ""`, nil, chromedp.WithPollingTimeout(5*time.Second)),
	); err != nil {
		b, _ := Read(ctx)
		return fmt.Errorf("undo: moves %q: %w", b.Moves, err)
	}
	if b, err := WaitTurn(ctx); err != nil || b.ToMove != "0" || b.Moves != "" {
		return fmt.Errorf("after undo: %+v (%v), want the start with the person to move", b, err)
	}
	return nil
}

// CheckSpecBox types a player spec into the page's spec box and starts a
// game of game with the person second, so that the engine moves at once.
// It returns the board after the engine's answer, or the error shown.
func CheckSpecBox(ctx context.Context, game, spec string) (Board, string, error) {
	if err := chromedp.Run(ctx,
		chromedp.SetValue("#game", game, chromedp.ByID),
		chromedp.Evaluate(`document.getElementById("game").dispatchEvent(new Event("change"))`, nil),
		chromedp.SetValue("#spec", spec, chromedp.ByID),
		chromedp.SetValue("#colour", "1", chromedp.ByID),
		chromedp.Click("#new", chromedp.ByID),
	); err != nil {
		return Board{}, "", err
	}
	b, err := WaitTurn(ctx)
	if err != nil {
		return b, "", err
	}
	msg, err := Text(ctx, "error")
	return b, msg, err
}

// CheckGoPass plays Go 5x5 as white against the spec in the spec box: it
// clicks a free point, then the Pass button, and checks that each is played
// and answered, and that the page shows the area-score estimate.
func CheckGoPass(ctx context.Context, spec string) error {
	st, msg, err := CheckSpecBox(ctx, "go:size=5", spec)
	if err != nil {
		return err
	}
	if msg != "" || len(st.MoveList()) != 1 || st.Human != "1" {
		return fmt.Errorf("go 5x5 with the person second: %+v, error shown %q", st, msg)
	}
	pt := 12 // C3, the centre
	if !slices.Contains(st.LegalList(), pt) {
		pt = 6
	}
	if err := ClickCell(ctx, pt, 5); err != nil {
		return err
	}
	st, err = WaitTurn(ctx)
	if err != nil {
		return err
	}
	if got := st.MoveList(); len(got) != 3 || got[1] != pt {
		msg, _ := Text(ctx, "error")
		return fmt.Errorf("after clicking point %d: moves %v (error shown %q)", pt, got, msg)
	}
	if err := chromedp.Run(ctx, chromedp.Click("#pass", chromedp.ByID)); err != nil {
		return err
	}
	st, err = WaitTurn(ctx)
	if err != nil {
		return err
	}
	if got := st.MoveList(); len(got) < 4 || got[3] != 25 {
		msg, _ := Text(ctx, "error")
		return fmt.Errorf("after clicking Pass: moves %v (error shown %q)", got, msg)
	}
	score, err := Text(ctx, "score")
	if err != nil {
		return err
	}
	if !strings.Contains(score, "B+") && !strings.Contains(score, "W+") {
		return fmt.Errorf("score shown %q", score)
	}
	return nil
}
