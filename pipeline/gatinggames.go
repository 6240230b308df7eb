package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"tabula/internal/atomicfile"
	"tabula/match"
)

// gatingDir holds one file of gating games per iteration,
// iter-NNNNNN.jsonl: one match.GameRecord a line, players named "candidate"
// and "best" (the checkpoints are in the iteration's metrics line). The watch
// page replays them.
const gatingDir = "gating"

// writeGatingGames stores the gating games of iteration n.
func (d *runDir) writeGatingGames(n int, recs []match.GameRecord) error {
	if len(recs) == 0 {
		return nil
	}
	dir := d.path(gatingDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("gating games: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("gating games: %w", err)
		}
	}
	if err := atomicfile.Write(filepath.Join(dir, fmt.Sprintf("iter-%06d.jsonl", n)), buf.Bytes()); err != nil {
		return fmt.Errorf("gating games: %w", err)
	}
	return nil
}
