package watch

import (
	"slices"
	"strings"
	"testing"
)

// TestLossPlotAuxiliaryLines: the loss plot has a line for each auxiliary
// head's loss that the metrics carry, and none for a head they lack.
func TestLossPlotAuxiliaryLines(t *testing.T) {
	for _, tc := range []struct {
		train string
		want  []string
	}{
		{`"loss_value":0.9,"loss_policy":1.9,"loss_l2":0.05,"loss_total":2.85`, []string{"total", "value", "policy", "L2"}},
		{`"loss_value":0.9,"loss_policy":1.9,"loss_l2":0.05,"loss_total":3.5,"loss_ownership":0.6,"loss_score":0.2`,
			[]string{"total", "value", "policy", "L2", "ownership", "score"}},
		{`"loss_value":0.9,"loss_policy":1.9,"loss_l2":0.05,"loss_total":3.1,"loss_opp_policy":1.4`,
			[]string{"total", "value", "policy", "L2", "opponent policy"}},
	} {
		recs, err := ParseMetrics(strings.NewReader(`{"iteration":1,"wall_seconds":60,"train":{` + tc.train + "}}\n"))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range Plots(recs) {
			if p.Name == "loss" {
				for _, l := range p.Lines {
					got = append(got, l.Label)
					if len(l.Y) != 1 || !(l.Y[0] > 0) {
						t.Errorf("%s: line %s = %v", tc.train, l.Label, l.Y)
					}
				}
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("metrics {%s}: loss lines %v, want %v", tc.train, got, tc.want)
		}
	}
}
