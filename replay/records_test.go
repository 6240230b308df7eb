package replay

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"tabula/games"
	_ "tabula/games/connect4"
)

// TestRecordsRoundTrip writes records and reads them back; a damaged or
// cut file is refused.
func TestRecordsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	recs := []GameRecord{
		{Kind: "selfplay", Game: "connect4", Players: [2]string{"gen-1", "gen-1"}, Generation: 1, Seed: 7, Worker: 1,
			Actions: []int{3, 3, 4, 2}, Moves: "4453", Values: []float32{0.5, -0.25, 0, 1}, Returns: [2]float64{0, 0}},
		{Kind: "gating", Game: "connect4", Players: [2]string{"best", "candidate"}, Actions: []int{0}, Moves: "1",
			Values: []float32{0}, Forfeit: "candidate: crashed"},
	}
	path := filepath.Join(dir, "a.rec")
	if err := WriteRecords(path, recs); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, recs) {
		t.Fatalf("read %+v\nwrote %+v", back, recs)
	}
	g, _ := games.New("connect4")
	if _, err := back[0].Replay(g); err != nil {
		t.Error(err)
	}
	bad := back[0]
	bad.Actions = []int{0, 0, 0, 0, 0, 0, 0}
	bad.Values = make([]float32, 7)
	if _, err := bad.Replay(g); err == nil || !strings.Contains(err.Error(), "action 6") {
		t.Errorf("illegal record: %v", err)
	}
	if files, err := RecordFiles(dir); err != nil || len(files) != 1 || files[0] != path {
		t.Errorf("RecordFiles: %v %v", files, err)
	}
	data, _ := os.ReadFile(path)
	for name, d := range map[string][]byte{
		"corrupt": append([]byte("X"), data[1:]...),
		"cut":     data[:len(data)/2],
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, d, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadRecords(p); err == nil {
			t.Errorf("%s file read", name)
		}
	}
}

// TestRecordsVisits: root visits round-trip; a file written before records
// had them (testdata/records-v1.rec, written by that version's
// WriteRecords) still reads and replays, with no visits; a record whose
// visits do not match its moves is refused by Replay.
func TestRecordsVisits(t *testing.T) {
	g, _ := games.New("connect4")
	old, err := ReadRecords(filepath.Join("testdata", "records-v1.rec"))
	if err != nil {
		t.Fatal(err)
	}
	if len(old) != 1 || old[0].Visits != nil || len(old[0].Values) != 4 || old[0].Values[2] != 0.125 {
		t.Fatalf("old records: %+v", old)
	}
	if _, err := old[0].Replay(g); err != nil {
		t.Fatal(err)
	}

	rec := old[0]
	rec.Visits = []int{17, 5, 0, 17}
	path := filepath.Join(t.TempDir(), "v.rec")
	if err := WriteRecords(path, []GameRecord{rec, old[0]}); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back[0].Visits, rec.Visits) || back[1].Visits != nil {
		t.Errorf("visits read back %v and %v, wrote %v and none", back[0].Visits, back[1].Visits, rec.Visits)
	}
	data, _ := os.ReadFile(path)
	if n := strings.Count(string(data), `"visits"`); n != 1 {
		t.Errorf("%d records with a visits key, want 1 (none where there are no visits):\n%s", n, data)
	}
	for _, v := range [][]int{{17, 5, 0}, {17, 5, -1, 17}} {
		bad := rec
		bad.Visits = v
		if _, err := bad.Replay(g); err == nil || !strings.Contains(err.Error(), "visit") {
			t.Errorf("visits %v for 4 moves: %v, want an error about visits", v, err)
		}
	}
}
