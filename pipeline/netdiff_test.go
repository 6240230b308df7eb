package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResumeWithAnotherNetworkNamesTheFields checks that resuming a run
// folder with a config of another network size names the differing keys
// and their values, not Go structs.
func TestResumeWithAnotherNetworkNamesTheFields(t *testing.T) {
	dir := t.TempDir()
	old, err := Parse([]byte("game: connect4\nnetwork: {filters: 16, blocks: 2}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := old.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Parse([]byte("game: connect4\nnetwork: {filters: 32, blocks: 2}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	err = (&runDir{root: dir}).checkCompatible(cfg)
	if err == nil || !strings.Contains(err.Error(), "holds a network with filters 16; this config's network asks for filters 32") ||
		strings.ContainsAny(err.Error(), "{}") {
		t.Errorf("error %v, want one naming filters 16 and 32 alone", err)
	}
}
