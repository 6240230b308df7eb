package server

import (
	"net/http"
	"strings"
	"testing"
)

// TestNetEvalRefused: alphabeta's and expectimax's eval=net and the keys
// that load its network (path, model, precision, cache) open files, so a
// request may not give them, even naming a checkpoint inside the runs
// folder that the net kind may load.
func TestNetEvalRefused(t *testing.T) {
	s := newTestServer(t, nil)
	const ckpt = "c4/checkpoints/ckpt-000001.tbn"
	// The control: the checkpoint is one a net player may load.
	if rec := send(s, "POST", "/api/player", moveBody("connect4", "net:path="+ckpt+",sims=8"), nil); rec.Code != http.StatusOK {
		t.Fatalf("net:path=%s: status %d %s, want 200", ckpt, rec.Code, rec.Body.String())
	}
	for _, tc := range []struct{ game, player string }{
		{"connect4", "alphabeta:eval=net,path=" + ckpt},
		{"connect4", "alphabeta:depth=2,eval=net,model=backgammon"},
		{"connect4", "alphabeta:eval=net"},
		{"connect4", "alphabeta:path=/etc/passwd"},
		{"connect4", "alphabeta:precision=int8"},
		{"connect4", "alphabeta:cache=1000"},
		{"backgammon", "expectimax:eval=net,model=backgammon"},
		{"backgammon", "expectimax:depth=1,eval=net,path=" + ckpt},
		{"backgammon", "expectimax:eval=net"},
		{"backgammon", "expectimax:model=backgammon"},
		{"backgammon", "expectimax:eval=pubeval,cache=10"},
	} {
		for _, api := range []string{"/api/move", "/api/player"} {
			rec := send(s, "POST", api, moveBody(tc.game, tc.player), nil)
			if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "not offered over the web") {
				t.Errorf("%s %s: status %d %s, want 400 naming the refusal", api, tc.player, rec.Code, rec.Body.String())
			}
		}
	}
}
