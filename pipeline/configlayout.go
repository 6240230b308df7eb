package pipeline

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"tabula/mcts"
)

// movedKeys maps the keys of an older config layout to their current path.
// Every key of the old selfplay.mcts section is in it: the search's
// settings went to selfplay.search, the games' to selfplay.play, and the
// experiments to experimental.
var movedKeys = func() map[string]string {
	m := map[string]string{
		"selfplay.mcts.search":             "selfplay.search.algorithm",
		"selfplay.mcts.graph":              "experimental.graph",
		"selfplay.mcts.gumbel_noise_moves": "experimental.gumbel_noise_moves",
		"selfplay.value_target_mix":        "experimental.value_target_mix",
		"network.wdl":                      "experimental.wdl",
		"network.opponent_policy":          "experimental.opponent_policy",
	}
	for section, t := range map[string]reflect.Type{
		"selfplay.search": reflect.TypeOf(mcts.SearchParams{}),
		"selfplay.play":   reflect.TypeOf(mcts.PlaySettings{}),
	} {
		for i := 0; i < t.NumField(); i++ {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
			if name != "" && name != "-" && name != "algorithm" {
				m["selfplay.mcts."+name] = section + "." + name
			}
		}
	}
	return m
}()

// removedKeys are keys that no longer exist, with what replaced them.
var removedKeys = map[string]string{
	"evaluator.max_batch": "each self-play worker evaluates the leaves it gathers, selfplay.search.batch_size at a time",
	"evaluator.max_wait":  "each self-play worker runs its own batches at once, with no wait",
	"evaluator.workers":   "each self-play worker (selfplay.workers) runs the network itself",
}

// migrate rewrites a config document of an older layout into the current
// one: it moves every key of movedKeys to its new path, keeping its line
// for error messages, and returns a warning for each. A removed key is an
// error naming what replaced it, unless saved (a config a training process
// wrote, whose removed keys held defaults): then it is dropped.
func migrate(root *yaml.Node, o *origins, saved bool) ([]string, error) {
	var warnings []string
	for _, path := range slices.Sorted(maps.Keys(removedKeys)) {
		why := removedKeys[path]
		k, _, parent := lookup(root, path)
		if k == nil {
			continue
		}
		if !saved {
			return nil, fmt.Errorf("%s: %s was removed: %s; delete the key", where(k), path, why)
		}
		remove(parent, k)
	}
	if k, v, parent := lookup(root, "selfplay.mcts"); k != nil {
		if v.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s: selfplay.mcts is a section of keys, not %s", where(k), describeNode(v))
		}
		for i := 0; i+1 < len(v.Content); i += 2 {
			if _, ok := movedKeys["selfplay.mcts."+v.Content[i].Value]; !ok {
				return nil, fmt.Errorf("%s: unknown key %q in section selfplay.mcts (an older layout, whose keys are now in selfplay.search and selfplay.play)",
					where(v.Content[i]), v.Content[i].Value)
			}
		}
		// Move the section's keys one by one below, then drop it.
		for len(v.Content) >= 2 {
			ck, cv := v.Content[0], v.Content[1]
			v.Content = v.Content[2:]
			w, err := place(root, o, "selfplay.mcts."+ck.Value, ck, cv)
			if err != nil {
				return nil, err
			}
			if w != "" && !saved {
				warnings = append(warnings, w)
			}
		}
		remove(parent, k)
	}
	for _, path := range []string{"selfplay.value_target_mix", "network.wdl", "network.opponent_policy"} {
		k, v, parent := lookup(root, path)
		if k == nil {
			continue
		}
		remove(parent, k)
		w, err := place(root, o, path, k, v)
		if err != nil {
			return nil, err
		}
		if w != "" && !saved {
			warnings = append(warnings, w)
		}
	}
	return warnings, nil
}

// place puts the key k with value v, found at the old path, at its new
// path, and returns the warning for it. Where the new path is set too, the
// value given by -set wins; two values from the file are an error.
func place(root *yaml.Node, o *origins, old string, k, v *yaml.Node) (string, error) {
	path := movedKeys[old]
	dot := strings.LastIndex(path, ".")
	section, name := path[:dot], path[dot+1:]
	parent := root
	for _, p := range strings.Split(section, ".") {
		_, child, _ := lookup(parent, p)
		if child == nil {
			// The new section takes a line, so that checkKeys names the
			// lines of the keys moved into it rather than -set.
			child = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			parent.Content = append(parent.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: p, Line: max(k.Line, 1)}, child)
		}
		if child.Kind != yaml.MappingNode {
			return "", fmt.Errorf("%s is a section of keys, not %s", section, describeNode(child))
		}
		parent = child
	}
	if nk, nv, _ := lookup(parent, name); nk != nil {
		switch {
		case o.set[v]:
			*nv = *v
			o.set[nv] = true
			return "", nil
		case o.set[nv]:
			return "", nil
		}
		return "", fmt.Errorf("%s: %s is the older name of %s, which is set too (%s); keep %s", where(k), old, path, where(nk), path)
	}
	moved := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: name, Line: k.Line, Column: k.Column}
	parent.Content = append(parent.Content, moved, v)
	if o.set[v] {
		return fmt.Sprintf("-set %s: the key is now %s (the older name still works)", old, path), nil
	}
	return fmt.Sprintf("%s: %s is now %s (the older name still works)", where(k), old, path), nil
}

// where names the line of a key, or -set for one a flag gave.
func where(k *yaml.Node) string {
	if k.Line == 0 {
		return "-set"
	}
	return fmt.Sprintf("line %d", k.Line)
}

// lookup finds the key at a dotted path below a mapping: its key and value
// nodes and the mapping that holds them, or nils.
func lookup(n *yaml.Node, path string) (k, v, parent *yaml.Node) {
	for _, p := range strings.Split(path, ".") {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil, nil, nil
		}
		parent, k, v = n, nil, nil
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == p {
				k, v = n.Content[i], n.Content[i+1]
			}
		}
		if k == nil {
			return nil, nil, nil
		}
		n = v
	}
	return k, v, parent
}

// remove deletes the key k and its value from the mapping parent.
func remove(parent, k *yaml.Node) {
	for i := 0; i+1 < len(parent.Content); i += 2 {
		if parent.Content[i] == k {
			parent.Content = append(parent.Content[:i], parent.Content[i+2:]...)
			return
		}
	}
}
