package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"tabula/games"
	"tabula/internal/atomicfile"
	"tabula/internal/cliflag"
	"tabula/nn"
	"tabula/nn/onnx"
)

func init() {
	register(subcommand{
		name:    "export",
		summary: "-checkpoint FILE -format onnx|web -out PATH [-game G] [-force]   write a network for use elsewhere",
		run:     runExport,
	})
}

// runExport loads and checks a checkpoint, then writes it in the chosen
// format. Every format refuses a corrupt checkpoint and, when -game is given,
// a checkpoint of another game.
func runExport(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := verbFlags("export", "play export -checkpoint FILE -format onnx|web -out PATH [-game G] [-force]", "", stderr)
	path := fs.String("checkpoint", "", "checkpoint `file` to export (required)")
	format := fs.String("format", "onnx", "output format: onnx (a standard ONNX model file) or web (a static folder)")
	out := fs.String("out", "", "output `path`: a file for onnx, a folder for web (required)")
	gameSpec := fs.String("game", "", "refuse the checkpoint unless it is a network for this game `spec`")
	force := fs.Bool("force", false, "web: write into a folder that holds other files (those an export writes are replaced, the rest left alone)")
	separateBN := fs.Bool("separate-bn", false, "onnx: keep batch normalisation as nodes of its own instead of folding it into the convolutions")
	if err := cliflag.Parse(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("export: unexpected argument %q", fs.Arg(0))
	case *path == "":
		return errors.New("export: -checkpoint is required")
	case *out == "":
		return errors.New("export: -out is required")
	case *format != "onnx" && *format != "web":
		return fmt.Errorf("export: -format %q, want onnx or web", *format)
	}
	ck, g, err := loadExportCheckpoint(*path, *gameSpec)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if *format == "web" {
		if err := checkWebOut(*out, *force); err != nil {
			return fmt.Errorf("export: %w", err)
		}
	}
	start := time.Now()
	switch *format {
	case "onnx":
		model, err := onnx.Export(ck, g, onnx.Options{SeparateBatchNorm: *separateBN})
		if err != nil {
			return fmt.Errorf("export: %s: %w", *path, err)
		}
		if err := atomicfile.Write(*out, model); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		fmt.Fprintf(stdout, "wrote %s: ONNX model of %s (%d parameters, %d bytes) in %v\n",
			*out, ck.Game, ck.Weights.NumParams(), len(model), time.Since(start).Round(time.Millisecond))
	case "web":
		if err := exportWeb(ctx, ck, *out); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		fmt.Fprintf(stdout, "wrote %s: a static page playing the %s network (%d parameters) in WebAssembly, in %v; serve the folder with any web server\n",
			*out, ck.Game, ck.Weights.NumParams(), time.Since(start).Round(time.Millisecond))
	}
	return ctx.Err()
}

// loadExportCheckpoint reads and checks the checkpoint at path and builds its
// game. With want set, it refuses a checkpoint made for another game.
func loadExportCheckpoint(path, want string) (*nn.Checkpoint, games.Game, error) {
	ck, err := nn.LoadCheckpoint(path)
	if err != nil {
		return nil, nil, err
	}
	g, err := games.New(ck.Game)
	if err != nil {
		return nil, nil, fmt.Errorf("checkpoint %s: game %q: %w", path, ck.Game, err)
	}
	if want != "" {
		wg, err := games.New(want)
		if err != nil {
			return nil, nil, fmt.Errorf("-game: %w", err)
		}
		if wg.Name() != g.Name() {
			return nil, nil, fmt.Errorf("checkpoint %s is a network for %s, not %s", path, g.Name(), wg.Name())
		}
	}
	if err := ck.CheckGame(g); err != nil {
		return nil, nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return ck, g, nil
}
