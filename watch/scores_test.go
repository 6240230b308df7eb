package watch

import (
	"slices"
	"strings"
	"testing"
)

// TestScorePlotLabels: the ladder's score plot says what its lines
// measure: shares of the games for a win/loss ladder, and of the points
// and of the games for a ladder scored in points (backgammon on money
// scoring), each line with its own values.
func TestScorePlotLabels(t *testing.T) {
	for _, tc := range []struct {
		ladder, ylabel string
		labels         []string
		ys             [][]float64
	}{
		{`"players":["best","random","pubeval"],"scores":{"random":0.75,"pubeval":0.5}`, "% of games",
			[]string{"pubeval (games)", "random (games)"}, [][]float64{{50}, {75}}},
		{`"players":["best","pubeval"],"scores":{"pubeval":0.25},"score_unit":"points","game_scores":{"pubeval":0.5}`, "% of points (and of games)",
			[]string{"pubeval (points)", "pubeval (games)"}, [][]float64{{25}, {50}}},
	} {
		recs, err := ParseMetrics(strings.NewReader(`{"iteration":1,"wall_seconds":60,"ladder":{` + tc.ladder + "}}\n"))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, p := range Plots(recs) {
			if p.Name != "scores" {
				continue
			}
			found = true
			var labels []string
			for i, l := range p.Lines {
				labels = append(labels, l.Label)
				if i < len(tc.ys) && !slices.Equal(l.Y, tc.ys[i]) {
					t.Errorf("ladder {%s}: line %s = %v, want %v", tc.ladder, l.Label, l.Y, tc.ys[i])
				}
			}
			if p.YLabel != tc.ylabel || !slices.Equal(labels, tc.labels) {
				t.Errorf("ladder {%s}: y label %q, lines %v; want %q, %v", tc.ladder, p.YLabel, labels, tc.ylabel, tc.labels)
			}
		}
		if !found {
			t.Errorf("ladder {%s}: no score plot", tc.ladder)
		}
	}
}
