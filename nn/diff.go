package nn

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"
)

// Diff names the fields where c and o differ, by their config keys, with
// c's values in mine and o's in theirs (e.g. "filters 64, blocks 6" and
// "filters 32, blocks 4"); both are empty when the configs are equal.
func (c Config) Diff(o Config) (mine, theirs string) { return diffFields(c, o) }

// Diff names the fields where s and o differ (e.g. "planes 3, actions 26"
// and "planes 2, actions 7"); both are empty when the shapes are equal.
func (s Shape) Diff(o Shape) (mine, theirs string) { return diffFields(s, o) }

// snake writes a Go field name in a config's words: OpponentPolicy is
// opponent_policy, WDL is wdl.
func snake(name string) string {
	var b strings.Builder
	for i, r := range name {
		if unicode.IsUpper(r) && i > 0 && !unicode.IsUpper(rune(name[i-1])) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// diffFields compares two values of one struct type field by field and
// lists the differing ones as "name value", named by their yaml keys or
// else their lower-case Go names.
func diffFields(a, b any) (string, string) {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	var as, bs []string
	for i := 0; i < va.NumField(); i++ {
		fa, fb := va.Field(i).Interface(), vb.Field(i).Interface()
		if fa == fb {
			continue
		}
		f := va.Type().Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			name = snake(f.Name)
		}
		as = append(as, fmt.Sprintf("%s %v", name, fa))
		bs = append(bs, fmt.Sprintf("%s %v", name, fb))
	}
	return strings.Join(as, ", "), strings.Join(bs, ", ")
}
