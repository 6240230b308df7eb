package runclock

import (
	"slices"
	"testing"
)

func f(v float64) *float64 { return &v }

func TestSeconds(t *testing.T) {
	for _, c := range []struct {
		name  string
		lines []Line
		want  []float64
	}{
		{"one process", []Line{{WallSeconds: 10}, {WallSeconds: 25}, {WallSeconds: 40}}, []float64{10, 25, 40}},
		{"restarts: wall_seconds goes down", []Line{{WallSeconds: 10}, {WallSeconds: 25}, {WallSeconds: 5}, {WallSeconds: 12}, {WallSeconds: 3}},
			[]float64{10, 25, 30, 37, 40}},
		{"a restart seen only in the time stamps", []Line{
			{WallSeconds: 10, Time: "2025-01-01T00:00:10Z"},
			{WallSeconds: 12, Time: "2025-01-01T00:00:12Z"},
			{WallSeconds: 50, Time: "2025-01-01T01:00:50Z"}, // a new process, 50 s in
			{WallSeconds: 60, Time: "2025-01-01T01:01:00Z"},
		}, []float64{10, 12, 62, 72}},
		{"run_seconds wins, and old lines after it go on from it", []Line{
			{WallSeconds: 10}, {WallSeconds: 20, RunSeconds: f(120)}, {WallSeconds: 30},
		}, []float64{10, 120, 130}},
		{"new lines after old ones", []Line{{WallSeconds: 10}, {WallSeconds: 4}, {WallSeconds: 3, RunSeconds: f(17)}},
			[]float64{10, 14, 17}},
	} {
		if got := Seconds(c.lines); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
