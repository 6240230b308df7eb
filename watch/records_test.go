package watch

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tabula/games"
	_ "tabula/games/poker"
	"tabula/replay"
)

// randomRecords plays n random games of g to their end and returns them as
// self-play records with a value drawn at random for every move, and root
// visits drawn at random in every other game (the others are as records
// written before records had visits).
func randomRecords(t *testing.T, g games.Game, n int, seed uint64) []replay.GameRecord {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	nt := g.(games.Notation)
	var out []replay.GameRecord
	for k := range n {
		s := g.NewInitialState()
		r := replay.GameRecord{Kind: "selfplay", Game: g.Name(), Players: [2]string{"gen-2", "gen-2"}, Generation: 2, Seed: seed}
		var legal []int
		for !s.IsTerminal() {
			legal = s.LegalActions(legal)
			a := legal[rng.IntN(len(legal))]
			r.Actions = append(r.Actions, a)
			r.Values = append(r.Values, float32(rng.IntN(2001)-1000)/1000)
			if k%2 == 1 {
				r.Visits = append(r.Visits, rng.IntN(800))
			}
			s.ApplyAction(a)
		}
		r.Moves = nt.FormatActions(r.Actions)
		ret := s.Returns()
		r.Returns = [2]float64{ret[0], ret[1]}
		out = append(out, r)
	}
	return out
}

