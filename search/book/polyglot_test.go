package book

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tabula/games/chess"
	"tabula/internal/refdata/refdatatest"
)

// randomGames returns n games of uniformly random legal moves from a seeded
// generator, each at most maxPlies long, with random results: a PGN of our
// own whose openings repeat (the first plies have few choices) and whose
// later plies hold promotions, en passant and castling now and then.
func randomGames(n, maxPlies int, seed uint64) []chess.PGNGame {
	rng := rand.New(rand.NewPCG(seed, 1))
	results := []string{"1-0", "0-1", "1/2-1/2", "*"}
	var out []chess.PGNGame
	for i := range n {
		g := chess.PGNGame{Start: chess.StartPosition(), Result: results[rng.IntN(len(results))]}
		g.SetTag("Event", fmt.Sprintf("random game %d", i+1))
		p := g.Start
		for len(g.Moves) < maxPlies {
			var ml chess.MoveList
			p.LegalMoves(&ml)
			if ml.N == 0 {
				break
			}
			m := ml.Moves[rng.IntN(ml.N)]
			p.Make(m)
			g.Moves = append(g.Moves, m)
		}
		out = append(out, g)
	}
	return out
}

// crossCheckPGN is testdata/lines.pgn followed by 60 seeded random games.
func crossCheckPGN(t *testing.T) string {
	t.Helper()
	lines, err := os.ReadFile(filepath.Join("testdata", "lines.pgn"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.Write(lines)
	for _, g := range randomGames(60, 160, 7) {
		b.WriteString("\n")
		b.WriteString(g.String())
	}
	return b.String()
}

// TestMakeBookMatchesPolyglot builds books from the same PGN with Debian's
// polyglot make-book and with Build, under make-book's options, and wants
// the two files byte for byte equal. It then reads polyglot's book and
// checks that every entry is reached from the games' positions and decodes
// to a legal move there, and that Best and Pick choose only those moves.
func TestMakeBookMatchesPolyglot(t *testing.T) {
	prog := refdatatest.Program(t, "polyglot", "apt-get install polyglot")
	dir := t.TempDir()
	pgnPath := filepath.Join(dir, "games.pgn")
	text := crossCheckPGN(t)
	if err := os.WriteFile(pgnPath, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	games, err := chess.ParsePGN(text)
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []BuildConfig{{MaxPly: 1024, MinGame: 1}, {MaxPly: 12, MinGame: 3}, DefaultBuildConfig()} {
		t.Run(fmt.Sprintf("max-ply=%d,min-game=%d", cfg.MaxPly, cfg.MinGame), func(t *testing.T) {
			binPath := filepath.Join(dir, fmt.Sprintf("pg-%d-%d.bin", cfg.MaxPly, cfg.MinGame))
			cmd := exec.Command(prog, "make-book", "-pgn", pgnPath, "-bin", binPath,
				"-max-ply", fmt.Sprint(cfg.MaxPly), "-min-game", fmt.Sprint(cfg.MinGame))
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("polyglot make-book: %v\n%s", err, out)
			}
			theirs, err := os.ReadFile(binPath)
			if err != nil {
				t.Fatal(err)
			}
			entries, err := Build(games, cfg)
			if err != nil {
				t.Fatal(err)
			}
			ours := Marshal(entries)
			if len(theirs) == 0 {
				t.Fatal("polyglot wrote an empty book")
			}
			pb, err := Parse(theirs)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case bytes.Equal(ours, theirs):
				t.Logf("%d entries, byte-identical", pb.Len())
			case slices.Equal(canonical(entries), canonical(pb.Entries())):
				// The format leaves the order of a key's equal-weight moves
				// open; make-book's follows its C library's qsort.
				t.Logf("%d entries, the same but for the order of equal-weight moves", pb.Len())
			default:
				t.Fatalf("books differ: ours %d entries, polyglot's %d; first difference: %s",
					len(ours)/EntrySize, pb.Len(), firstDifference(canonical(entries), canonical(pb.Entries())))
			}
			if cfg.MinGame == 1 && len(pb.Lookup(pinnedKey(t))) == 0 {
				t.Error("polyglot's book lacks the position after the pinned double push, under the format's en passant rule")
			}
			checkReader(t, theirs, games, cfg.MaxPly)
		})
	}
}

// canonical returns entries sorted by key, weight from the highest, move.
func canonical(entries []Entry) []Entry {
	c := slices.Clone(entries)
	slices.SortFunc(c, func(a, b Entry) int {
		switch {
		case less(a, b):
			return -1
		case less(b, a):
			return 1
		}
		return int(a.Move) - int(b.Move)
	})
	return c
}

// pinnedKey returns KeyAfter's key at the end of pinnedLine.
func pinnedKey(t *testing.T) uint64 {
	moves, err := chess.Game{}.ParseActions(pinnedLine)
	if err != nil {
		t.Fatal(err)
	}
	pos := chess.StartPosition()
	var k uint64
	for _, a := range moves {
		pos, k = KeyAfter(&pos, chess.MoveOf(a))
	}
	return k
}

func firstDifference(a, b []Entry) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("entry %d: ours %+v, polyglot's %+v", i, a[i], b[i])
		}
	}
	return "one is a prefix of the other"
}

// checkReader reads a polyglot book and walks the games' positions up to
// maxPly: every entry must be reached, decode to a legal move of its
// position, and Best and Pick must choose among the position's entries.
func checkReader(t *testing.T, data []byte, games []chess.PGNGame, maxPly int) {
	t.Helper()
	b, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	reached := map[Entry]bool{}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, g := range games {
		pos := g.Start
		k := Key(&pos)
		for ply, m := range g.Moves {
			if ply >= maxPly {
				break
			}
			es := b.Lookup(k)
			if len(es) > 0 {
				var want []chess.Move
				for _, e := range es {
					reached[e] = true
					dm, ok := DecodeMove(&pos, e.Move)
					if !ok {
						t.Fatalf("%s: entry %+v is no legal move", pos.FEN(), e)
					}
					want = append(want, dm)
				}
				if got := b.Moves(&pos); len(got) != len(es) {
					t.Fatalf("%s: Moves gives %d moves, the key has %d entries", pos.FEN(), len(got), len(es))
				}
				if bm, ok := b.Best(&pos); !ok || bm != want[0] {
					t.Errorf("%s: Best = %v %v, want the first (highest weight) entry %v", pos.FEN(), bm, ok, want[0])
				}
				for range 4 {
					if pm, ok := b.Pick(&pos, rng); !ok || !slices.Contains(want, pm) {
						t.Fatalf("%s: Pick = %v %v, not a book move of %v", pos.FEN(), pm, ok, want)
					}
				}
			}
			pos, k = KeyAfter(&pos, m)
		}
	}
	if len(reached) != b.Len() {
		t.Errorf("%d of %d entries reached from the games' positions", len(reached), b.Len())
	}
}
