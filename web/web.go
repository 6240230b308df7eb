// Package web is what the browser front end of play needs from a game,
// shared by the page's HTTP server (web/server) and the engine compiled to
// WebAssembly for the static export (web/wasm): the requests the page sends
// (a game, an opponent and the moves so far), the positions it draws (a board
// of cells, the legal moves, the result), the engine's reply (its move, its
// move probabilities and its value), and the page's assets (Assets).
//
// Nothing here keeps state between requests: the page sends the whole move
// list each time, and Replay plays it again through the checked path, so a
// bad or illegal move anywhere is an error that names it.
package web

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"tabula/games"
	"tabula/games/backgammon"
	"tabula/games/chess"
	"tabula/games/connect4"
	"tabula/games/gogame"
	"tabula/games/othello"
	"tabula/games/tictactoe"
)

// GameChoice is one game the page offers.
type GameChoice struct {
	Spec  string `json:"spec"`  // game spec for games.New
	Title string `json:"title"` // what the page shows
}

// Choices lists the games the page offers, in the order shown. Any other spec
// of these games (e.g. "go:size=9,komi=6.5", "chess:maxplies=300") is
// accepted too.
var Choices = []GameChoice{
	{"connect4", "Connect Four"},
	{"othello:size=6", "Othello 6x6"},
	{"othello:size=8", "Othello 8x8"},
	{"go:size=5", "Go 5x5"},
	{"go:size=7", "Go 7x7"},
	{"go:size=9", "Go 9x9"},
	{"chess", "Chess"},
	{"tictactoe", "Tic-tac-toe"},
	{"backgammon", "Backgammon"},
}

// Limits on what a request may carry.
const (
	// MaxSpecLen bounds the length of a game or player spec.
	MaxSpecLen = 1024
)

// Layout says how a game's board is drawn and what a click means.
type Layout struct {
	// Kind is "connect4" (a click on a column drops a disc: action = column),
	// "othello", "go" or "tictactoe" (a click on a cell: action = row*Cols +
	// col, row 0 at the top), "chess" (a click on a piece and one on its
	// destination, matched against LegalText's UCI moves; row 0 is the
	// eighth rank), "backgammon" (clicks on a checker's point and its
	// destination choose among the legal turns: Position.Backgammon), or
	// "cards" (no board: the person's view as text and a button a legal
	// card or bet; see Dealer).
	Kind string `json:"kind"`
	Rows int    `json:"rows"`
	Cols int    `json:"cols"`
	// Pass is the pass action, or -1 when the game has none.
	Pass int `json:"pass"`
	// Players names the first and the second player's colours.
	Players [2]string `json:"players"`
}

// LayoutOf returns the layout of g, or an error when the page cannot draw g.
func LayoutOf(g games.Game) (Layout, error) {
	switch gg := g.(type) {
	case connect4.Game:
		return Layout{Kind: "connect4", Rows: connect4.Height, Cols: connect4.Width, Pass: -1, Players: [2]string{"Red", "Yellow"}}, nil
	case *othello.Game:
		_, h, w := gg.ObservationShape()
		return Layout{Kind: "othello", Rows: h, Cols: w, Pass: gg.Pass(), Players: [2]string{"Black", "White"}}, nil
	case *gogame.Game:
		return Layout{Kind: "go", Rows: gg.Size(), Cols: gg.Size(), Pass: gg.Pass(), Players: [2]string{"Black", "White"}}, nil
	case chess.Game:
		return Layout{Kind: "chess", Rows: 8, Cols: 8, Pass: -1, Players: [2]string{"White", "Black"}}, nil
	case *backgammon.Game:
		return Layout{Kind: "backgammon", Rows: 1, Cols: backgammon.Points, Pass: backgammon.PassAction, Players: [2]string{"White", "Black"}}, nil
	case tictactoe.Game:
		return Layout{Kind: "tictactoe", Rows: tictactoe.Side, Cols: tictactoe.Side, Pass: -1, Players: [2]string{"X", "O"}}, nil
	}
	if IsCardGame(g) {
		return Layout{Kind: "cards", Pass: -1, Players: [2]string{"First", "Second"}}, nil
	}
	return Layout{}, fmt.Errorf("game %s: the page draws connect4, othello, go, chess, tictactoe, backgammon and the card games (whist, kuhn, leduc) only", g.Name())
}

