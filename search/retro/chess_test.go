package retro

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"
)

// built caches the tables the tests build, by signature.
var (
	builtMu sync.Mutex
	built   = map[string]*Table{}
)

// table builds (once per test binary) the table of sig and those it needs.
func table(tb testing.TB, sig string) *Table {
	tb.Helper()
	builtMu.Lock()
	defer builtMu.Unlock()
	return tableLocked(tb, sig)
}

func tableLocked(tb testing.TB, sig string) *Table {
	if t, ok := built[sig]; ok {
		return t
	}
	ps, err := ParseMaterial(sig)
	if err != nil {
		tb.Fatal(err)
	}
	subs := map[string]*Table{}
	for _, m := range successorMaterials(ps) {
		if !insufficient(m) {
			subs[Signature(m)] = tableLocked(tb, Signature(m))
		}
	}
	start := time.Now()
	t, err := BuildChess(context.Background(), sig, subs, 0)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Logf("%s: %+v in %v", sig, t.Stats, time.Since(start))
	built[sig] = t
	return t
}

// long skips a test unless TABULA_LONG=1.
func long(tb testing.TB) {
	if os.Getenv("TABULA_LONG") != "1" {
		tb.Skip("set TABULA_LONG=1 to build the bigger tables")
	}
}

func TestKQKKRK(t *testing.T) {
	for _, sig := range []string{"KQK", "KRK"} {
		table(t, sig)
	}
}

func TestBig(t *testing.T) {
	long(t)
	for _, sig := range []string{"KPK", "KBBK", "KBNK"} {
		table(t, sig)
	}
}
