package chess

// Color is White (0) or Black (1), the same numbers as the players of the
// games API.
type Color uint8

// The two colours.
const (
	White Color = 0
	Black Color = 1
)

// PieceType is Pawn..King; NoPieceType marks an empty square.
type PieceType uint8

// The piece types.
const (
	Pawn PieceType = iota
	Knight
	Bishop
	Rook
	Queen
	King
	NoPieceType
)

// Piece is a coloured piece: 0 for an empty square, else 1 + type + 6*colour.
type Piece uint8

// NoPiece is an empty square.
const NoPiece Piece = 0

func makePiece(c Color, t PieceType) Piece { return Piece(1 + uint8(t) + 6*uint8(c)) }

// Type returns the piece's type (NoPieceType for NoPiece).
func (p Piece) Type() PieceType {
	if p == NoPiece {
		return NoPieceType
	}
	return PieceType((p - 1) % 6)
}

// Color returns the piece's colour (meaningless for NoPiece).
func (p Piece) Color() Color { return Color((p - 1) / 6) }

// Letter returns the piece's FEN letter (PNBRQK for White, pnbrqk for
// Black), or '.' for NoPiece.
func (p Piece) Letter() byte {
	if int(p) >= len(pieceLetters) {
		return '?'
	}
	return pieceLetters[p]
}

// pieceLetters are FEN's letters indexed by Piece.
const pieceLetters = ".PNBRQKpnbrqk"

// Castling rights as bits.
const (
	castleWK uint8 = 1 << iota
	castleWQ
	castleBK
	castleBQ
)

// Move is a move as from square, to square and promotion piece type
// (bits 0-5, 6-11, 12-14; 0 when no promotion). Castling is the king's
// two-square move, en passant the pawn's diagonal move to the target
// square, as in UCI.
type Move uint16

// NewMove builds a move; promo is Knight..Queen or 0.
func NewMove(from, to Square, promo PieceType) Move {
	return Move(from) | Move(to)<<6 | Move(promo)<<12
}

// From returns the origin square.
func (m Move) From() Square { return Square(m & 63) }

// To returns the destination square.
func (m Move) To() Square { return Square(m >> 6 & 63) }

// Promotion returns the piece type promoted to, or 0.
func (m Move) Promotion() PieceType { return PieceType(m >> 12 & 7) }

// String writes the move in UCI long algebraic notation ("e2e4", "e7e8q").
func (m Move) String() string {
	s := m.From().String() + m.To().String()
	if p := m.Promotion(); p != 0 {
		s += string("pnbrqk"[p])
	}
	return s
}

// Position is a chess position: the pieces, the side to move, castling
// rights, the en passant target, both clocks and the Zobrist hash. It does
// not know the game's history (State does, for repetitions). The zero
// value is not a position: use ParseFEN or StartPosition.
type Position struct {
	board    [64]Piece
	byColor  [2]Bitboard
	byType   [6]Bitboard
	hash     uint64
	side     Color
	castling uint8
	ep       Square // NoSquare unless an en passant capture is legal
	halfmove uint16
	fullmove uint32
}

// StartFEN is the initial position.
const StartFEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

// StartPosition returns the initial position.
func StartPosition() Position {
	p, err := ParseFEN(StartFEN)
	if err != nil {
		panic(err)
	}
	return p
}

// SideToMove returns the colour to move.
func (p *Position) SideToMove() Color { return p.side }

// PieceAt returns the piece on s (NoPiece when empty).
func (p *Position) PieceAt(s Square) Piece { return p.board[s] }

// Hash returns the Zobrist hash of the pieces, side to move, castling
// rights and en passant target (not the clocks).
func (p *Position) Hash() uint64 { return p.hash }

// HalfmoveClock returns the plies since the last capture or pawn move.
func (p *Position) HalfmoveClock() int { return int(p.halfmove) }

// FullmoveNumber returns the move number, starting at 1 and incremented
// after Black moves.
func (p *Position) FullmoveNumber() int { return int(p.fullmove) }

// EnPassant returns the en passant target square when an en passant
// capture is legal, NoSquare otherwise.
func (p *Position) EnPassant() Square { return p.ep }

// CanCastle reports whether colour c still has the right to castle on the
// king side (kingSide) or the queen side, as FEN's castling field says:
// rights lost by king or rook moves, whether or not castling is possible now.
func (p *Position) CanCastle(c Color, kingSide bool) bool {
	right := castleWK
	if !kingSide {
		right = castleWQ
	}
	if c == Black {
		right <<= 2
	}
	return p.castling&right != 0
}

func (p *Position) occupied() Bitboard { return p.byColor[0] | p.byColor[1] }

func (p *Position) pieces(c Color, t PieceType) Bitboard { return p.byColor[c] & p.byType[t] }