// Request is what the page sends: a game, the moves played so far (actions),
// and, for an engine move, the opponent's player spec.
type Request struct {
	Game   string `json:"game"`
	Player string `json:"player,omitempty"`
	Moves  []int  `json:"moves"`
	// In a card game (see Dealer) the moves are the deal's: Deal is its
	// token, Play the person's next card or bet, and Human the person's
	// seat in a new deal (0 first, 1 second). In a game of dice on the
	// served page (Dealer.Dice) Deal is the game's dice token, sent with
	// the moves.
	Deal  string `json:"deal,omitempty"`
	Play  *int   `json:"play,omitempty"`
	Human int    `json:"human,omitempty"`
	// Resigned, when set, is the player (0 first, 1 second) who resigned
	// after Moves: the game is over and that player lost. /api/state and
	// /api/record take it.
	Resigned *int `json:"resigned,omitempty"`
}

// BadRequestError is an error in what the page sent (an unknown game, an
// illegal move, a malformed spec), as opposed to a failure of the engine.
type BadRequestError struct{ Err error }

func (e *BadRequestError) Error() string { return e.Err.Error() }
func (e *BadRequestError) Unwrap() error { return e.Err }

func badRequest(format string, args ...any) error {
	return &BadRequestError{Err: fmt.Errorf(format, args...)}
}

// EngineError is a player's failure to choose a move (its ChooseAction
// error), as opposed to a bad request or an illegal choice.
type EngineError struct{ Err error }

func (e *EngineError) Error() string { return "engine: " + e.Err.Error() }
func (e *EngineError) Unwrap() error { return e.Err }

// IsBadRequest reports whether err is the requester's fault.
func IsBadRequest(err error) bool {
	var b *BadRequestError
	return errors.As(err, &b)
}

// NewGame builds the game of a spec the page can draw.
func NewGame(spec string) (games.Game, Layout, error) {
	if spec == "" {
		return nil, Layout{}, badRequest("no game given; valid: %s", choiceSpecs())
	}
	if len(spec) > MaxSpecLen {
		return nil, Layout{}, badRequest("game spec is %d bytes long, more than %d", len(spec), MaxSpecLen)
	}
	g, err := games.New(spec)
	if err != nil {
		return nil, Layout{}, &BadRequestError{Err: err}
	}
	l, err := LayoutOf(g)
	if err != nil {
		return nil, Layout{}, &BadRequestError{Err: err}
	}
	return g, l, nil
}

func choiceSpecs() string {
	s := ""
	for i, c := range Choices {
		if i > 0 {
			s += ", "
		}
		s += c.Spec
	}
	return s
}

// Replay builds r's game and plays r's moves from the start through the
// checked path. Every error it returns is a BadRequestError naming what is
// wrong (the game, or the first illegal move and its number).
func (r Request) Replay() (games.Game, Layout, games.State, error) {
	g, l, err := NewGame(r.Game)
	if err != nil {
		return nil, Layout{}, nil, err
	}
	if IsCardGame(g) {
		return nil, Layout{}, nil, badRequest("game %s: its deal is hidden, so moves are not replayed from a list; the served page deals it (Dealer)", g.Name())
	}
	if len(r.Moves) > g.MaxGameLength() {
		return nil, Layout{}, nil, badRequest("%d moves: a game of %s has at most %d", len(r.Moves), g.Name(), g.MaxGameLength())
	}
	s, err := games.Replay(g, r.Moves)
	if err != nil {
		return nil, Layout{}, nil, &BadRequestError{Err: fmt.Errorf("game %s: %w", g.Name(), err)}
	}
	return g, l, s, nil
}

