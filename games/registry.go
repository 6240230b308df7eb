package games

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Param declares one parameter a registered game accepts.
type Param struct {
	Name    string // e.g. "size"
	Default string // value used when the spec omits it
	Doc     string // one line: meaning and allowed values
}

// Params holds the parameters of one spec, defaults filled in. Its getters
// parse a value and return an error naming the parameter when it is malformed.
type Params struct {
	game   string
	values map[string]string
}

// Int returns parameter name as an int.
func (p Params) Int(name string) (int, error) {
	v := p.values[name]
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("game %s: parameter %s=%q is not an integer", p.game, name, v)
	}
	return n, nil
}

// Float returns parameter name as a float64.
func (p Params) Float(name string) (float64, error) {
	v := p.values[name]
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f != f {
		return 0, fmt.Errorf("game %s: parameter %s=%q is not a number", p.game, name, v)
	}
	return f, nil
}

// String returns parameter name as given.
func (p Params) String(name string) string { return p.values[name] }

// Factory builds a game from its parameters. It validates ranges and returns an
// error naming the parameter and its allowed values.
type Factory func(p Params) (Game, error)

type entry struct {
	doc     string
	params  []Param
	factory Factory
}

var (
	registryMu sync.RWMutex
	registry   = map[string]entry{}
)

// Register makes a game available to New under name. Each game package calls
// it from init. It panics on a duplicate name or a malformed declaration,
// which are programming errors.
func Register(name, doc string, params []Param, f Factory) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if name == "" || strings.ContainsAny(name, ":,= ") {
		panic(fmt.Sprintf("games: bad game name %q", name))
	}
	if _, dup := registry[name]; dup {
		panic(fmt.Sprintf("games: %q registered twice", name))
	}
	registry[name] = entry{doc: doc, params: params, factory: f}
}

// Names lists the registered games in alphabetical order.
func Names() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return sortedNames(registry)
}

// Describe returns a human-readable list of games and their parameters.
func Describe() string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	var b strings.Builder
	for _, n := range sortedNames(registry) {
		e := registry[n]
		fmt.Fprintf(&b, "%s: %s\n", n, e.doc)
		for _, p := range e.params {
			fmt.Fprintf(&b, "  %s (default %s): %s\n", p.Name, p.Default, p.Doc)
		}
	}
	return b.String()
}

// sortedNames returns the sorted keys of m; callers hold registryMu.
func sortedNames(m map[string]entry) []string { return slices.Sorted(maps.Keys(m)) }

// New builds a game from a spec: a registered name, optionally followed by
// ':' and comma-separated key=value parameters, e.g. "go:size=9,komi=7.5".
// An unknown name or parameter gives an error that lists what is valid.
func New(spec string) (Game, error) {
	spec = strings.TrimSpace(spec)
	name, rest, hasParams := strings.Cut(spec, ":")
	name = strings.TrimSpace(name)
	registryMu.RLock()
	e, ok := registry[name]
	var valid []string
	if !ok {
		valid = sortedNames(registry)
	}
	registryMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("unknown game %q in spec %q; valid games: %s", name, spec, strings.Join(valid, ", "))
	}
	values := make(map[string]string, len(e.params))
	for _, p := range e.params {
		values[p.Name] = p.Default
	}
	if hasParams {
		seen := map[string]bool{}
		for _, kv := range strings.Split(rest, ",") {
			k, v, okKV := strings.Cut(kv, "=")
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			if !okKV || k == "" || v == "" {
				return nil, fmt.Errorf("game spec %q: parameter %q is not of the form key=value", spec, kv)
			}
			if _, known := values[k]; !known {
				return nil, fmt.Errorf("game spec %q: %s has no parameter %q; valid: %s", spec, name, k, paramList(e.params))
			}
			if seen[k] {
				return nil, fmt.Errorf("game spec %q: parameter %q given twice", spec, k)
			}
			seen[k] = true
			values[k] = v
		}
	}
	return e.factory(Params{game: name, values: values})
}

func paramList(ps []Param) string {
	if len(ps) == 0 {
		return "(none)"
	}
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("%s (%s)", p.Name, p.Doc)
	}
	return strings.Join(parts, ", ")
}
