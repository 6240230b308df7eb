package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"tabula/games"
	"tabula/games/chess"
	"tabula/internal/atomicfile"
	"tabula/uci"
)

// engineLabels labels positions with an outside UCI engine's score instead
// of the game's result: each position's target is sigmoid(Scale * cp), the
// engine's score for the side to move after a search to Depth, with a mate
// found counted as a certain win or loss. A stronger engine's judgement of
// a position is a less noisy target than the result of one game played from
// it by weaker players (the records' games), which is what the fit to
// results learns from.
type engineLabels struct {
	// Program and Args start the engine (e.g. "stockfish").
	Program string
	Args    []string
	// Depth is the search depth of each label ("go depth N").
	Depth int
	// Parallel is how many engine processes label at once.
	Parallel int
	// Scale turns the engine's centipawns into a score in [0, 1].
	Scale float64
	// Cache, if not empty, is a file of labels kept between runs: read
	// when it exists (it must be of the same engine and depth), and
	// rewritten with every label it lacked.
	Cache string
	// Progress, if not nil, receives a line now and then while labelling.
	Progress io.Writer
}

// fenOf returns the FEN of a chess state; ok=false for other games, whose
// positions no UCI engine reads.
func fenOf(s games.State) (string, bool) {
	cs, ok := s.(*chess.State)
	if !ok {
		return "", false
	}
	p := cs.Position()
	return p.FEN(), true
}

// target turns an engine's score into a score in [0, 1] for the side to
// move.
func (e engineLabels) target(sc uci.Score) float64 {
	switch {
	case sc.Mate > 0:
		return 1
	case sc.Mate < 0:
		return 0
	}
	return 1 / (1 + math.Exp(-e.Scale*float64(sc.CP)))
}

// header is the cache file's first line: which engine (its program's base
// name and arguments) and depth its labels come from.
func (e engineLabels) header() string {
	return fmt.Sprintf("# texel labels: engine %s depth %d", strings.Join(append([]string{filepath.Base(e.Program)}, e.Args...), " "), e.Depth)
}