// Position is a position as the page draws it.
type Position struct {
	Game   string `json:"game"` // canonical game name
	Layout Layout `json:"layout"`
	Moves  []int  `json:"moves"`
	// Notation is the move list in the game's notation, e.g. "4453".
	Notation string `json:"notation"`
	// Cells holds Rows*Cols entries, row 0 at the top: 0 empty, 1 a stone of
	// the first player, 2 of the second.
	Cells []int8 `json:"cells"`
	// Pieces names each cell's piece in chess, in the order of Cells: FEN's
	// letters (PNBRQK White, pnbrqk Black) or "." for an empty square.
	Pieces string `json:"pieces,omitempty"`
	// Check is true when the player to move is in check (chess).
	Check  bool `json:"check,omitempty"`
	ToMove int  `json:"toMove"`
	// Legal lists the legal actions, with their names in LegalText.
	Legal     []int    `json:"legal"`
	LegalText []string `json:"legalText"`
	Over      bool     `json:"over"`
	// Returns is the result for the first and the second player at the end:
	// +1 win, -1 loss, 0 draw.
	Returns [2]float64 `json:"returns"`
	// Result says who won, in words, at the end ("" before).
	Result string `json:"result"`
	// Score is the game's count where it has one: discs in Othello
	// ("Black 20, White 16"), the area score in Go ("B+3.5"), the person's
	// chips or tricks in a card game ("you +2 tricks").
	Score string `json:"score,omitempty"`
	// In a card game: View is what the person's seat Human sees (its
	// cards, the public cards, the play so far; the whole deal at the end)
	// and Deal the token to send back. In a game of dice on the served
	// page Deal is the dice token to send back with the moves.
	View  string `json:"view,omitempty"`
	Human int    `json:"human,omitempty"`
	Deal  string `json:"deal,omitempty"`
	// Backgammon is the board, dice and legal turns of a backgammon game.
	Backgammon *BackgammonView `json:"backgammon,omitempty"`
}

// Describe returns s, reached from the start by moves, as the page draws it.
func Describe(g games.Game, l Layout, s games.State, moves []int) Position {
	p := Position{Game: g.Name(), Layout: l, Moves: append([]int{}, moves...), ToMove: s.CurrentPlayer()}
	if n, ok := g.(games.Notation); ok {
		p.Notation = n.FormatActions(moves)
	}
	planes, h, w := g.ObservationShape()
	obs := make([]float32, planes*h*w)
	s.Observation(obs)
	// Planes 0 and 1 of every game here hold the mover's and the opponent's
	// stones, row-major, row 0 at the top.
	mover, other := int8(s.CurrentPlayer()+1), int8(2-s.CurrentPlayer())
	p.Cells = make([]int8, h*w)
	for i := range p.Cells {
		switch {
		case obs[i] != 0:
			p.Cells[i] = mover
		case obs[h*w+i] != 0:
			p.Cells[i] = other
		}
	}
	if st, ok := s.(*chess.State); ok {
		describeChess(&p, st, moves)
	}
	p.Legal = s.LegalActions(nil)
	if p.Legal == nil {
		p.Legal = []int{}
	}
	p.LegalText = make([]string, len(p.Legal))
	for i, a := range p.Legal {
		p.LegalText[i] = actionText(g, a)
	}
	p.Over = s.IsTerminal()
	switch st := s.(type) {
	case *backgammon.State:
		describeBackgammon(g, st, &p)
		if p.Over {
			if w, pts := st.Points(); pts > 1 {
				p.Score = fmt.Sprintf("%s wins %d points", l.Players[w], pts)
			}
		}
	case *othello.State:
		b, wh := 0, 0
		for _, c := range p.Cells {
			switch c {
			case 1:
				b++
			case 2:
				wh++
			}
		}
		p.Score = fmt.Sprintf("%s %d, %s %d", l.Players[0], b, l.Players[1], wh)
	case *gogame.State:
		sc := st.Score()
		switch {
		case sc > 0:
			p.Score = fmt.Sprintf("B+%g", sc)
		case sc < 0:
			p.Score = fmt.Sprintf("W+%g", -sc)
		default:
			p.Score = "0 (even)"
		}
		if !p.Over {
			p.Score = "estimate " + p.Score
		}
	}
	if p.Over {
		p.Returns = s.Returns()
		switch {
		case p.Returns[0] > 0:
			p.Result = l.Players[0] + " wins"
		case p.Returns[1] > 0:
			p.Result = l.Players[1] + " wins"
		default:
			p.Result = "Draw"
		}
	}
	return p
}

