// Command avgnet writes the element-wise mean of several checkpoints of one
// network shape (nn.AverageWeights) as a new checkpoint: the weights of a
// run's last iterations averaged (SWA over the run's end), which the net
// player loads like any other (net:path=FILE).
//
//	go run ./scripts/avgnet -out avg.tbn CKPT...
//	go run ./scripts/avgnet -out avg.tbn -run runs/connect4 -last 10
//
// -last K takes the K checkpoints of RUN/checkpoints with the highest
// iteration numbers (ckpt-NNNNNN.tbn) that are on disk: a run keeps its
// last keep_checkpoints (10 by default) and every promoted one, so a K above
// that reaches back over promoted networks only. The output records the
// sources in its metadata ("averaged_from") and carries no optimiser state.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"tabula/nn"
)

func main() {
	out := flag.String("out", "", "write the averaged checkpoint to `file` (required)")
	run := flag.String("run", "", "a run directory: average its last -last checkpoints")
	last := flag.Int("last", 0, "with -run: how many of the latest iteration checkpoints")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: avgnet -out FILE (CKPT... | -run DIR -last K)")
		flag.PrintDefaults()
	}
	flag.Parse()
	paths, err := sources(*run, *last, flag.Args())
	if err == nil && *out == "" {
		err = fmt.Errorf("-out is required")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "avgnet:", err)
		flag.Usage()
		os.Exit(2)
	}
	if err := average(*out, paths); err != nil {
		fmt.Fprintln(os.Stderr, "avgnet:", err)
		os.Exit(1)
	}
	fmt.Printf("%s: the mean of %d checkpoints, %s .. %s\n", *out, len(paths), filepath.Base(paths[0]), filepath.Base(paths[len(paths)-1]))
}

// sources returns the checkpoints to average: the files named, or the last
// k iteration checkpoints of run.
func sources(run string, k int, args []string) ([]string, error) {
	switch {
	case run != "" && len(args) > 0:
		return nil, fmt.Errorf("give checkpoints or -run, not both")
	case run == "" && k != 0:
		return nil, fmt.Errorf("-last needs -run")
	case run == "":
		if len(args) == 0 {
			return nil, fmt.Errorf("no checkpoints named")
		}
		return args, nil
	case k < 1:
		return nil, fmt.Errorf("-run needs -last K with K >= 1, got %d", k)
	}
	all, err := filepath.Glob(filepath.Join(run, "checkpoints", "ckpt-*.tbn"))
	if err != nil {
		return nil, err
	}
	sort.Strings(all) // zero-padded iteration numbers sort in order
	if len(all) < k {
		return nil, fmt.Errorf("%s has %d iteration checkpoints, fewer than -last %d", run, len(all), k)
	}
	return all[len(all)-k:], nil
}

func average(out string, paths []string) error {
	ws := make([]*nn.Weights, len(paths))
	var first *nn.Checkpoint
	var step int64
	for i, p := range paths {
		c, err := nn.LoadCheckpoint(p)
		if err != nil {
			return err
		}
		if first == nil {
			first = c
		} else if c.Game != first.Game {
			return fmt.Errorf("%s is for game %q, %s for %q", p, c.Game, paths[0], first.Game)
		}
		ws[i] = c.Weights
		step = max(step, c.Step)
	}
	avg, err := nn.AverageWeights(ws)
	if err != nil {
		return fmt.Errorf("%w (checkpoints %s)", err, strings.Join(paths, ", "))
	}
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = filepath.Base(p)
	}
	return nn.SaveCheckpoint(out, &nn.Checkpoint{
		Game:    first.Game,
		Step:    step,
		Weights: avg,
		Meta:    map[string]string{"averaged_from": strings.Join(names, ",")},
	})
}
