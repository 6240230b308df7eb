package server

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tabula/games"
	"tabula/nn"
	"tabula/web"
)

// benchServer serves a runs folder with one Connect Four network of the
// training size (nn.DefaultConfig, random weights).
func benchServer(b *testing.B) *Server {
	dir := b.TempDir()
	g, _ := games.New("connect4")
	p, h, w := g.ObservationShape()
	wts, err := nn.NewWeights(nn.DefaultConfig(), nn.Shape{Planes: p, Height: h, Width: w, Actions: g.NumActions()}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	if err := nn.SaveCheckpoint(filepath.Join(dir, "c4.tbn"), &nn.Checkpoint{Game: g.Name(), Weights: wts}); err != nil {
		b.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Runs = dir
	cfg.MoveTime = time.Minute
	s, err := New(cfg, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}

// openings returns n request bodies for player, each a different random
// 8-ply Connect Four opening, so that the evaluator's cache does not answer
// for the network.
func openings(b *testing.B, n int, player string) []string {
	g, _ := games.New("connect4")
	rng := rand.New(rand.NewPCG(7, 7))
	out := make([]string, n)
	for i := range out {
		s := g.NewInitialState()
		moves := []int{}
		for len(moves) < 8 && !s.IsTerminal() {
			legal := s.LegalActions(nil)
			a := legal[rng.IntN(len(legal))]
			s.ApplyAction(a)
			moves = append(moves, a)
		}
		if s.IsTerminal() {
			moves = moves[:len(moves)-1]
		}
		body, _ := json.Marshal(web.Request{Game: "connect4", Player: player, Moves: moves})
		out[i] = string(body)
	}
	return out
}

// benchMove times POST /api/move, the whole request: decoding, replay,
// one search, the reply.
func benchMove(b *testing.B, player string) {
	s := benchServer(b)
	bodies := openings(b, b.N+1, player)
	// Load the engine (the checkpoint) before timing, as a running server has.
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, jsonRequest("/api/move", bodies[b.N]))
	if rec.Code != http.StatusOK {
		b.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, jsonRequest("/api/move", bodies[i]))
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/move")
}

func BenchmarkMoveNet200(b *testing.B)    { benchMove(b, "net:path=c4.tbn,sims=200") }
func BenchmarkMoveNet50(b *testing.B)     { benchMove(b, "net:path=c4.tbn,sims=50") }
func BenchmarkMoveAlphaBeta(b *testing.B) { benchMove(b, "alphabeta:depth=6") }

// BenchmarkState times POST /api/state (replay and description, no engine).
func BenchmarkState(b *testing.B) {
	s := benchServer(b)
	body := `{"game":"connect4","moves":[3,3,3,3,2,4,2,4,1,5]}`
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, jsonRequest("/api/state", body))
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
}

// jsonRequest is a POST of a JSON body from the server's own page.
func jsonRequest(url, body string) *http.Request {
	req := httptest.NewRequest("POST", url, strings.NewReader(body))
	req.Host = "localhost:8080"
	req.Header.Set("Content-Type", "application/json")
	return req
}