// describeChess fills in a chess position's cells and pieces from the board
// (the observation's planes 0 and 1 hold only pawns) and writes the move
// list in SAN with move numbers ("1. e4 e5 2. Nf3").
func describeChess(p *Position, st *chess.State, moves []int) {
	pos := st.Position()
	var pieces [64]byte
	for i := range p.Cells {
		sq := chess.Square((7-i/8)*8 + i%8)
		pc := pos.PieceAt(sq)
		pieces[i] = '.'
		p.Cells[i] = 0
		if pc != chess.NoPiece {
			pieces[i] = pc.Letter()
			p.Cells[i] = int8(pc.Color()) + 1
		}
	}
	p.Pieces = string(pieces[:])
	p.Check = pos.InCheck()
	if san, err := chess.SANLine(moves); err == nil {
		p.Notation = san
	}
}

// actionText names action a in g's notation, or by number.
func actionText(g games.Game, a int) string {
	if n, ok := g.(games.Notation); ok {
		return n.FormatAction(a)
	}
	return fmt.Sprint(a)
}

// Engine is the part of a player the page needs. A player may also show its
// move distribution (LastPolicy() []float32, as players.Analyzer) and its value
// (Value() float64, as players.Valuer); Think reports them when it does.
type Engine interface {
	ChooseAction(ctx context.Context, s games.State) (int, error)
}

type analyzer interface{ LastPolicy() []float32 }
type valuer interface{ Value() float64 }

// Reply is the engine's answer to a position.
type Reply struct {
	Move     int    `json:"move"`
	MoveText string `json:"moveText"`
	// Policy is the engine's move distribution over every action of the
	// game, when it has one.
	Policy []float32 `json:"policy,omitempty"`
	// Top lists the (at most 5) most probable moves of Policy, best first.
	Top []MoveProb `json:"top,omitempty"`
	// Value is the engine's value of the position it moved in, from its own
	// side, in its own units (a network: -1..1), when it has one.
	Value *float64 `json:"value,omitempty"`
	// Millis is how long the engine thought.
	Millis float64 `json:"millis"`
	// Position is the position after the engine's move.
	Position Position `json:"position"`
}

// MoveProb is a move and its probability.
type MoveProb struct {
	Move string  `json:"move"`
	P    float32 `json:"p"`
}

// Think asks e for a move in s (reached by moves), checks it, and returns it
// with what e shows of its reasoning and the position after it. s is not
// changed. It is a BadRequestError to ask for a move at the end of a game.
func Think(ctx context.Context, e Engine, g games.Game, l Layout, s games.State, moves []int) (Reply, error) {
	if s.IsTerminal() {
		return Reply{}, badRequest("game %s: the game is over, there is no move to make", g.Name())
	}
	start := time.Now()
	a, err := e.ChooseAction(ctx, s.Clone())
	if err != nil {
		return Reply{}, &EngineError{Err: err}
	}
	r := Reply{Move: a, MoveText: games.FormatMove(s, a), Millis: float64(time.Since(start).Microseconds()) / 1000}
	if an, ok := e.(analyzer); ok {
		if pol := an.LastPolicy(); len(pol) == g.NumActions() {
			r.Policy = make([]float32, len(pol))
			for i, v := range pol {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					v = 0
				}
				r.Policy[i] = v
			}
			r.Top = topMoves(s, r.Policy, 5)
		}
	}
	if v, ok := e.(valuer); ok {
		if x := v.Value(); !math.IsNaN(x) && !math.IsInf(x, 0) {
			r.Value = &x
		}
	}
	next := s.Clone()
	if err := games.Play(next, a); err != nil {
		return Reply{}, fmt.Errorf("engine chose an illegal move: %w", err)
	}
	r.Position = Describe(g, l, next, append(append([]int{}, moves...), a))
	return r, nil
}

// topMoves returns the n most probable actions of policy in s, best first,
// leaving out those of probability zero, named in s's notation.
func topMoves(s games.State, policy []float32, n int) []MoveProb {
	var top []MoveProb
	idx := make([]int, 0, len(policy))
	for a, p := range policy {
		if p > 0 {
			idx = append(idx, a)
		}
	}
	sort.SliceStable(idx, func(i, j int) bool { return policy[idx[i]] > policy[idx[j]] })
	for _, a := range idx[:min(n, len(idx))] {
		top = append(top, MoveProb{Move: games.FormatMove(s, a), P: policy[a]})
	}
	return top
}
