// Package chess implements chess behind the games API: the full rules
// (castling, en passant, promotion, check, mate, stalemate, the 50-move
// rule, threefold repetition, insufficient material), bitboard move
// generation fast enough for perft, Zobrist hashing, and FEN, UCI, SAN and
// PGN notation. It has the rules only; the classical engine lives in
// search/.
//
// # Representation
//
// A Position keeps one bitboard per colour and per piece type plus a
// square-indexed board, with squares numbered a1 = 0 .. h8 = 63. Sliding
// attacks use magic bitboards in pure Go: the lookup is a multiply and a
// shift that the compiler inlines, and it runs on every architecture; BMI2's
// PEXT would save the multiply but needs an assembly function, which Go
// cannot inline, so each lookup would pay a call. The magic multipliers were
// found once by a seeded random search (magicgen_test.go) and live in
// magics.go. Move generation is legal by construction (checkers, pins and
// the king's safe squares are computed once per position), and Make updates
// the Zobrist hash incrementally (a test checks it against recomputation).
//
// # Actions
//
// There are 4272 actions, each naming one UCI move without needing the
// position, so that games.Notation round-trips every action:
//
//   - 0..4095: from*64 + to, for every move that is not a promotion
//     (castling is the king's two-square move, e1g1; en passant is the
//     pawn's diagonal move).
//   - 4096..4271: promotions. For White (4096..4183) and then Black
//     (4184..4271), the 22 (from file, to file) pairs of a pawn move from
//     the seventh rank to the eighth (for Black the second to the first) in
//     order of from file and then to file, each times the four pieces N, B,
//     R, Q: 4096 + 88*colour + 4*pair + piece.
//
// The squares are absolute, not flipped for Black: the policy head and the
// observation share one orientation.
//
// # Observation
//
// 21 planes of 8x8, row 0 the eighth rank and column 0 the a-file (the
// board as drawn, never flipped), from the point of view of the player to
// move:
//
//	0-5    the mover's pawns, knights, bishops, rooks, queens, king
//	6-11   the opponent's, in the same order
//	12     all ones when Black is to move
//	13-16  all ones for each castling right: the mover's king side, queen
//	       side, then the opponent's king side, queen side
//	17     the en passant target square, when a capture there is legal
//	18, 19 all ones when the position has occurred before at least once,
//	       at least twice
//	20     the halfmove clock / 100, on every square
//
// There is no history of earlier positions (AlphaZero had eight).
//
// # Notation
//
// Moves are written in UCI long algebraic notation everywhere the games API
// writes them (FormatAction, FormatMove, games.Play's errors): "e2e4",
// "e1g1", "e7e8q". ParseMove also reads SAN ("Nf3", "exd5", "O-O",
// "e8=Q+"). SAN in and out, FEN and PGN are functions of this package.
//
// # Results and symmetries
//
// The game ends at checkmate (a win for the mating side), stalemate,
// threefold repetition (the same position, by Zobrist hash, for the third
// time since the last irreversible move), the 50-move rule (the halfmove
// clock reaching 100, unless that move mates), insufficient material (no
// pawns, rooks or queens, and at most one minor piece or only bishops all on
// squares of one colour), and, when the spec sets maxplies, after that many
// actions (a draw). Draws that FIDE lets a player claim end the game here
// at once. The game offers no symmetries: the only one, the left-right
// mirror, holds only once no castling rights remain, and the Symmetric
// capability is a property of the whole game.
package chess

import (
	"errors"
	"fmt"
	"strings"

	"tabula/games"
)

func init() {
	games.Register("chess", "chess; moves in UCI notation (e2e4, e1g1, e7e8q), SAN accepted on input",
		[]games.Param{{Name: "maxplies", Default: "0", Doc: "adjudicate a draw after this many plies (0: only the rules end a game)"}},
		func(p games.Params) (games.Game, error) {
			n, err := p.Int("maxplies")
			if err != nil {
				return nil, err
			}
			if n < 0 || n > maxRulesPlies {
				return nil, fmt.Errorf("game chess: parameter maxplies=%d, want 0 (none) or 1..%d", n, maxRulesPlies)
			}
			return Game{MaxPlies: n}, nil
		})
}

