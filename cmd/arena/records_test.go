package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tabula/games"
	"tabula/games/backgammon"
	"tabula/games/connect4"
	"tabula/match"
)

// matchRecords plays a match with -out and the extra flags and returns
// the JSON records.
func matchRecords(t *testing.T, out string, args ...string) []match.GameRecord {
	t.Helper()
	if _, _, err := runCmd(t, "", append([]string{"match", "-out", out, "-quiet"}, args...)...); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []match.GameRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		var r match.GameRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	return recs
}

// TestMatchPons writes a Connect Four match as Pons lines and reads them
// back: the moves and winners of the JSON records.
func TestMatchPons(t *testing.T) {
	dir := t.TempDir()
	pons := filepath.Join(dir, "games.txt")
	recs := matchRecords(t, filepath.Join(dir, "games.jsonl"), "-game", "connect4", "-players", "random random", "-games", "6", "-pons", pons)
	f, err := os.Open(pons)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	back, err := connect4.ReadPons(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(recs) || len(recs) != 6 {
		t.Fatalf("%d Pons lines, %d games", len(back), len(recs))
	}
	for i, r := range recs {
		want := map[int]string{0: "1-0", 1: "0-1", -1: "1/2-1/2"}[r.Winner]
		if got := (connect4.Game{}).FormatActions(back[i].Actions); got != r.Moves || back[i].Result != want {
			t.Errorf("game %d: Pons %s %s, JSON %s winner %d", i, got, back[i].Result, r.Moves, r.Winner)
		}
	}
	_, _, err = runCmd(t, "", "match", "-game", "tictactoe", "-players", "random random", "-games", "1", "-pons", pons, "-quiet")
	if err == nil || !strings.Contains(err.Error(), "no Pons records") {
		t.Errorf("tictactoe -pons: error %v", err)
	}
}

// TestMatchMat writes a backgammon match as .mat files and reads them
// back: the moves, players and winners of the JSON records.
func TestMatchMat(t *testing.T) {
	dir := t.TempDir()
	matDir := filepath.Join(dir, "mat")
	recs := matchRecords(t, filepath.Join(dir, "games.jsonl"), "-game", "backgammon:scoring=money", "-players", "random random", "-games", "2", "-mat", matDir)
	g, _ := games.New("backgammon:scoring=money")
	if len(recs) != 2 {
		t.Fatalf("%d games", len(recs))
	}
	for _, r := range recs {
		f, err := os.Open(filepath.Join(matDir, "game-0000"+string(rune('0'+r.Index))+".mat"))
		if err != nil {
			t.Fatal(err)
		}
		m, err := backgammon.ReadMat(f, g.(*backgammon.Game))
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		mg := m.Games[0]
		want, _ := g.(games.Notation).ParseActions(r.Moves)
		if m.Length != 0 || len(m.Games) != 1 || !slices.Equal(mg.Actions, want) || mg.Winner != r.Winner || mg.Points != r.Points || mg.Players != r.Players {
			t.Errorf("game %d: .mat length %d, %d games, winner %d (%d points), players %v; JSON winner %d (%d points), players %v, moves equal %v",
				r.Index, m.Length, len(m.Games), mg.Winner, mg.Points, mg.Players, r.Winner, r.Points, r.Players, slices.Equal(mg.Actions, want))
		}
	}
	_, _, err := runCmd(t, "", "match", "-game", "connect4", "-players", "random random", "-games", "1", "-mat", matDir, "-quiet")
	if err == nil || !strings.Contains(err.Error(), "no .mat records") {
		t.Errorf("connect4 -mat: error %v", err)
	}
}