// writeRecordFiles writes recs as records files of per games each under
// dir/records, named so that their names sort in the opposite order to
// their modification times (the newest file has the smallest name). It
// returns the files, oldest first.
func writeRecordFiles(t *testing.T, dir string, recs []replay.GameRecord, per int) []string {
	t.Helper()
	rdir := filepath.Join(dir, "records")
	if err := os.MkdirAll(rdir, 0o755); err != nil {
		t.Fatal(err)
	}
	var files []string
	base := time.Now().Add(-time.Hour)
	for i := 0; i*per < len(recs); i++ {
		path := filepath.Join(rdir, "selfplay-trainer-g000002-"+string(rune('z'-i))+"-0000.rec")
		if err := replay.WriteRecords(path, recs[i*per:min(len(recs), (i+1)*per)]); err != nil {
			t.Fatal(err)
		}
		mt := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(path, mt, mt); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	return files
}

type gamesReply struct {
	Games    []Game `json:"games"`
	Source   string `json:"source"`
	Skipped  int    `json:"skipped"`
	Unlinked int    `json:"unlinked"`
	Gating   []Game `json:"gating"`
}

func getGames(t *testing.T, s *Server, url string) gamesReply {
	t.Helper()
	code, body, _ := get(t, s.Handler(), "GET", url)
	if code != 200 {
		t.Fatalf("GET %s: %d %s", url, code, body)
	}
	var r gamesReply
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// checkRecordGame checks that gm shows record r move for move: the moves,
// a frame per position as the rules give it, the recorded value (and root
// visits, where recorded) before each move, the result.
func checkRecordGame(t *testing.T, g games.Game, gm Game, r replay.GameRecord) {
	t.Helper()
	nt := g.(games.Notation)
	if gm.Kind != "self-play" || gm.Spec != r.Game || gm.Players != r.Players {
		t.Errorf("%s #%d: kind %q, game %q, players %v", gm.Chunk, gm.Index, gm.Kind, gm.Spec, gm.Players)
	}
	if len(gm.Moves) != len(r.Actions) || len(gm.Frames) != len(r.Actions)+1 {
		t.Fatalf("%s #%d: %d moves, %d frames for %d recorded moves", gm.Chunk, gm.Index, len(gm.Moves), len(gm.Frames), len(r.Actions))
	}
	s := g.NewInitialState()
	for i, a := range r.Actions {
		f := gm.Frames[i]
		if f.Value == nil || *f.Value != r.Values[i] {
			t.Fatalf("%s #%d: value before move %d is %v, recorded %v", gm.Chunk, gm.Index, i+1, f.Value, r.Values[i])
		}
		if r.Visits == nil && f.Visits != nil || r.Visits != nil && (f.Visits == nil || *f.Visits != r.Visits[i]) {
			t.Fatalf("%s #%d: root visits before move %d are %v, recorded %v", gm.Chunk, gm.Index, i+1, f.Visits, r.Visits)
		}
		if f.Board != boardOf(g, s) || f.ToMove != s.CurrentPlayer() {
			t.Fatalf("%s #%d: position before move %d is %q, want %q", gm.Chunk, gm.Index, i+1, f.Board, boardOf(g, s))
		}
		if gm.Moves[i] != nt.FormatAction(a) || gm.Frames[i+1].Move != gm.Moves[i] {
			t.Fatalf("%s #%d: move %d is %q, recorded %q", gm.Chunk, gm.Index, i+1, gm.Moves[i], nt.FormatAction(a))
		}
		s.ApplyAction(a)
	}
	if last := gm.Frames[len(gm.Frames)-1]; last.Board != boardOf(g, s) || last.Value != nil || last.Visits != nil {
		t.Errorf("%s #%d: last position %q (value %v), want %q", gm.Chunk, gm.Index, last.Board, last.Value, boardOf(g, s))
	}
	if want := result(0, float32(r.Returns[0])); gm.Result != want {
		t.Errorf("%s #%d: result %q, want %q", gm.Chunk, gm.Index, gm.Result, want)
	}
}

// TestGamesFromRecords: a run with game records (and replay chunks) serves
// its newest self-play games from the records, newest first, exactly as
// recorded, and says so; without records, the same run's games are rebuilt
// from the chunks.
func TestGamesFromRecords(t *testing.T) {
	dir, _ := fakeRun(t)
	g, _ := games.New("connect4")
	recs := randomRecords(t, g, 7, 5)
	files := writeRecordFiles(t, dir, recs, 3) // 3 + 3 + 1 games, the last file newest
	s := serveRun(t, dir, nil)
	r := getGames(t, s, "/api/games?n=5")
	if r.Source != "records" || r.Skipped != 0 || r.Unlinked != 0 || len(r.Games) != 5 {
		t.Fatalf("source %q, skipped %d, unlinked %d, %d games; want records, 0, 0, 5", r.Source, r.Skipped, r.Unlinked, len(r.Games))
	}
	// Newest first: game 6 (the newest file's only game), then 5, 4, 3, 2.
	for k, gm := range r.Games {
		want := 6 - k
		if gm.Chunk != filepath.Base(files[want/3]) || gm.Index != want%3 {
			t.Errorf("game %d is %s #%d, want %s #%d", k, gm.Chunk, gm.Index, filepath.Base(files[want/3]), want%3)
		}
		checkRecordGame(t, g, gm, recs[want])
	}
	if len(r.Gating) != 2 {
		t.Errorf("%d gating games, want 2", len(r.Gating))
	}

	// The same run without its records: rebuilt from the chunk, as before.
	if err := os.RemoveAll(filepath.Join(dir, "records")); err != nil {
		t.Fatal(err)
	}
	r = getGames(t, s, "/api/games?n=2")
	rebuilt, _, err := RecentGames(filepath.Join(dir, "replay"), 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Source != "rebuilt" || len(r.Games) != 2 || !slices.EqualFunc(r.Games, rebuilt[:2], func(a, b Game) bool {
		return slices.Equal(a.Moves, b.Moves) && a.Chunk == b.Chunk && a.Index == b.Index
	}) {
		t.Errorf("without records: source %q, %d games, want the %d rebuilt", r.Source, len(r.Games), len(rebuilt))
	}
	for _, gm := range r.Games {
		for _, f := range gm.Frames {
			if f.Value != nil {
				t.Fatalf("rebuilt game %s #%d has a recorded value", gm.Chunk, gm.Index)
			}
		}
	}
}

// TestGamesFromOldRecords: a records file written before records had root
// visits (replay/testdata/records-v1.rec) is served with its values and no
// visits.
func TestGamesFromOldRecords(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "replay", "testdata", "records-v1.rec"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "records"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "records", "selfplay-trainer-g000002-0000000000000007-0000.rec"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	recs, err := replay.ReadRecords(filepath.Join(dir, "records", "selfplay-trainer-g000002-0000000000000007-0000.rec"))
	if err != nil {
		t.Fatal(err)
	}
	gs, skipped, err := RecordGames(filepath.Join(dir, "records"), 8, nil, nil)
	if err != nil || skipped != 0 || len(gs) != 1 || len(recs) != 1 || recs[0].Visits != nil {
		t.Fatalf("%d games, %d skipped, %v (records %+v)", len(gs), skipped, err, recs)
	}
	g, _ := games.New("connect4")
	checkRecordGame(t, g, gs[0], recs[0])
}

// TestRecordWithBadVisitsSkipped: a game whose root visits do not give one
// count a move is skipped, not served with visits on the wrong moves.
func TestRecordWithBadVisitsSkipped(t *testing.T) {
	dir := t.TempDir()
	g, _ := games.New("connect4")
	recs := randomRecords(t, g, 2, 13)
	recs[1].Visits = recs[1].Visits[1:]
	writeRecordFiles(t, dir, recs, 2)
	gs, skipped, err := RecordGames(filepath.Join(dir, "records"), 8, nil, nil)
	if err != nil || skipped != 1 || len(gs) != 1 {
		t.Fatalf("%d games, %d skipped, %v; want 1 game, 1 skipped", len(gs), skipped, err)
	}
	checkRecordGame(t, g, gs[0], recs[0])
}

// TestGamesWithoutSelfPlayRecords: records of gating and ladder games alone
// (or an empty records folder) leave the self-play games rebuilt.
func TestGamesWithoutSelfPlayRecords(t *testing.T) {
	dir, played := fakeRun(t)
	g, _ := games.New("connect4")
	recs := randomRecords(t, g, 2, 8)
	for i := range recs {
		recs[i].Kind = "gating"
	}
	if err := os.MkdirAll(filepath.Join(dir, "records"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := replay.WriteRecords(filepath.Join(dir, "records", "gating-trainer-g000001-0000000000000007-0000.rec"), recs); err != nil {
		t.Fatal(err)
	}
	s := serveRun(t, dir, nil)
	r := getGames(t, s, "/api/games")
	if r.Source != "rebuilt" || len(r.Games) != len(played) {
		t.Errorf("source %q, %d games; want rebuilt, %d", r.Source, len(r.Games), len(played))
	}
}

// TestDamagedRecordsSkipped: a records file cut short, one whose checksum
// fails, a link to a file outside the run, and a game whose moves are not
// legal are each skipped with a warning; the other games are served.
func TestDamagedRecordsSkipped(t *testing.T) {
	dir := t.TempDir()
	g, _ := games.New("connect4")
	recs := randomRecords(t, g, 8, 11)
	// The oldest file's second game plays a move into a full column.
	recs[1].Actions = append([]int{0, 0, 0, 0, 0, 0, 0}, recs[1].Actions...)
	recs[1].Values = append(make([]float32, 7), recs[1].Values...)
	recs[1].Visits = append(make([]int, 7), recs[1].Visits...)
	files := writeRecordFiles(t, dir, recs, 2) // four files of two games
	// Cut the second file short; flip a byte inside the third.
	data, err := os.ReadFile(files[1])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(files[1], data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	data, err = os.ReadFile(files[2])
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte(`"actions":[`)) + len(`"actions":[`)
	data[i] = '0' + (data[i]-'0'+1)%7 // another column, still valid JSON
	if err := os.WriteFile(files[2], data, 0o644); err != nil {
		t.Fatal(err)
	}
	// A link to an intact records file outside the run folder, newest of all
	// (the link's own time counts).
	outside := filepath.Join(t.TempDir(), "x.rec")
	if err := replay.WriteRecords(outside, recs[:1]); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "records", "selfplay-link-0000.rec")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	for _, f := range files[1:3] {
		mt := time.Now().Add(-time.Hour).Add(time.Duration(slices.Index(files, f)) * time.Minute)
		if err := os.Chtimes(f, mt, mt); err != nil {
			t.Fatal(err)
		}
	}

	var logged bytes.Buffer
	s := serveRun(t, dir, slog.New(slog.NewTextHandler(&logged, nil)))
	r := getGames(t, s, "/api/games")
	// Served: the newest file's two games, then the oldest file's first.
	if r.Source != "records" || r.Skipped != 4 || len(r.Games) != 3 {
		t.Fatalf("source %q, skipped %d, %d games; want records, 4 skipped (2 files, a link, a game), 3 games", r.Source, r.Skipped, len(r.Games))
	}
	for k, want := range []int{7, 6, 0} {
		checkRecordGame(t, g, r.Games[k], recs[want])
	}
	log := logged.String()
	for _, want := range []string{
		filepath.Base(files[1]) + ": no checksum line", filepath.Base(files[2]) + ": checksum",
		"selfplay-link-0000.rec: not a regular file", "move 7: illegal move",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("no warning %q in the log:\n%s", want, log)
		}
	}
	if strings.Contains(log, "level=ERROR") {
		t.Errorf("errors logged:\n%s", log)
	}
}

// TestRecordGamesReadsNewestFilesOnly: with n games wanted, only the newest
// files holding them are read: older files, damaged ones included, are not
// opened.
func TestRecordGamesReadsNewestFilesOnly(t *testing.T) {
	dir := t.TempDir()
	g, _ := games.New("connect4")
	recs := randomRecords(t, g, 20, 13)
	files := writeRecordFiles(t, dir, recs, 2) // ten files
	if err := os.WriteFile(files[0], []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(files[0], old, old)
	var cache RecordCache
	gs, skipped, err := RecordGames(filepath.Join(dir, "records"), 3, &cache, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 3 || skipped != 0 || len(cache.m) != 2 {
		t.Fatalf("%d games, %d skipped, %d files read; want 3, 0, 2", len(gs), skipped, len(cache.m))
	}
	for _, f := range files[8:] {
		if _, ok := cache.m[f]; !ok {
			t.Errorf("%s (among the two newest) not read", f)
		}
	}
	for k, want := range []int{19, 18, 17} {
		checkRecordGame(t, g, gs[k], recs[want])
	}
	// All of them: the garbage is reached and skipped.
	gs, skipped, err = RecordGames(filepath.Join(dir, "records"), 64, &cache, nil)
	if err != nil || len(gs) != 18 || skipped != 1 || len(cache.m) != 10 {
		t.Errorf("all games: %d, %d skipped, %d files read, err %v; want 18, 1, 10", len(gs), skipped, len(cache.m), err)
	}
	// The cache keeps only the files the last call read.
	gs, _, err = RecordGames(filepath.Join(dir, "records"), 1, &cache, nil)
	if err != nil || len(gs) != 1 || len(cache.m) != 1 {
		t.Errorf("one game: %d games, %d files cached, err %v; want 1, 1", len(gs), len(cache.m), err)
	}
	checkRecordGame(t, g, gs[0], recs[19])
}

// TestRecordGamesConcurrentRequests: requests served at once share the
// records cache safely (run with -race) and get the same games.
func TestRecordGamesConcurrentRequests(t *testing.T) {
	dir := t.TempDir()
	g, _ := games.New("connect4")
	writeRecordFiles(t, dir, randomRecords(t, g, 6, 17), 2)
	s := serveRun(t, dir, nil)
	h := s.Handler()
	bodies := make([]string, 8)
	var wg sync.WaitGroup
	for i := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := httptest.NewRequest("GET", []string{"/api/games?n=3", "/api/games?n=5"}[i%2], nil)
			req.Host = "localhost:8081"
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			bodies[i] = rec.Body.String()
		}()
	}
	wg.Wait()
	for i, b := range bodies {
		if b != bodies[i%2] || !strings.Contains(b, `"source":"records"`) {
			t.Errorf("request %d: %.120s, want as request %d", i, b, i%2)
		}
	}
}

// TestRecordGamesOfCardGames: records of a game of one observation plane
// with chance (Kuhn poker) are served move for move, not a failed request.
func TestRecordGamesOfCardGames(t *testing.T) {
	dir := t.TempDir()
	g, err := games.New("kuhn")
	if err != nil {
		t.Fatal(err)
	}
	// Deal jack, queen; check, bet, call.
	r := replay.GameRecord{Kind: "selfplay", Game: "kuhn", Players: [2]string{"gen-1", "gen-1"},
		Actions: []int{0, 1, 1, 2, 1}, Values: []float32{0, 0, -0.3, 0.2, -0.5}}
	s, err := games.Replay(g, r.Actions)
	if err != nil || !s.IsTerminal() {
		t.Fatalf("the hand: %v, terminal %v", err, s != nil && s.IsTerminal())
	}
	r.Returns = s.Returns()
	writeRecordFiles(t, dir, []replay.GameRecord{r}, 1)
	gs, skipped, err := RecordGames(filepath.Join(dir, "records"), 8, nil, nil)
	if err != nil || skipped != 0 || len(gs) != 1 {
		t.Fatalf("%d games, %d skipped, err %v; want 1, 0", len(gs), skipped, err)
	}
	if len(gs[0].Moves) != 5 || len(gs[0].Frames) != 6 || *gs[0].Frames[3].Value != 0.2 || gs[0].Result != "second player wins" {
		t.Errorf("kuhn game: %+v", gs[0])
	}
}