// Action space sizes.
const (
	numFromTo     = 64 * 64
	numPromotions = 2 * 22 * 4
	// NumActions is the number of actions (see the package doc).
	NumActions = numFromTo + numPromotions
)

// maxRulesPlies bounds a game under the automatic 50-move rule: the
// halfmove clock is reset by at most 126 moves (30 captures and 16*6 pawn
// steps) and at most 100 plies pass between resets.
const maxRulesPlies = 127*100 + 126

// Observation planes.
const (
	planeSide      = 12
	planeCastling  = 13
	planeEP        = 17
	planeRepeated  = 18
	planeClock     = 20
	NumPlanes      = 21
	histCapacity   = 102 // positions since the last reset: clock 0..100 plus one
	promoPairCount = 22
)

// promoPairs[i] is the i-th (from file, to file) pair of a promotion, and
// promoPairIndex its inverse (-1 for no pair).
var (
	promoPairs     [promoPairCount][2]int
	promoPairIndex [8][8]int
)

func init() {
	i := 0
	for f := 0; f < 8; f++ {
		for t := 0; t < 8; t++ {
			promoPairIndex[f][t] = -1
			if t >= f-1 && t <= f+1 {
				promoPairs[i] = [2]int{f, t}
				promoPairIndex[f][t] = i
				i++
			}
		}
	}
}

// ActionOf returns the action of move m. A promotion must go from the
// seventh rank to the eighth or the second to the first, to the same or an
// adjacent file; ActionOf returns -1 for one that does not.
func ActionOf(m Move) int {
	promo := m.Promotion()
	if promo == 0 {
		return int(m.From())*64 + int(m.To())
	}
	from, to := m.From(), m.To()
	var c int
	switch {
	case from.Rank() == 6 && to.Rank() == 7:
		c = 0
	case from.Rank() == 1 && to.Rank() == 0:
		c = 1
	default:
		return -1
	}
	pair := promoPairIndex[from.File()][to.File()]
	if pair < 0 || promo < Knight || promo > Queen {
		return -1
	}
	return numFromTo + 88*c + 4*pair + int(promo-Knight)
}

// MoveOf returns the move of action a, which must be in [0, NumActions).
func MoveOf(a int) Move {
	if a < numFromTo {
		return NewMove(Square(a/64), Square(a%64), 0)
	}
	a -= numFromTo
	c, pair, piece := a/88, a%88/4, a%4
	fromRank, toRank := 6, 7
	if c == 1 {
		fromRank, toRank = 1, 0
	}
	ft := promoPairs[pair]
	return NewMove(squareAt(ft[0], fromRank), squareAt(ft[1], toRank), Knight+PieceType(piece))
}

// Game is chess. The zero value is the standard game; MaxPlies > 0 ends a
// game as a draw after that many plies.
type Game struct {
	MaxPlies int
}

// Name returns "chess", or "chess:maxplies=N".
func (g Game) Name() string {
	if g.MaxPlies > 0 {
		return fmt.Sprintf("chess:maxplies=%d", g.MaxPlies)
	}
	return "chess"
}

// RulesName returns "chess": MaxPlies only adjudicates (games.Adjudicated).
func (Game) RulesName() string { return "chess" }

// NumActions returns 4272.
func (Game) NumActions() int { return NumActions }

// ObservationShape returns 21 planes of 8x8.
func (Game) ObservationShape() (planes, height, width int) { return NumPlanes, 8, 8 }

// MaxGameLength returns MaxPlies when set, else a bound that the 50-move
// rule guarantees.
func (g Game) MaxGameLength() int {
	if g.MaxPlies > 0 {
		return g.MaxPlies
	}
	return maxRulesPlies
}

// NewInitialState returns the initial position, White to move.
func (g Game) NewInitialState() games.State {
	s, err := g.NewState(StartFEN)
	if err != nil {
		panic(err)
	}
	return s
}

// NewState returns a state starting from the position in fen (ParseFEN).
// Repetitions count from there; MoveNumber starts at 0.
func (g Game) NewState(fen string) (*State, error) {
	p, err := ParseFEN(fen)
	if err != nil {
		return nil, err
	}
	return g.NewStateFrom(p), nil
}

// NewStateFrom returns a state starting from position p.
func (g Game) NewStateFrom(p Position) *State {
	s := &State{pos: p, maxPlies: int32(g.MaxPlies)}
	s.hist[0] = p.hash
	s.nhist = 1
	s.update()
	return s
}

