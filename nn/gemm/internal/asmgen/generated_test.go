package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// generateDirective is the go:generate line of package gemm that runs this
// generator; the files it names are the ones compared below.
const generateDirective = "//go:generate go run ./internal/asmgen -out kernels_amd64.s -lowp lowp_amd64.s"

// TestCheckedInAssemblyIsGenerated regenerates the assembly of package gemm
// and compares it byte for byte with the checked-in files.
func TestCheckedInAssemblyIsGenerated(t *testing.T) {
	gemmDir := filepath.Join("..", "..")
	src, err := os.ReadFile(filepath.Join(gemmDir, "gemm.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), generateDirective+"\n") {
		t.Fatalf("gemm.go lacks %q: update this test with the generator's new flags", generateDirective)
	}
	for name, gen := range map[string]func() []byte{
		"kernels_amd64.s": kernelsFile,
		"lowp_amd64.s":    lowpFile,
	} {
		got, err := os.ReadFile(filepath.Join(gemmDir, name))
		if err != nil {
			t.Fatal(err)
		}
		want := gen()
		if bytes.Equal(got, want) {
			continue
		}
		line, i := 1, 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			if got[i] == '\n' {
				line++
			}
			i++
		}
		t.Errorf("%s differs from the generator's output from line %d (checked in %d bytes, generated %d): run go generate in nn/gemm", name, line, len(got), len(want))
	}
}
