package players

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"tabula/uci"
)

// fakeUCI answers uci and isready; at go it dies (MODE die), never
// answers (hang), names a move that is not legal (illegal), answers
// nonsense (garbage) or no move (none); in MODE clock it names the
// illegal a1a1 when go carries a clock of at most 2s with 100ms increments
// (wtime = btime, winc = binc, no movetime) and answers nonsense otherwise,
// so that the forfeit's reason shows what go carried. MODE engine is a correct engine:
// ours, playing uniformly random moves, so that a game sent wrongly shows up
// as an illegal move.
func fakeUCI(mode string) {
	if mode == "engine" {
		rng := rand.New(rand.NewPCG(7, 7))
		e, err := uci.NewEngine(uci.DefaultEngineConfig(), func(uci.Options) (uci.Searcher, error) {
			return randomSearcher{rng}, nil
		})
		if err == nil {
			err = e.Run(context.Background(), os.Stdin, os.Stdout)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		return
	}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "uci":
			fmt.Println("id name fake\noption name Skill Level type spin default 20 min 0 max 20\nuciok")
		case "isready":
			fmt.Println("readyok")
		case "go":
			fmt.Fprintln(os.Stderr, "fake engine: thinking in mode", mode)
			switch mode {
			case "die":
				fmt.Fprintln(os.Stderr, "fake engine: segmentation fault (not really)")
				os.Exit(3)
			case "hang":
				time.Sleep(time.Hour)
			case "illegal":
				fmt.Println("info depth 1 score cp 20\nbestmove a1a1")
			case "garbage":
				fmt.Println("bestmove zz99")
			case "none":
				fmt.Println("bestmove (none)")
			case "clock":
				l, err := uci.ParseGo(f[1:])
				if err == nil && l.WTime > 0 && l.WTime <= 2*time.Second && l.BTime == l.WTime &&
					l.WInc == 100*time.Millisecond && l.BInc == l.WInc && l.MoveTime == 0 {
					fmt.Println("bestmove a1a1")
				} else {
					fmt.Println("bestmove zz99")
				}
			}
		case "quit":
			return
		}
	}
}

type randomSearcher struct{ rng *rand.Rand }

func (r randomSearcher) Search(_ context.Context, pos uci.Position, _ uci.Limits) (uci.Result, error) {
	legal := pos.State.LegalActions(nil)
	return uci.Result{Move: legal[r.rng.IntN(len(legal))]}, nil
}