// Status says whether a game goes on and, if not, why it ended.
type Status uint8

// The statuses.
const (
	Ongoing Status = iota
	Checkmate
	Stalemate
	Repetition
	FiftyMoves
	InsufficientMaterial
	MaxPliesReached
)

var statusNames = [...]string{"ongoing", "checkmate", "stalemate", "threefold repetition", "50-move rule", "insufficient material", "move limit"}

func (s Status) String() string { return statusNames[s] }

// State is a chess game in progress: the position and the hashes of the
// positions since the last capture or pawn move, for repetitions. Its size
// is fixed (about 1 KB), so Clone is one allocation and CopyFrom none.
type State struct {
	pos      Position
	hist     [histCapacity]uint64
	nhist    int32
	moves    int32
	maxPlies int32
	rep      uint8 // earlier occurrences of the current position
	status   Status
}

// Game returns the game, with its move limit.
func (s *State) Game() games.Game { return Game{MaxPlies: int(s.maxPlies)} }

// Position returns a copy of the current position.
func (s *State) Position() Position { return s.pos }

// Status returns whether the game goes on or why it ended.
func (s *State) Status() Status { return s.status }

// Repetitions returns how many times the current position occurred before
// (since the last irreversible move).
func (s *State) Repetitions() int { return int(s.rep) }

// CurrentPlayer is 0 when White is to move, 1 when Black is.
func (s *State) CurrentPlayer() int { return int(s.pos.side) }

// update recomputes the repetition count and the status after a move.
func (s *State) update() {
	s.rep = 0
	h := s.pos.hash
	for i := int(s.nhist) - 3; i >= 0; i -= 2 {
		if s.hist[i] == h {
			s.rep++
		}
	}
	moves := s.pos.HasLegalMove()
	switch {
	case !moves && s.pos.InCheck():
		s.status = Checkmate
	case !moves:
		s.status = Stalemate
	case s.pos.insufficientMaterial():
		s.status = InsufficientMaterial
	case s.rep >= 2:
		s.status = Repetition
	case s.pos.halfmove >= 100:
		s.status = FiftyMoves
	case s.maxPlies > 0 && s.moves >= s.maxPlies:
		s.status = MaxPliesReached
	default:
		s.status = Ongoing
	}
}

// insufficientMaterial reports a dead position by material alone: no
// pawns, rooks or queens, and either at most one minor piece or only
// bishops, all on squares of one colour.
func (p *Position) insufficientMaterial() bool {
	if p.byType[Pawn]|p.byType[Rook]|p.byType[Queen] != 0 {
		return false
	}
	minors := p.byType[Knight] | p.byType[Bishop]
	if minors.count() <= 1 {
		return true
	}
	b := p.byType[Bishop]
	return p.byType[Knight] == 0 && (b&lightSquares == 0 || b&^lightSquares == 0)
}

// LegalActions appends the legal actions in increasing order to buf[:0];
// none once the game is over.
func (s *State) LegalActions(buf []int) []int {
	buf = buf[:0]
	if s.status != Ongoing {
		return buf
	}
	var ml MoveList
	s.pos.LegalMoves(&ml)
	for _, m := range ml.Moves[:ml.N] {
		buf = append(buf, ActionOf(m))
	}
	// Insertion sort: a few dozen actions, no allocation.
	for i := 1; i < len(buf); i++ {
		for j := i; j > 0 && buf[j] < buf[j-1]; j-- {
			buf[j], buf[j-1] = buf[j-1], buf[j]
		}
	}
	return buf
}

// IsLegal reports whether action a is a legal move now.
func (s *State) IsLegal(a int) bool {
	if a < 0 || a >= NumActions || s.status != Ongoing {
		return false
	}
	m := MoveOf(a)
	if pc := s.pos.board[m.From()]; pc == NoPiece || pc.Color() != s.pos.side {
		return false
	}
	var ml MoveList
	s.pos.LegalMoves(&ml)
	for _, l := range ml.Moves[:ml.N] {
		if l == m {
			return true
		}
	}
	return false
}

// ApplyAction plays action a, which must be legal.
func (s *State) ApplyAction(a int) { s.play(MoveOf(a)) }

