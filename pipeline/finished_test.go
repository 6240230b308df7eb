package pipeline

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

// TestFinishedRunSaysHowToTrainFurther checks that starting a finished run
// again says there is nothing to resume, and words the way to train further
// as a command, with iterations as the total to reach.
func TestFinishedRunSaysHowToTrainFurther(t *testing.T) {
	cfg := smoke(t, t.TempDir(), "iterations=3")
	var logs bytes.Buffer
	tr, err := New(cfg, Options{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	tr.iter = 3
	if err := tr.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"run already finished: all its iterations are done, nothing to resume",
		"run the same train command with -set iterations=6 (the total to reach: 3 more), or with -set iterations=0 -set duration=1h (an hour more)",
	} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, logs.String())
		}
	}
	if sum := tr.Summary(); !strings.Contains(sum, "to train further: run the same train command with -set iterations=6 (the total to reach: 3 more)") {
		t.Errorf("the summary lacks how to train further:\n%s", sum)
	}
}

// TestSummaryOfARunWithoutIterations: a run bounded by its duration alone is
// trained further by starting it again, which the summary says.
func TestSummaryOfARunWithoutIterations(t *testing.T) {
	cfg := smoke(t, t.TempDir(), "iterations=0", "duration=10m")
	tr, err := New(cfg, Options{Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if sum := tr.Summary(); !strings.Contains(sum, "to train further: run the same train command again: it resumes here, and each start gets the whole duration (10m0s) again") {
		t.Errorf("the summary lacks how to train further:\n%s", sum)
	}
}