// label returns the engine's score of every distinct FEN of fens, from the
// cache where it has them.
func (e engineLabels) label(ctx context.Context, fens []string) (map[string]uci.Score, error) {
	if e.Depth < 1 {
		return nil, fmt.Errorf("-label-depth %d: want >= 1", e.Depth)
	}
	if e.Parallel < 1 {
		return nil, fmt.Errorf("-parallel %d: want >= 1", e.Parallel)
	}
	have := map[string]uci.Score{}
	if e.Cache != "" {
		var err error
		if have, err = readLabels(e.Cache, e.header()); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		if have == nil {
			have = map[string]uci.Score{}
		}
	}
	var todo []string
	seen := map[string]bool{}
	for _, f := range fens {
		if _, ok := have[f]; !ok && !seen[f] {
			seen[f] = true
			todo = append(todo, f)
		}
	}
	if len(todo) == 0 {
		return have, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan string)
	type answer struct {
		fen string
		sc  uci.Score
		err error
	}
	answers := make(chan answer)
	var wg sync.WaitGroup
	for w := 0; w < e.Parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := e.start(ctx)
			if err != nil {
				answers <- answer{err: err}
				return
			}
			defer c.Close()
			for f := range jobs {
				sc, err := e.score(ctx, c, f)
				select {
				case answers <- answer{fen: f, sc: sc, err: err}:
				case <-ctx.Done():
					return
				}
				if err != nil {
					return
				}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, f := range todo {
			select {
			case jobs <- f:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(answers) }()
	start := time.Now()
	var firstErr error
	done := 0
	for a := range answers {
		if a.err != nil {
			if firstErr == nil {
				firstErr = a.err
				cancel()
			}
			continue
		}
		have[a.fen] = a.sc
		done++
		if e.Progress != nil && done%5000 == 0 {
			fmt.Fprintf(e.Progress, "labelled %d of %d positions (%v)\n", done, len(todo), time.Since(start).Round(time.Second))
		}
	}
	if firstErr == nil && done < len(todo) {
		firstErr = fmt.Errorf("labelled %d of %d positions", done, len(todo))
	}
	if e.Cache != "" && done > 0 {
		// Keep what was labelled even when labelling failed part way.
		if err := writeLabels(e.Cache, e.header(), have); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return have, nil
}

// start starts one engine and readies it.
func (e engineLabels) start(ctx context.Context) (*uci.Client, error) {
	c, err := uci.Start(uci.ClientConfig{Path: e.Program, Args: e.Args})
	if err != nil {
		return nil, fmt.Errorf("label engine %s: %w", e.Program, err)
	}
	if _, _, err := c.Handshake(ctx, 30*time.Second); err != nil {
		c.Kill()
		return nil, fmt.Errorf("label engine %s: uci: %w", e.Program, err)
	}
	if err := c.IsReady(ctx, 30*time.Second); err != nil {
		c.Kill()
		return nil, fmt.Errorf("label engine %s: %w", e.Program, err)
	}
	return c, nil
}

// score searches one position; the engine starts each one afresh
// (ucinewgame), so that a label does not depend on the positions searched
// before it.
func (e engineLabels) score(ctx context.Context, c *uci.Client, fen string) (uci.Score, error) {
	if err := c.Send("ucinewgame"); err != nil {
		return uci.Score{}, err
	}
	_, info, err := c.Go(ctx, time.Minute, "fen "+fen, uci.Limits{Depth: e.Depth})
	if err != nil {
		return uci.Score{}, fmt.Errorf("label engine on %q: %w", fen, err)
	}
	if !info.Score.Known {
		return uci.Score{}, fmt.Errorf("label engine on %q: no score in its info lines", fen)
	}
	return info.Score, nil
}

// writeLabels writes the labels as "FEN<TAB>cp N" or "FEN<TAB>mate N" lines
// after the header, closed by a "# sha256 HEX" line over everything before
// it.
func writeLabels(path, header string, labels map[string]uci.Score) error {
	var b bytes.Buffer
	b.WriteString(header + "\n")
	for f, sc := range labels {
		if sc.Mate != 0 {
			fmt.Fprintf(&b, "%s\tmate %d\n", f, sc.Mate)
		} else {
			fmt.Fprintf(&b, "%s\tcp %d\n", f, sc.CP)
		}
	}
	sum := sha256.Sum256(b.Bytes())
	fmt.Fprintf(&b, "# sha256 %s\n", hex.EncodeToString(sum[:]))
	return atomicfile.Write(path, b.Bytes())
}

// readLabels reads a file writeLabels wrote; it must carry header and a
// matching checksum.
func readLabels(path, header string) (map[string]uci.Score, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	body, sumLine, ok := cutLastLine(data)
	if !ok || !strings.HasPrefix(sumLine, "# sha256 ") {
		return nil, fmt.Errorf("%s: no closing checksum line (a truncated file?)", path)
	}
	sum := sha256.Sum256(body)
	if strings.TrimPrefix(sumLine, "# sha256 ") != hex.EncodeToString(sum[:]) {
		return nil, fmt.Errorf("%s: checksum mismatch: the file is damaged", path)
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	if !sc.Scan() || sc.Text() != header {
		return nil, fmt.Errorf("%s: labels of another engine or depth (%q), want %q", path, sc.Text(), header)
	}
	labels := map[string]uci.Score{}
	line := 1
	for sc.Scan() {
		line++
		fen, val, ok := strings.Cut(sc.Text(), "\t")
		kind, n, ok2 := strings.Cut(val, " ")
		v, err := strconv.Atoi(n)
		if !ok || !ok2 || err != nil || (kind != "cp" && kind != "mate") {
			return nil, fmt.Errorf("%s line %d: %q: want FEN, a tab, and \"cp N\" or \"mate N\"", path, line, sc.Text())
		}
		if kind == "cp" {
			labels[fen] = uci.Score{Known: true, CP: v}
		} else {
			labels[fen] = uci.Score{Known: true, Mate: v}
		}
	}
	return labels, sc.Err()
}

// cutLastLine splits data before its last newline-terminated line.
func cutLastLine(data []byte) (body []byte, last string, ok bool) {
	if len(data) == 0 || data[len(data)-1] != '\n' {
		return nil, "", false
	}
	i := bytes.LastIndexByte(data[:len(data)-1], '\n')
	return data[:i+1], string(data[i+1 : len(data)-1]), true
}