// play plays legal move m and updates the history and status.
func (s *State) play(m Move) {
	s.pos.Make(m)
	if s.pos.halfmove == 0 {
		s.nhist = 0
	}
	if int(s.nhist) == histCapacity { // only after a FEN whose clock was past 100
		copy(s.hist[:], s.hist[2:])
		s.nhist -= 2
	}
	s.hist[s.nhist] = s.pos.hash
	s.nhist++
	s.moves++
	s.update()
}

// IsTerminal reports whether the game is over.
func (s *State) IsTerminal() bool { return s.status != Ongoing }

// Returns is +1/-1 after checkmate (for the mating side/the mated one) and
// zeros for a draw or a game in progress.
func (s *State) Returns() [2]float64 {
	if s.status != Checkmate {
		return [2]float64{}
	}
	if s.pos.side == White {
		return [2]float64{-1, 1}
	}
	return [2]float64{1, -1}
}

// Observation writes the 21 planes described in the package doc.
func (s *State) Observation(dst []float32) {
	clear(dst[:NumPlanes*64])
	p := &s.pos
	us := p.side
	plane := func(i int) []float32 { return dst[i*64 : (i+1)*64] }
	fill := func(i int, v float32) {
		for j := range plane(i) {
			dst[i*64+j] = v
		}
	}
	for sq := Square(0); sq < 64; sq++ {
		pc := p.board[sq]
		if pc == NoPiece {
			continue
		}
		i := int(pc.Type())
		if pc.Color() != us {
			i += 6
		}
		dst[i*64+(7-sq.Rank())*8+sq.File()] = 1
	}
	if us == Black {
		fill(planeSide, 1)
	}
	rights := [4]uint8{castleWK, castleWQ, castleBK, castleBQ}
	if us == Black {
		rights = [4]uint8{castleBK, castleBQ, castleWK, castleWQ}
	}
	for i, r := range rights {
		if p.castling&r != 0 {
			fill(planeCastling+i, 1)
		}
	}
	if p.ep != NoSquare {
		dst[planeEP*64+(7-p.ep.Rank())*8+p.ep.File()] = 1
	}
	if s.rep >= 1 {
		fill(planeRepeated, 1)
	}
	if s.rep >= 2 {
		fill(planeRepeated+1, 1)
	}
	fill(planeClock, float32(p.halfmove)/100)
}

// Clone returns an independent copy.
func (s *State) Clone() games.State {
	c := *s
	return &c
}

// CopyFrom makes s a copy of src, another chess state (the Copier
// capability search uses to avoid allocations).
func (s *State) CopyFrom(src games.State) { *s = *src.(*State) }

// Hash mixes the position's Zobrist hash with the halfmove clock and the
// repetition count, which the observation and the outcome depend on.
func (s *State) Hash() uint64 {
	return s.pos.hash ^ zobristClock[min(int(s.pos.halfmove), len(zobristClock)-1)] ^ zobristRep[min(s.rep, 2)]
}

// MoveNumber is the number of actions played since the state was made.
func (s *State) MoveNumber() int { return int(s.moves) }

// String draws the board (White's pieces in capitals, rank 8 on top), then
// the FEN, the repetition count when the position has occurred before, and
// the result once the game is over.
func (s *State) String() string {
	var b strings.Builder
	for rank := 7; rank >= 0; rank-- {
		fmt.Fprintf(&b, "%d ", rank+1)
		for file := 0; file < 8; file++ {
			if file > 0 {
				b.WriteByte(' ')
			}
			b.WriteByte(pieceLetters[s.pos.board[squareAt(file, rank)]])
		}
		b.WriteByte('\n')
	}
	b.WriteString("  a b c d e f g h\n")
	fmt.Fprintf(&b, "fen %s\n", s.pos.FEN())
	if s.rep > 0 {
		fmt.Fprintf(&b, "repetitions %d\n", s.rep)
	}
	if s.status != Ongoing {
		fmt.Fprintf(&b, "%s: %s\n", s.status, s.ResultString())
	}
	return b.String()
}

// ResultString returns the PGN result: "1-0", "0-1", "1/2-1/2", or "*"
// while the game goes on.
func (s *State) ResultString() string {
	switch {
	case s.status == Ongoing:
		return "*"
	case s.status != Checkmate:
		return "1/2-1/2"
	case s.pos.side == Black:
		return "1-0"
	}
	return "0-1"
}

