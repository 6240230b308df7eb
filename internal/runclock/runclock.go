// Package runclock places the lines of a training run's metrics.jsonl on
// the run's own clock: the seconds the trainer has run, summed over every
// process that worked on the run. Lines carry it as run_seconds; older lines
// carry only wall_seconds, which restarts at zero in each process, and their
// run time is rebuilt here from those restarts.
package runclock

import (
	"time"

	"tabula/internal/metrics"
)

// Line is what one metrics line says about time.
type Line struct {
	RunSeconds  *float64 // run_seconds; nil when the line has none
	WallSeconds float64  // wall_seconds: since the writing process started
	Time        string   // time: when the line was written (RFC 3339), "" if unknown
}

// LineOf is what metrics record r says about time.
func LineOf(r metrics.Record) Line {
	return Line{RunSeconds: (*float64)(r.RunSeconds), WallSeconds: float64(r.WallSeconds), Time: r.Time}
}

// restartSlack is how much more the time stamps (whole seconds) may advance
// between two lines of one process than wall_seconds does.
const restartSlack = 2.0

// Seconds returns the run time of each line. A line with run_seconds keeps
// it. Otherwise the line's process is taken to be the previous line's unless
// its wall_seconds went down, or went up by less than the time stamps did (a
// new process that ran longer before its first line than the previous one
// had): a new process starts at the previous line's run time. The result never goes down when the
// lines' run_seconds do not.
func Seconds(lines []Line) []float64 {
	out := make([]float64, len(lines))
	var base, last, prevWall float64 // base: run time when the current process started
	var prevTime time.Time
	for i, l := range lines {
		t, terr := time.Parse(time.RFC3339, l.Time)
		switch {
		case l.RunSeconds != nil:
			out[i] = *l.RunSeconds
			base = out[i] - l.WallSeconds
		case i == 0:
			out[i] = l.WallSeconds
		default:
			restarted := l.WallSeconds < prevWall ||
				terr == nil && !prevTime.IsZero() && t.Sub(prevTime).Seconds()-(l.WallSeconds-prevWall) > restartSlack
			if restarted {
				base = last
			}
			out[i] = base + l.WallSeconds
		}
		last, prevWall = out[i], l.WallSeconds
		prevTime = time.Time{}
		if terr == nil {
			prevTime = t
		}
	}
	return out
}
