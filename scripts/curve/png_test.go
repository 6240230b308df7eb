package main

import (
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWritePNGs(t *testing.T) {
	dir := t.TempDir()
	metrics := filepath.Join(dir, "metrics.jsonl")
	lines := []string{
		`{"iteration":1,"wall_seconds":60,"train":{"total_steps":100,"loss_value":0.9,"loss_policy":1.9,"loss_l2":0.05,"loss_total":2.85,"policy_entropy":1.8},"selfplay":{"positions_per_s":16.5}}`,
		`{"iteration":2,"wall_seconds":180,"train":{"total_steps":200,"loss_value":0.7,"loss_policy":1.7,"loss_l2":0.06,"loss_total":2.46,"policy_entropy":1.6},"selfplay":{"positions_per_s":18},"ladder":{"players":["best","mcts:rollouts=1000"],"elo":[120,0],"elo_low":[60,null],"elo_high":[180,null]},"bench":{"Test_L3_R1":0.12,"Test_L2_R1":0.3}}`,
		`{"iteration":3,"wall_seconds":300,"train":{"total_steps":300,"loss_value":0.6,"loss_policy":1.6,"loss_l2":0.06,"loss_total":2.26,"policy_entropy":1.5},"selfplay":{"positions_per_s":17},"ladder":{"players":["best","mcts:rollouts=1000"],"elo":[200,0],"elo_low":[150,null],"elo_high":[260,null]},"bench":{"Test_L3_R1":0.08,"Test_L2_R1":0.25}}`,
	}
	if err := os.WriteFile(metrics, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "png")
	files, err := writePNGs(metrics, out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	if got := strings.Join(names, " "); got != "elo.png loss.png entropy.png mistakes.png selfplay.png" {
		t.Fatalf("files %s", got)
	}
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(r)
		r.Close()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if b := img.Bounds(); b.Dx() < 800 || b.Dy() < 450 {
			t.Errorf("%s: %v, want about 945x531", f, b)
		}
		if n := countColour(img, palette[0].R, palette[0].G, palette[0].B); n < 50 {
			t.Errorf("%s: %d pixels of the first line's colour: nothing drawn?", f, n)
		}
	}

	if _, err := writePNGs(filepath.Join(dir, "none.jsonl"), out); err == nil {
		t.Error("missing metrics: no error")
	}
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, []byte(`{"iteration":1}`+"\n"), 0o644)
	if _, err := writePNGs(empty, out); err == nil || !strings.Contains(err.Error(), "no iteration") {
		t.Errorf("metrics without figures: err = %v", err)
	}
}

// countColour counts the pixels of exactly colour (r, g, b).
func countColour(img image.Image, r, g, b uint8) int {
	n := 0
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if uint8(cr>>8) == r && uint8(cg>>8) == g && uint8(cb>>8) == b {
				n++
			}
		}
	}
	return n
}
