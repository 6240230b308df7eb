package bench

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tabula/search/c4solver"
)

// The shipped held-out Connect Four set (data/connect4/heldout) and its
// verdicts match their recorded checksums, hold 2,000 distinct positions of
// 8-32 stones, and the verdicts are of exactly those positions.
func TestHeldOutSet(t *testing.T) {
	dir := filepath.Join("..", "data", "connect4")
	f, err := os.Open(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS: bad line %q", sc.Text())
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got := sha256.Sum256(data)
		if hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: SHA-256 %x, SHA256SUMS says %s (edited or damaged)", name, got, sum)
		}
		n++
	}
	if n != 2 {
		t.Fatalf("SHA256SUMS lists %d files, want 2", n)
	}
	positions, err := c4solver.ReadSetFile(filepath.Join(dir, "heldout"))
	if err != nil {
		t.Fatal(err)
	}
	if len(positions) != 2000 {
		t.Fatalf("%d positions, want 2000", len(positions))
	}
	seen := map[string]bool{}
	for _, p := range positions {
		if len(p.Moves) < 8 || len(p.Moves) > 32 || seen[p.Moves] || p.State.IsTerminal() {
			t.Errorf("line %d: %q: want a live position of 8-32 stones, once", p.Line, p.Moves)
		}
		seen[p.Moves] = true
	}
	data, err := os.ReadFile(filepath.Join(dir, "verdicts", "heldout.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v Verdicts
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if !v.matches(positions) {
		t.Fatal("verdicts/heldout.json is not of the positions of heldout, in order")
	}
	open := 0
	for _, o := range v.Outcomes {
		if AdmitsMistake(o) {
			open++
		}
	}
	if open != 891 {
		t.Errorf("%d positions admit a mistake, README says 891", open)
	}
}
