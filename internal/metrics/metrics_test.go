package metrics

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestKeysInOrder checks that every struct of the schema declares its
// fields in the order of their JSON names: a typed line then has its keys
// sorted, as a line built from a map has.
func TestKeysInOrder(t *testing.T) {
	for _, v := range []any{Record{}, Train{}, Gate{}, Ladder{}, SelfPlay{}, Replay{}, Bus{}, Worker{}} {
		typ := reflect.TypeOf(v)
		var keys []string
		for f := range typ.Fields() {
			key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			keys = append(keys, key)
		}
		if !slices.IsSorted(keys) {
			t.Errorf("%s: JSON keys %v are not in sorted order", typ.Name(), keys)
		}
	}
}

func TestFloat(t *testing.T) {
	for _, tc := range []struct {
		f    Float
		want string
	}{{0, "0"}, {0.25, "0.25"}, {1e-7, "1e-7"}, {1e21, "1e+21"}, {Float(math.NaN()), "null"}, {Float(math.Inf(-1)), "null"}} {
		got, err := json.Marshal(tc.f)
		if err != nil || string(got) != tc.want {
			t.Errorf("Marshal(%v) = %s, %v; want %s", tc.f, got, err, tc.want)
		}
	}
	var xs []Float
	if err := json.Unmarshal([]byte("[1.5,null]"), &xs); err != nil || len(xs) != 2 || xs[0] != 1.5 || !math.IsNaN(float64(xs[1])) {
		t.Errorf("Unmarshal [1.5,null] = %v, %v", xs, err)
	}
	var m map[string]Float
	if err := json.Unmarshal([]byte(`{"a":null}`), &m); err != nil || !math.IsNaN(float64(m["a"])) {
		t.Errorf(`Unmarshal {"a":null} = %v, %v`, m, err)
	}
	var p *Float
	if _, ok := p.Get(); ok {
		t.Error("nil Get: ok")
	}
	if _, ok := Ptr(Float(math.NaN())).Get(); ok {
		t.Error("NaN Get: ok")
	}
	if v, ok := Ptr(Float(2)).Get(); !ok || v != 2 {
		t.Errorf("Get = %v, %v", v, ok)
	}
}

// TestRoundTrip reads lines with absent keys, nulls and the bench's two
// forms, and writes them back byte for byte.
func TestRoundTrip(t *testing.T) {
	for _, line := range []string{
		`{"best":"b","iteration":0,"time":"","wall_seconds":0}`,
		`{"bench":{"skipped":"no sets"},"best":"b","gate":{"candidate":"c","games":0,"promoted":true,"reason":"r"},"iteration":1,"time":"t","train":{"total_steps":5},"wall_seconds":null,"workers":{}}`,
		`{"bench":{"A":0.5,"B":null},"best":"b","gate":{"best":"a","candidate":"c","draws":0,"elo_diff":null,"llr":null,"losses":0,"method":"sprt","promoted":true,"reason":"r","score":1,"verdict":"H1","wins":2},"iteration":1,"time":"t","train":{"loss_ownership":null,"policy_entropy":null,"steps":0,"steps_before_restart":3,"total_steps":5},"wall_seconds":1}`,
		`{"bench":{},"best":"b","iteration":1,"ladder":{"elo":[null,0],"elo_high":[1,0],"elo_low":[-1,0],"extreme":[true,false],"players":["best","random"],"scores":{"random":null}},"time":"t","wall_seconds":1}`,
	} {
		var r Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		got, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != line {
			t.Errorf("round trip\n got %s\nwant %s", got, line)
		}
	}
}
