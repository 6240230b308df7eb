package watch

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A resumed run's lines: wall_seconds restarts with each process (old
// lines), then run_seconds (new ones), and a final ladder repeats the last
// iteration. The plots run against the run's time, never backwards, and the
// header counts iterations, not lines.
func TestResumedRunPlotsAgainstRunTime(t *testing.T) {
	dir := t.TempDir()
	lines := []string{
		`{"iteration":1,"wall_seconds":60,"train":{"loss_total":3}}`,
		`{"iteration":2,"wall_seconds":120,"train":{"loss_total":2.9}}`,
		`{"iteration":3,"wall_seconds":30,"train":{"loss_total":2.8}}`, // a restart
		`{"iteration":4,"wall_seconds":20,"run_seconds":200,"train":{"loss_total":2.7}}`,
		`{"iteration":5,"wall_seconds":80,"run_seconds":260,"train":{"loss_total":2.6},"ladder":{"players":["best","random"],"elo":[10,0]}}`,
		`{"iteration":5,"final_ladder":true,"wall_seconds":90,"run_seconds":270,"ladder":{"players":["best","random"],"elo":[12,0]}}`,
	}
	if err := os.WriteFile(filepath.Join(dir, "metrics.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := serveRun(t, dir, nil)
	code, body, _ := get(t, s.Handler(), "GET", "/api/plots")
	if code != 200 {
		t.Fatalf("GET /api/plots: %d %s", code, body)
	}
	var resp struct {
		Iterations int     `json:"iterations"`
		RunSeconds float64 `json:"run_seconds"`
		Plots      []struct {
			Name  string `json:"name"`
			Lines []struct {
				X []float64 `json:"x"`
			} `json:"lines"`
		} `json:"plots"`
	}
	if err := json.Unmarshal([]byte(body), &resp); err != nil {
		t.Fatal(err)
	}
	if resp.Iterations != 5 || resp.RunSeconds != 270 {
		t.Errorf("iterations %d, run_seconds %v; want 5 and 270", resp.Iterations, resp.RunSeconds)
	}
	for _, p := range resp.Plots {
		switch p.Name {
		case "loss":
			if x := p.Lines[0].X; !slices.Equal(x, []float64{1, 2, 2.5, 200.0 / 60, 260.0 / 60}) {
				t.Errorf("loss plotted at minutes %v", x)
			}
		case "elo":
			if x := p.Lines[0].X; !slices.Equal(x, []float64{260.0 / 60, 270.0 / 60}) {
				t.Errorf("Elo plotted at minutes %v", x)
			}
		}
	}
}
