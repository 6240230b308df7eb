//go:build js && wasm

// Command wasm is the engine of play's static web export, compiled to
// WebAssembly (GOOS=js GOARCH=wasm) by "play export -format web". It runs
// the network with the pure-Go kernels and PUCT search inside the browser, so
// the exported page needs no server.
//
// It sets globalThis.tabulaEngine, an object with four functions that take
// and return JSON text (errors come back as {"error": message}):
//
//	load(weights Uint8Array)       reads a checkpoint: {"game", "step", "params"}
//	state(request)                 the position after the request's moves
//	player(request)                {"player"} when the request's game and player
//	                               are valid, before a game starts
//	move(request)                  the network's move there (web.Reply)
//
// A request is web.Request: {"game", "player", "moves"}; the player is
// "net" or "net:sims=N" (1 <= N <= 10000).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"
	"syscall/js"

	"tabula/games"
	_ "tabula/games/all"
	"tabula/mcts"
	"tabula/nn"
	"tabula/web"
)

// maxSims caps a request's simulations.
const maxSims = 10000

// engine is the loaded network.
type engine struct {
	game  games.Game
	eval  *nn.NetEvaluator
	model *nn.Model
}

var loaded *engine

func main() {
	obj := js.Global().Get("Object").New()
	obj.Set("load", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 1 || args[0].Type() != js.TypeObject {
			return errorJSON(errors.New("load wants the checkpoint's bytes (a Uint8Array)"))
		}
		buf := make([]byte, args[0].Get("length").Int())
		js.CopyBytesToGo(buf, args[0])
		return reply(load(buf))
	}))
	obj.Set("state", js.FuncOf(func(_ js.Value, args []js.Value) any {
		req, err := request(args)
		if err != nil {
			return errorJSON(err)
		}
		g, l, s, err := req.Replay()
		if err != nil {
			return errorJSON(err)
		}
		if req.Resigned == nil {
			req.Moves = web.Roll(s, req.Moves, rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())))
		}
		pos := web.Describe(g, l, s, req.Moves)
		if err := req.Resign(&pos); err != nil {
			return errorJSON(err)
		}
		return reply(pos, nil)
	}))
	obj.Set("player", js.FuncOf(func(_ js.Value, args []js.Value) any {
		req, err := request(args)
		if err != nil {
			return errorJSON(err)
		}
		if _, _, _, err := req.Replay(); err != nil {
			return errorJSON(err)
		}
		if _, err := sims(req.Player); err != nil {
			return errorJSON(err)
		}
		return reply(map[string]string{"player": strings.TrimSpace(req.Player)}, nil)
	}))
	obj.Set("move", js.FuncOf(func(_ js.Value, args []js.Value) any {
		req, err := request(args)
		if err != nil {
			return errorJSON(err)
		}
		return reply(move(req))
	}))
	js.Global().Set("tabulaEngine", obj)
	select {} // keep the functions alive
}

type loadInfo struct {
	Game   string `json:"game"`
	Step   int64  `json:"step"`
	Params int    `json:"params"`
}

func load(b []byte) (loadInfo, error) {
	ck, err := nn.ReadCheckpoint(bytes.NewReader(b))
	if err != nil {
		return loadInfo{}, fmt.Errorf("checkpoint: %w", err)
	}
	g, _, err := web.NewGame(ck.Game)
	if err != nil {
		return loadInfo{}, fmt.Errorf("checkpoint: %w", err)
	}
	if err := ck.CheckGame(g); err != nil {
		return loadInfo{}, fmt.Errorf("checkpoint: %w", err)
	}
	m, err := nn.NewModel(ck.Weights)
	if err != nil {
		return loadInfo{}, fmt.Errorf("checkpoint: %w", err)
	}
	ev, err := nn.NewNetEvaluator(m, g, 16, 1<<14)
	if err != nil {
		return loadInfo{}, err
	}
	loaded = &engine{game: g, eval: ev, model: m}
	return loadInfo{Game: g.Name(), Step: ck.Step, Params: ck.Weights.NumParams()}, nil
}

func request(args []js.Value) (web.Request, error) {
	var req web.Request
	if len(args) != 1 || args[0].Type() != js.TypeString {
		return req, errors.New("want one argument: the request as JSON text")
	}
	dec := json.NewDecoder(strings.NewReader(args[0].String()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, fmt.Errorf("request: %w", err)
	}
	return req, nil
}

// sims reads the player spec "net" or "net:sims=N".
func sims(player string) (int, error) {
	p := strings.TrimSpace(player)
	if p == "net" || p == "" {
		return mcts.DefaultConfig().Simulations, nil
	}
	v, ok := strings.CutPrefix(p, "net:sims=")
	n, err := strconv.Atoi(v)
	if !ok || err != nil || n < 1 || n > maxSims {
		return 0, fmt.Errorf("player %q: this page plays its own network only: net or net:sims=N with N in 1..%d", player, maxSims)
	}
	return n, nil
}

// netPlayer shows the search's distribution and value, as the net
// players do.
type netPlayer struct{ p *mcts.Player }

func (n netPlayer) ChooseAction(ctx context.Context, s games.State) (int, error) {
	return n.p.ChooseAction(ctx, s)
}
func (n netPlayer) LastPolicy() []float32 { return n.p.LastPolicy() }
func (n netPlayer) Value() float64        { return float64(n.p.LastValue()) }

func move(req web.Request) (web.Reply, error) {
	if loaded == nil {
		return web.Reply{}, errors.New("no network loaded")
	}
	g, l, s, err := req.Replay()
	if err != nil {
		return web.Reply{}, err
	}
	if g.Name() != loaded.game.Name() {
		return web.Reply{}, fmt.Errorf("this page's network plays %s, not %s", loaded.game.Name(), g.Name())
	}
	n, err := sims(req.Player)
	if err != nil {
		return web.Reply{}, err
	}
	cfg := mcts.DefaultConfig()
	cfg.Simulations = n
	h := fnv.New64a()
	fmt.Fprint(h, req.Moves)
	p, err := mcts.NewPlayer(cfg, loaded.eval, rand.New(rand.NewPCG(1, h.Sum64())))
	if err != nil {
		return web.Reply{}, err
	}
	dice := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	moves := web.Roll(s, req.Moves, dice)
	rep, err := web.Think(context.Background(), netPlayer{p}, g, l, s, moves)
	if err != nil {
		return rep, err
	}
	return rep, web.RollAfter(g, l, &rep, dice)
}

// reply encodes v as JSON text, or err as {"error": message}.
func reply(v any, err error) any {
	if err != nil {
		return errorJSON(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return errorJSON(err)
	}
	return string(b)
}

func errorJSON(err error) any {
	b, _ := json.Marshal(map[string]string{"error": err.Error()})
	return string(b)
}
