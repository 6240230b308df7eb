package retro

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"tabula/internal/refdata/refdatatest"
)

// stockfishMate asks Stockfish for the mate score of a position (FEN): the
// moves to mate, negative when the side to move is mated, 0 when it reports
// no mate.
func stockfishMate(t *testing.T, sf *bufio.Scanner, send func(string), fen, goArgs string) int {
	t.Helper()
	send("position fen " + fen)
	send("go " + goArgs)
	mate := 0
	for sf.Scan() {
		line := sf.Text()
		if f := strings.Fields(line); len(f) > 0 && f[0] == "info" {
			for k := 0; k+2 < len(f); k++ {
				if f[k] == "score" {
					mate = 0
					if f[k+1] == "mate" {
						mate, _ = strconv.Atoi(f[k+2])
					}
				}
			}
		}
		if strings.HasPrefix(line, "bestmove") {
			return mate
		}
	}
	t.Fatalf("stockfish stopped: %v", sf.Err())
	return 0
}

// abs returns |x|.
func abs(x int) int { return max(x, -x) }

// TestStockfishMates checks a seeded sample of KQK and KRK positions that
// are not mate yet against Stockfish's mate scores: a win in d plies is
// Stockfish's "mate (d+1)/2", a loss in d plies its "mate -d/2", a draw no
// mate score. Stockfish searches each to depth 12, where it often finds a
// mate but not the shortest, and in long KRK wins none: a mate it reports
// must have the table's sign and not be shorter than the table's, and in a
// drawn position it must report none. Results of at most 4 moves are
// searched with "go mate N" (N the table's mate), and Stockfish's mate must
// equal the table's.
func TestStockfishMates(t *testing.T) {
	const samples = 6
	path := refdatatest.Program(t, "stockfish", "apt-get install stockfish")
	cmd := exec.Command(path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		cmd.Wait()
	}()
	sc := bufio.NewScanner(stdout)
	send := func(s string) { fmt.Fprintln(stdin, s) }
	send("uci")
	send("setoption name Threads value 1")
	send("setoption name Hash value 16")
	send("isready")
	for sc.Scan() && sc.Text() != "readyok" {
	}
	for _, sig := range []string{"KQK", "KRK"} {
		tab := table(t, sig)
		rng := rand.New(rand.NewPCG(7, uint64(len(sig))))
		var sq [maxPieces]int8
		exact := 0
		for n := 0; n < samples; {
			i := rng.IntN(len(tab.vals))
			v := tab.vals[i]
			// The second half of the sample are short results (at most
			// 4 moves).
			short := n >= samples/2
			if v == Illegal || v == Mated || short && (v == Draw || v.Plies() > 7) {
				continue
			}
			n++
			side, wk, bk, _ := tab.ix.decode(i, sq[:1])
			fen := fenOf(tab, side, wk, bk, sq[:1])
			want := 0
			switch v.Outcome() {
			case 1:
				want = (v.Plies() + 1) / 2
			case -1:
				want = -v.Plies() / 2
			}
			send("ucinewgame")
			goArgs := "depth 12"
			if short {
				goArgs = fmt.Sprintf("mate %d nodes 2000000", abs(want))
			}
			got := stockfishMate(t, sc, send, fen, goArgs)
			// Stockfish's mate is one it found, never shorter than the
			// optimum the table holds.
			switch {
			case got == want:
				exact++
			case short:
				t.Errorf("%s %s: table %v (mate %d), stockfish mate %d", sig, fen, v, want, got)
			case got == 0 && want != 0:
				// No mate found within the depth: nothing to compare.
			case want == 0 || got*want < 0 || abs(got) < abs(want):
				t.Errorf("%s %s: table %v (mate %d), stockfish mate %d", sig, fen, v, want, got)
			}
		}
		t.Logf("%s: %d of %d positions with Stockfish's mate score equal to the table's", sig, exact, samples)
	}
}
