package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestMatchReportsScoreUnits checks that a poker match is reported in chips
// a hand over mirrored pairs, not in hands won (the equilibrium player wins
// fewer hands than random play but more chips), and a whist match in
// tricks a deal.
func TestMatchReportsScoreUnits(t *testing.T) {
	stdout, _, err := runCmd(t, "", "match", "-game", "kuhn", "-players", "cfr:iters=2000 random", "-games", "600", "-seed", "3", "-quiet")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`\[0\] cfr:iters=2000 vs \[1\] random: 300 pairs, ([-+0-9.]+) chips a game \[([-+0-9.]+), ([-+0-9.]+)\]`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no score in chips:\n%s", stdout)
	}
	lo, _ := strconv.ParseFloat(m[2], 64)
	if lo <= 0 {
		t.Errorf("cfr against random: interval %s..%s chips, want above 0:\n%s", m[2], m[3], stdout)
	}
	if strings.Contains(stdout, "Elo") {
		t.Errorf("poker reported with Elo from hands won:\n%s", stdout)
	}
	stdout, _, err = runCmd(t, "", "match", "-game", "whist:hand=4,ranks=4", "-players", "cardrules random", "-games", "40", "-quiet")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`\[0\] cardrules vs \[1\] random: 20 pairs, [-+0-9.]+ tricks a game`).MatchString(stdout) {
		t.Errorf("no score in tricks:\n%s", stdout)
	}
}
