package pipeline

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"tabula/bus"
)

// workerMetrics describes, per self-play process (this one is "trainer"),
// the games it delivered since the last metrics line and their rates, and
// whether it is alive (a heartbeat within the last aliveWithin), for
// metrics.jsonl and the progress line.
func (t *Trainer) workerMetrics(ctx context.Context) (map[string]any, string) {
	counts := t.in.takeCounts()
	now := time.Now()
	secs := math.Max(now.Sub(t.lastMetrics).Seconds(), 1e-9)
	t.lastMetrics = now
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	hbs, err := t.bus.Workers(hctx)
	cancel()
	if err != nil {
		t.log.Warn("bus: worker heartbeats unreadable", "err", err)
	}
	beats := map[string]bus.Heartbeat{}
	for _, h := range hbs {
		beats[h.Worker] = h
	}
	if t.folderBeats == nil {
		t.folderBeats = map[string]bus.Heartbeat{}
	}
	fbs, fcounts := folderWorkers(t.dir.root, t.folderBeats, t.log)
	for _, h := range fbs {
		beats[h.Worker] = h
		counts[h.Worker] = fcounts[h.Worker]
	}
	names := map[string]bool{}
	for w := range counts {
		names[w] = true
	}
	for w := range beats {
		names[w] = true
	}
	out := map[string]any{}
	var line []string
	alive := 0
	for _, w := range workerNames(names) {
		c := counts[w]
		rec := map[string]any{"games": c.Games, "positions": c.Positions, "stale": c.Stale, "duplicates": c.Duplicates,
			"games_per_s": float64(c.Games) / secs, "positions_per_s": float64(c.Positions) / secs}
		h, ok := beats[w]
		isAlive := ok && !h.Gone && now.Sub(h.Time) < aliveWithin
		rec["alive"] = isAlive
		if h.Gone {
			rec["exited"] = true
		}
		if ok {
			rec["heartbeat_age_s"] = now.Sub(h.Time).Seconds()
			rec["generation"] = h.Generation
			rec["total_games"] = h.Games
		}
		if isAlive {
			alive++
		}
		out[w] = rec
		state := ""
		if !isAlive {
			state = " gone"
		}
		line = append(line, fmt.Sprintf("%s %.2f games/s %.0f pos/s%s", w, float64(c.Games)/secs, float64(c.Positions)/secs, state))
	}
	return out, fmt.Sprintf("%s (%d alive)", strings.Join(line, ", "), alive)
}

// ladderRecord is a metrics line's ladder result.
type ladderRecord struct {
	Iteration int    `json:"iteration"`
	Best      string `json:"best"`
	Ladder    *struct {
		Players []string           `json:"players"`
		Scores  map[string]float64 `json:"scores"`
		Elo     []*float64         `json:"elo"`
		Low     []*float64         `json:"elo_low"`
		High    []*float64         `json:"elo_high"`
	} `json:"ladder"`
}

// readLastLadder returns the last metrics line in path with a ladder
// result; its Ladder is nil if there is none.
func readLastLadder(path string) ladderRecord {
	var last ladderRecord
	f, err := os.Open(path)
	if err != nil {
		return last
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var rec ladderRecord
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Ladder != nil {
			last = rec
		}
	}
	return last
}
