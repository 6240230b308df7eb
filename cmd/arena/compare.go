package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"tabula/elo"
)

func defineCompare(fs *flag.FlagSet) func(context.Context, io.Reader, io.Writer, io.Writer) error {
	a := fs.String("a", "", "the first player's verdicts, written by \"arena bench -out\" (required)")
	b := fs.String("b", "", "the second player's verdicts on the same positions (required)")
	return func(_ context.Context, _ io.Reader, stdout, _ io.Writer) error {
		if *a == "" || *b == "" {
			return fmt.Errorf("-a FILE and -b FILE are both required")
		}
		ra, err := readVerdicts(*a)
		if err != nil {
			return err
		}
		rb, err := readVerdicts(*b)
		if err != nil {
			return err
		}
		return comparePaired(stdout, *a, *b, ra, rb)
	}
}

// verdictKey names a benchmark position: its set (Othello; empty for
// Connect Four) and its moves.
type verdictKey struct{ set, position string }

// verdicts are one player's verdicts on a benchmark, in file order.
type verdicts struct {
	keys    []verdictKey
	mistake map[verdictKey]bool
}

// readVerdicts reads the JSON lines of "arena bench -out" (Connect Four's or
// Othello's records: each names its position and whether the move was a
// mistake). A line that is not such a record, or a position listed twice,
// is an error naming the line.
func readVerdicts(path string) (*verdicts, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	v := &verdicts{mistake: map[verdictKey]bool{}}
	err = eachJSONLine(f, path, func(line int, data []byte) (bool, error) {
		var r struct {
			Set      string  `json:"set"`
			Position *string `json:"position"`
			Mistake  *bool   `json:"mistake"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return false, fmt.Errorf("%s:%d: not a bench record: %w", path, line, err)
		}
		if r.Position == nil || r.Mistake == nil {
			return false, fmt.Errorf("%s:%d: not a bench record (\"arena bench -out\"): no \"position\" or no \"mistake\"", path, line)
		}
		k := verdictKey{r.Set, *r.Position}
		if _, dup := v.mistake[k]; dup {
			return false, fmt.Errorf("%s:%d: position %q%s is listed twice", path, line, k.position, inSet(k.set))
		}
		v.keys = append(v.keys, k)
		v.mistake[k] = *r.Mistake
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	if len(v.keys) == 0 {
		return nil, fmt.Errorf("%s: no bench records", path)
	}
	return v, nil
}

func inSet(set string) string {
	if set == "" {
		return ""
	}
	return " of set " + set
}

// pairedCount is the paired comparison of two players on common positions.
type pairedCount struct{ n, a, b, onlyA, onlyB int }

func (c *pairedCount) add(ma, mb bool) {
	c.n++
	switch {
	case ma && mb:
		c.a++
		c.b++
	case ma:
		c.a++
		c.onlyA++
	case mb:
		c.b++
		c.onlyB++
	}
}

// comparePaired prints, for each set and for all positions together, both
// players' mistakes on the positions they have in common, how many only
// one of them got wrong, and the exact McNemar test of those: whether one
// makes fewer mistakes than the other beyond chance on these positions.
func comparePaired(w io.Writer, nameA, nameB string, a, b *verdicts) error {
	var sets []string
	per := map[string]*pairedCount{}
	var all pairedCount
	onlyInA := 0
	for _, k := range a.keys {
		mb, ok := b.mistake[k]
		if !ok {
			onlyInA++
			continue
		}
		c := per[k.set]
		if c == nil {
			c = &pairedCount{}
			per[k.set] = c
			sets = append(sets, k.set)
		}
		c.add(a.mistake[k], mb)
		all.add(a.mistake[k], mb)
	}
	if all.n == 0 {
		return fmt.Errorf("%s and %s have no position in common", nameA, nameB)
	}
	fmt.Fprintf(w, "a: %s\nb: %s\n", nameA, nameB)
	if onlyInA > 0 || len(b.keys) > all.n {
		fmt.Fprintf(w, "left out: %d positions only in a, %d only in b\n", onlyInA, len(b.keys)-all.n)
	}
	line := func(label string, c *pairedCount) {
		fmt.Fprintf(w, "%s: %d positions, mistakes a %d (%.1f%%) b %d (%.1f%%), only a %d, only b %d, exact McNemar p = %.3g\n",
			label, c.n, c.a, 100*float64(c.a)/float64(c.n), c.b, 100*float64(c.b)/float64(c.n), c.onlyA, c.onlyB,
			elo.SignTest(c.onlyA, c.onlyB))
	}
	if len(sets) > 1 || sets[0] != "" {
		for _, s := range sets {
			label := s
			if s == "" {
				label = "(no set)"
			}
			line(label, per[s])
		}
	}
	line("all", &all)
	p := elo.SignTest(all.onlyA, all.onlyB)
	switch {
	case p >= 0.05:
		fmt.Fprintf(w, "no difference at the 5%% level (two-sided): %d against %d discordant positions\n", all.onlyA, all.onlyB)
	case all.onlyA < all.onlyB:
		fmt.Fprintf(w, "a makes fewer mistakes than b (two-sided p = %.3g)\n", p)
	default:
		fmt.Fprintf(w, "b makes fewer mistakes than a (two-sided p = %.3g)\n", p)
	}
	return nil
}