// SAN writes action a, legal in s, in standard algebraic notation.
func (s *State) SAN(a int) string { return s.pos.SAN(MoveOf(a)) }

// FormatMove writes action a in UCI notation (as FormatAction does).
func (s *State) FormatMove(a int) string { return MoveOf(a).String() }

// ParseMove reads one move in UCI or SAN notation and returns its action,
// or an error wrapping games.ErrIllegalMove for a well-formed move that is
// not legal here.
func (s *State) ParseMove(text string) (int, error) {
	t := strings.TrimSpace(text)
	if m, err := ParseUCI(t); err == nil {
		a := ActionOf(m)
		if !s.IsLegal(a) {
			return 0, fmt.Errorf("%w: %s is not legal here", games.ErrIllegalMove, m)
		}
		return a, nil
	}
	if s.status != Ongoing {
		return 0, fmt.Errorf("%w: %q: the game is over", games.ErrIllegalMove, t)
	}
	m, err := s.pos.ParseSAN(t)
	if err != nil {
		return 0, err
	}
	return ActionOf(m), nil
}

// ParseUCI reads a move in UCI long algebraic notation: from and to
// squares and, for a promotion, the piece (n, b, r, q; either case). It
// checks syntax and promotion geometry, not legality.
func ParseUCI(text string) (Move, error) {
	if len(text) != 4 && len(text) != 5 {
		return 0, fmt.Errorf("move %q: want UCI notation such as e2e4 or e7e8q", text)
	}
	from, ok1 := parseSquare(text[:2])
	to, ok2 := parseSquare(text[2:4])
	if !ok1 || !ok2 {
		return 0, fmt.Errorf("move %q: want two squares a1-h8, as in e2e4", text)
	}
	if len(text) == 4 {
		return NewMove(from, to, 0), nil
	}
	i := strings.IndexByte("nbrq", text[4]|0x20)
	if i < 0 {
		return 0, fmt.Errorf("move %q: promotion piece %q, want n, b, r or q", text, text[4])
	}
	m := NewMove(from, to, Knight+PieceType(i))
	if ActionOf(m) < 0 {
		return 0, fmt.Errorf("move %q: a promotion goes from the 7th rank to the 8th or the 2nd to the 1st", text)
	}
	return m, nil
}

// FormatAction writes action a in UCI notation ("e2e4", "e7e8q").
func (Game) FormatAction(a int) string {
	if a < 0 || a >= NumActions {
		return fmt.Sprintf("#%d", a)
	}
	return MoveOf(a).String()
}

// ParseAction reads one move in UCI notation. It checks syntax, not
// legality.
func (Game) ParseAction(text string) (int, error) {
	t := strings.TrimSpace(text)
	if t == "" {
		return 0, errors.New("chess move: empty text")
	}
	if t[0] == '#' { // the form FormatAction gives actions out of range
		return 0, fmt.Errorf("chess move %q: not a move", text)
	}
	m, err := ParseUCI(t)
	if err != nil {
		return 0, fmt.Errorf("chess %w", err)
	}
	return ActionOf(m), nil
}

// SANLine writes actions, played from the initial position, in SAN with
// move numbers ("1. e4 e5 2. Nf3"). An error names the first illegal one.
func SANLine(actions []int) (string, error) {
	s := Game{}.NewInitialState().(*State)
	var b strings.Builder
	for i, a := range actions {
		if !s.IsLegal(a) {
			return "", fmt.Errorf("move %d: action %d is not legal", i+1, a)
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		if s.pos.side == White {
			fmt.Fprintf(&b, "%d. ", s.pos.fullmove)
		}
		b.WriteString(s.SAN(a))
		s.ApplyAction(a)
	}
	return b.String(), nil
}

// FormatActions writes moves in UCI notation separated by spaces.
func (g Game) FormatActions(actions []int) string {
	parts := make([]string, len(actions))
	for i, a := range actions {
		parts[i] = g.FormatAction(a)
	}
	return strings.Join(parts, " ")
}

// ParseActions reads UCI moves separated by spaces or commas.
func (g Game) ParseActions(text string) ([]int, error) {
	var out []int
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\n' || r == '\r' }) {
		a, err := g.ParseAction(f)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}
