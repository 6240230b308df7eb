package kernelcensus

import (
	"strings"
	"testing"
)

func TestFinish(t *testing.T) {
	has, lacks := Feature{"X", true}, Feature{"Y", false}
	kernels := []Kernel{
		{Family: "f", Name: "generic"},
		{Family: "f", Name: "fast", Asm: true, Needs: []Feature{has}},
		{Family: "f", Name: "faster", Asm: true, Needs: []Feature{has, lacks}},
		{Family: "g", Name: "generic"},
		{Family: "g", Name: "fast", Asm: true, Needs: []Feature{has}},
	}
	for _, tc := range []struct {
		name     string
		asmBuild bool
		ran      []string // "family name"
		code     int
		want     []string // substrings of the output
	}{
		{"all run", true, []string{"f generic", "f fast"}, 0, []string{
			"kernels run by p tests: f generic, f fast\n",
			"f faster (this CPU lacks Y)", "g fast (no test of its family ran)"}},
		{"supported kernel not run", true, []string{"f generic", "g generic", "g fast"}, 1, []string{
			"f fast (NOT RUN, though this CPU and build support it)",
			"FAIL: p: the tests did not run f fast, which this CPU and build support"}},
		{"no assembly", false, []string{"f generic"}, 0, []string{
			"f fast (this build has no assembly (not amd64, or the noasm tag))"}},
	} {
		c := New("p", tc.asmBuild, kernels...)
		for _, r := range tc.ran {
			fam, name, _ := strings.Cut(r, " ")
			c.Ran(fam, name)
		}
		var out strings.Builder
		if code := c.Finish(&out, 0); code != tc.code {
			t.Errorf("%s: exit code %d, want %d\n%s", tc.name, code, tc.code, out.String())
		}
		for _, w := range tc.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s: output lacks %q:\n%s", tc.name, w, out.String())
			}
		}
	}
	// A failing run stays failing.
	if code := New("p", true, kernels...).Finish(new(strings.Builder), 2); code != 2 {
		t.Errorf("exit code %d of a failed run, want 2", code)
	}
}
