package server

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"tabula/games"
	"tabula/games/poker"
	"tabula/players"
)

// paramRule is what a request from the web may give for one parameter of a
// player kind.
type paramRule struct {
	// max bounds an int or float value (0: arena's own range is enough, as
	// for a time or node limit, which the move deadline cuts anyway);
	// maxOthello replaces it in Othello when not 0.
	max, maxOthello float64
	// values lists the values a string parameter may take.
	values []string
	// runsPath marks a string that is a checkpoint path inside the runs
	// folder (net's path).
	runsPath bool
}

// webKinds is the allow-list of player kinds a request may name, each with
// the parameters it may give. A kind or a parameter not listed here is
// refused: every kind here runs inside tabula, starts no process and reads no
// file outside the runs folder. The bounds keep one search's memory below
// about 32 MiB (see docs/security.md):
//
//	alphabeta tt=18: 2^18 buckets of 64 bytes, 16 MiB
//	solver tt=22 in Connect Four: 2^22 entries of 8 bytes, 32 MiB;
//	       tt=20 in Othello: 2^20 entries of 24 bytes, 24 MiB
//	mcts rollouts, net sims: tree nodes; net cache: entries of one policy
var webKinds = map[string]map[string]paramRule{
	"random": {},
	"greedy": {},
	"alphabeta": {
		"depth": {}, "nodes": {}, "time": {},
		"tt":   {max: 18},
		"eval": {values: []string{"hand", "tuned"}},
	},
	"solver": {
		"tt": {max: 22, maxOthello: 20},
	},
	"mcts": {
		"rollouts": {max: 100_000},
		"c":        {}, "time": {},
	},
	"net": {
		"path":  {runsPath: true},
		"sims":  {max: 10_000},
		"cpuct": {}, "time": {}, "solver": {}, "endgame": {}, "graph": {}, "sym": {}, "fpu": {},
		"batch":     {max: 64},
		"precision": {values: []string{"fp32", "bf16", "int8", "auto"}},
		"cache":     {max: 1 << 16},
		"search":    {values: []string{"puct", "gumbel"}},
		"gumbel_m":  {max: 256},
		"chance":    {values: []string{"sample", "stratified"}},
	},
	"expectimax": {
		"depth":    {max: 2},
		"eval":     {values: []string{"hand", "pubeval", "td", "rollout"}},
		"prune":    {values: []string{"none", "star1", "star2"}},
		"rollouts": {max: 1000},
		"bearoff":  {values: []string{"mem"}},
	},
	"pubeval": {},
	// The card games' players (whist, kuhn, leduc): cfr solves the whole
	// game tree in memory, so it is offered for the two poker games only
	// (checkAllowed), where 20,000 iterations take under a second.
	"cardrules": {},
	"pimc":      {"samples": {max: 100}},
	"ismcts":    {"iters": {max: 20_000}, "c": {}},
	"cfr":       {"iters": {max: 20_000}, "plus": {}},
}

// webKindNames lists the allowed kinds in arena's order.
func webKindNames() string {
	var names []string
	for _, k := range players.Kinds() {
		if _, ok := webKinds[k.Name]; ok {
			names = append(names, k.Name)
		}
	}
	return strings.Join(names, ", ")
}

// checkAllowed returns a 400 error unless spec is on the web allow-list for
// game g, within its bounds. text is the spec as the request wrote it.
func checkAllowed(g games.Game, spec players.Spec, text string) error {
	rules, ok := webKinds[spec.Kind]
	if !ok {
		return fail(http.StatusBadRequest, "player spec %q: kind %q is not offered over the web: a request may name only players that run inside tabula (%s); outside engines and other kinds are for the command line (play -player, arena)", text, spec.Kind, webKindNames())
	}
	if _, poker := g.(*poker.Game); spec.Kind == "cfr" && !poker {
		return fail(http.StatusBadRequest, "player spec %q: cfr solves the whole game in memory and is offered over the web for kuhn and leduc only", text)
	}
	for _, p := range spec.Params {
		r, ok := rules[p.Key]
		if !ok {
			return fail(http.StatusBadRequest, "player spec %q: parameter %s of %s is not offered over the web", text, p.Key, spec.Kind)
		}
		max := r.max
		if r.maxOthello != 0 && g != nil && strings.HasPrefix(g.Name(), "othello") {
			max = r.maxOthello
		}
		if max != 0 && spec.Float(p.Key, 0) > max {
			return fail(http.StatusBadRequest, "player spec %q: %s=%s is more than this server allows (%g)", text, p.Key, p.Value, max)
		}
		if r.values != nil && !slices.Contains(r.values, p.Value) {
			return fail(http.StatusBadRequest, "player spec %q: %s=%s is not offered over the web; want one of %s", text, p.Key, p.Value, strings.Join(r.values, ", "))
		}
	}
	return nil
}

// mustBeAllowList checks at start-up that webKinds names only kinds and
// parameters arena knows, and gives every string parameter either values or
// runsPath, so that no free text (a program, a file) passes unchecked.
func mustBeAllowList() error {
	known := map[string]players.KindInfo{}
	for _, k := range players.Kinds() {
		known[k.Name] = k
	}
	for kind, rules := range webKinds {
		k, ok := known[kind]
		if !ok {
			return fmt.Errorf("server: allowed kind %q is not an arena kind", kind)
		}
		for name, r := range rules {
			i := slices.IndexFunc(k.Params, func(p players.ParamInfo) bool { return p.Name == name })
			if i < 0 {
				return fmt.Errorf("server: allowed parameter %s of %s is not an arena parameter", name, kind)
			}
			if k.Params[i].Type == "string" && r.values == nil && !r.runsPath {
				return fmt.Errorf("server: string parameter %s of %s is allowed without a list of values", name, kind)
			}
		}
	}
	return nil
}