func (p *Position) kingSquare(c Color) Square { return p.pieces(c, King).first() }

func (p *Position) put(pc Piece, s Square) {
	p.board[s] = pc
	p.byColor[pc.Color()] |= bb(s)
	p.byType[pc.Type()] |= bb(s)
	p.hash ^= zobristPiece[pc][s]
}

func (p *Position) remove(s Square) {
	pc := p.board[s]
	p.board[s] = NoPiece
	p.byColor[pc.Color()] &^= bb(s)
	p.byType[pc.Type()] &^= bb(s)
	p.hash ^= zobristPiece[pc][s]
}

func (p *Position) movePiece(from, to Square) {
	pc := p.board[from]
	p.board[from], p.board[to] = NoPiece, pc
	ft := bb(from) | bb(to)
	p.byColor[pc.Color()] ^= ft
	p.byType[pc.Type()] ^= ft
	p.hash ^= zobristPiece[pc][from] ^ zobristPiece[pc][to]
}

// attackersTo returns the pieces of both colours attacking s, with sliders
// seen through occupancy occ.
func (p *Position) attackersTo(s Square, occ Bitboard) Bitboard {
	return pawnAttacks[White][s]&p.pieces(Black, Pawn) |
		pawnAttacks[Black][s]&p.pieces(White, Pawn) |
		knightAttacks[s]&p.byType[Knight] |
		kingAttacks[s]&p.byType[King] |
		bishopAttacks(s, occ)&(p.byType[Bishop]|p.byType[Queen]) |
		rookAttacks(s, occ)&(p.byType[Rook]|p.byType[Queen])
}

// InCheck reports whether the side to move is in check.
func (p *Position) InCheck() bool {
	return p.attackersTo(p.kingSquare(p.side), p.occupied())&p.byColor[p.side^1] != 0
}

// castleMask[s] is the castling rights that survive a move from or to s.
var castleMask [64]uint8

func initCastleMask() {
	for s := range castleMask {
		castleMask[s] = 15
	}
	castleMask[0] &^= castleWQ
	castleMask[7] &^= castleWK
	castleMask[4] &^= castleWK | castleWQ
	castleMask[56] &^= castleBQ
	castleMask[63] &^= castleBK
	castleMask[60] &^= castleBK | castleBQ
}

// Make plays m, which must be legal in p (the fast path: nothing is
// checked). Callers that need the position before copy it first.
func (p *Position) Make(m Move) {
	from, to, promo := m.From(), m.To(), m.Promotion()
	us := p.side
	pc := p.board[from]
	p.hash ^= zobristCastling[p.castling]
	if p.ep != NoSquare {
		p.hash ^= zobristEP[p.ep.File()]
	}
	oldEP := p.ep
	p.ep = NoSquare
	p.halfmove++
	if p.board[to] != NoPiece {
		p.remove(to)
		p.halfmove = 0
	}
	newEP := NoSquare
	switch pc.Type() {
	case Pawn:
		p.halfmove = 0
		switch {
		case to == oldEP:
			p.remove(to ^ 8) // the captured pawn stands beside the mover, on the from rank
		case promo != 0:
			p.remove(from)
			p.put(makePiece(us, promo), to)
			p.castling &= castleMask[from] & castleMask[to]
			p.finish(us, NoSquare)
			return
		case to^from == 16:
			newEP = (from + to) / 2
		}
	case King:
		if to == from+2 {
			p.movePiece(from+3, from+1)
		} else if from == to+2 {
			p.movePiece(from-4, from-1)
		}
	}
	p.movePiece(from, to)
	p.castling &= castleMask[from] & castleMask[to]
	p.finish(us, newEP)
}

// finish flips the side to move after a move by us and sets the en passant
// target candidate when a capture there is legal.
func (p *Position) finish(us Color, epCandidate Square) {
	p.hash ^= zobristCastling[p.castling] ^ zobristSide
	p.side = us ^ 1
	if us == Black {
		p.fullmove++
	}
	if epCandidate != NoSquare && p.epLegal(epCandidate) {
		p.ep = epCandidate
		p.hash ^= zobristEP[epCandidate.File()]
	}
}

// epLegal reports whether the side to move has a legal en passant capture
// onto target t (the square a pawn just skipped).
func (p *Position) epLegal(t Square) bool {
	us := p.side
	cands := pawnAttacks[us^1][t] & p.pieces(us, Pawn)
	if cands == 0 {
		return false
	}
	captured := t ^ 8
	ksq := p.kingSquare(us)
	for cands != 0 {
		from := cands.popFirst()
		occ := p.occupied()&^bb(from)&^bb(captured) | bb(t)
		if p.attackersTo(ksq, occ)&p.byColor[us^1]&^bb(captured) == 0 {
			return true
		}
	}
	return false
}
