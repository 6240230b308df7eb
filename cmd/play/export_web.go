package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"tabula/internal/atomicfile"
	"tabula/nn"
	"tabula/web"
)

// wasmPackage is the engine's main package, built for GOOS=js GOARCH=wasm.
const wasmPackage = "tabula/web/wasm"

// staticAssets are the page files a static export copies from web.Assets
// (index.html is rewritten to load the WebAssembly engine).
var staticAssets = []string{"style.css", "board.js", "app.js", "engine-wasm.js", "engine-worker.js", "main-wasm.js"}

// exportWeb writes a static folder that plays ck's network in the browser
// with no server: the page (the same board and game flow as play web), the
// engine compiled to WebAssembly, wasm_exec.js from the same Go distribution,
// the weights, and model.json. Any static web server can host the folder.
//
// The engine is built from the tabula source at export time (go build with
// GOOS=js GOARCH=wasm of web/wasm), so the command needs the Go toolchain and
// a tabula checkout as its working folder: that keeps a 4 MB binary out of
// the repository and makes the engine always match the source and the
// checkpoint format.
func exportWeb(ctx context.Context, ck *nn.Checkpoint, out string) error {
	g, l, err := web.NewGame(ck.Game)
	if err != nil {
		return fmt.Errorf("web export: %w", err)
	}
	if err := ck.CheckGame(g); err != nil {
		return fmt.Errorf("web export: %w", err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("web export: %w", err)
	}
	goBin, err := goTool()
	if err != nil {
		return fmt.Errorf("web export: %w", err)
	}
	if err := buildWasm(ctx, goBin, filepath.Join(out, "engine.wasm")); err != nil {
		return fmt.Errorf("web export: %w", err)
	}
	if err := copyWasmExec(ctx, goBin, filepath.Join(out, "wasm_exec.js")); err != nil {
		return fmt.Errorf("web export: %w", err)
	}
	// The weights alone: the optimiser's state is of no use to a player.
	var buf bytes.Buffer
	if err := nn.WriteCheckpoint(&buf, &nn.Checkpoint{Game: ck.Game, Step: ck.Step, Weights: ck.Weights, Meta: ck.Meta}); err != nil {
		return fmt.Errorf("web export: weights: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(out, "weights.tbn"), buf.Bytes()); err != nil {
		return fmt.Errorf("web export: %w", err)
	}
	title := g.Name()
	for _, c := range web.Choices {
		if c.Spec == g.Name() {
			title = c.Title
		}
	}
	model, err := json.MarshalIndent(map[string]any{
		"game": g.Name(), "title": title, "name": "network", "step": ck.Step,
		"params": ck.Weights.NumParams(), "layout": l,
	}, "", "  ")
	if err != nil {
		return fmt.Errorf("web export: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(out, "model.json"), append(model, '\n')); err != nil {
		return fmt.Errorf("web export: %w", err)
	}
	for _, name := range staticAssets {
		b, err := fs.ReadFile(web.Assets, name)
		if err != nil {
			return fmt.Errorf("web export: %w", err)
		}
		if err := atomicfile.Write(filepath.Join(out, name), b); err != nil {
			return fmt.Errorf("web export: %w", err)
		}
	}
	page, err := staticPage()
	if err != nil {
		return fmt.Errorf("web export: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(out, "index.html"), page); err != nil {
		return fmt.Errorf("web export: %w", err)
	}
	return nil
}

// webExportFiles are the names a web export writes into its folder.
func webExportFiles() []string {
	return append([]string{"index.html", "engine.wasm", "wasm_exec.js", "weights.tbn", "model.json"}, staticAssets...)
}

// checkWebOut refuses to export into out when it holds anything but an
// earlier web export (its model.json and files of the names an export
// writes), unless force is set: the export would replace a page of the same
// name, such as someone's index.html. A folder that does not exist yet is
// fine.
func checkWebOut(out string, force bool) error {
	entries, err := os.ReadDir(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		if fi, serr := os.Stat(out); serr == nil && !fi.IsDir() {
			return fmt.Errorf("-out %s is a file; the web export writes a folder", out)
		}
		return fmt.Errorf("-out: %w", err)
	case len(entries) == 0 || force:
		return nil
	}
	ours := map[string]bool{}
	for _, n := range webExportFiles() {
		ours[n] = true
	}
	var names []string
	earlier, foreign := false, false
	for _, e := range entries {
		names = append(names, e.Name())
		earlier = earlier || e.Name() == "model.json"
		foreign = foreign || !ours[e.Name()] || e.IsDir()
	}
	if earlier && !foreign {
		return nil // an earlier export of this command: replace it
	}
	const most = 5
	if len(names) > most {
		names = append(names[:most], fmt.Sprintf("and %d more", len(names)-most))
	}
	return fmt.Errorf("-out %s is not empty (it holds %s) and is not an earlier web export: choose a new or empty folder, or add -force to write into it (files of the same names are replaced)",
		out, strings.Join(names, ", "))
}

// staticPage is the served page with its engine swapped for WebAssembly.
func staticPage() ([]byte, error) {
	b, err := fs.ReadFile(web.Assets, "index.html")
	if err != nil {
		return nil, err
	}
	const httpScript = `<script type="module" src="main-http.js"></script>`
	const wasmScripts = `<script type="module" src="main-wasm.js"></script>`
	if !bytes.Contains(b, []byte(httpScript)) {
		return nil, errors.New("index.html does not load main-http.js as expected")
	}
	return bytes.Replace(b, []byte(httpScript), []byte(wasmScripts), 1), nil
}

// goTool finds the go command: on PATH, else in the GOROOT play was built
// with.
func goTool() (string, error) {
	if p, err := exec.LookPath("go"); err == nil {
		return p, nil
	}
	//lint:ignore SA1019 a best-effort fallback when go is not on PATH: the root play was built with, if it is still there
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	return "", errors.New("the go command is not on PATH: the web export builds its engine with the Go toolchain")
}

// buildWasm compiles the engine for the browser into dst.
func buildWasm(ctx context.Context, goBin, dst string) error {
	abs, err := filepath.Abs(dst)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, goBin, "build", "-trimpath", "-ldflags=-s -w", "-o", abs, wasmPackage)
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if strings.Contains(msg, "is not in std") || strings.Contains(msg, "cannot find") || strings.Contains(msg, "go.mod file not found") {
			return fmt.Errorf("building the WebAssembly engine needs the tabula source: run play export inside the tabula checkout (%s)", firstLine(msg))
		}
		return fmt.Errorf("building the WebAssembly engine (GOOS=js GOARCH=wasm go build %s): %v: %s", wasmPackage, err, firstLine(msg))
	}
	return nil
}

// copyWasmExec copies the JavaScript support file of the same Go
// distribution that built the engine (lib/wasm since Go 1.24, misc/wasm
// before).
func copyWasmExec(ctx context.Context, goBin, dst string) error {
	out, err := exec.CommandContext(ctx, goBin, "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("go env GOROOT: %w", err)
	}
	root := strings.TrimSpace(string(out))
	for _, rel := range []string{"lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"} {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err == nil {
			return atomicfile.Write(dst, b)
		}
	}
	return fmt.Errorf("no wasm_exec.js under %s (lib/wasm or misc/wasm)", root)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
