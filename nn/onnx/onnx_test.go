package onnx

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"tabula/games"
	_ "tabula/games/chess"
	_ "tabula/games/connect4"
	_ "tabula/games/gogame"
	_ "tabula/games/othello"
	"tabula/internal/refdata"
	"tabula/internal/refdata/refdatatest"
	"tabula/nn"
)

// repoRoot is the folder holding go.mod.
func repoRoot(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			t.Fatalf("no go.mod above %s", wd)
		}
	}
}

// configNetwork reads the game spec and network size of configs/NAME.yaml.
func configNetwork(t testing.TB, name string) (string, nn.Config) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "configs", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Game    string    `yaml:"game"`
		Network nn.Config `yaml:"network"`
	}
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatalf("configs/%s.yaml: %v", name, err)
	}
	return c.Game, c.Network
}

// randomCheckpoint is a network of size cfg for g with random weights and
// batch-norm parameters and statistics away from their initial values, so
// that folding is exercised.
func randomCheckpoint(t testing.TB, g games.Game, cfg nn.Config, seed uint64) *nn.Checkpoint {
	t.Helper()
	p, h, wd := g.ObservationShape()
	rng := rand.New(rand.NewPCG(seed, 1))
	w, err := nn.NewWeights(cfg, nn.Shape{Planes: p, Height: h, Width: wd, Actions: g.NumActions()}, rng)
	if err != nil {
		t.Fatal(err)
	}
	for _, ts := range w.Tensors() {
		switch {
		case strings.HasSuffix(ts.Name, ".gamma"), strings.HasSuffix(ts.Name, ".var"):
			for i := range ts.Data {
				ts.Data[i] = float32(0.5 + rng.Float64())
			}
		case strings.HasSuffix(ts.Name, ".beta"), strings.HasSuffix(ts.Name, ".mean"), strings.HasSuffix(ts.Name, ".b"):
			for i := range ts.Data {
				ts.Data[i] = float32(0.2 * rng.NormFloat64())
			}
		}
	}
	return &nn.Checkpoint{Game: g.Name(), Step: 1234, Weights: w, Meta: map[string]string{"run": "test"}}
}

// samplePositions plays random games of g and returns the observations of n
// positions spread over them, the initial one first.
func samplePositions(g games.Game, n int, seed uint64) []float32 {
	p, h, w := g.ObservationShape()
	per := p * h * w
	rng := rand.New(rand.NewPCG(seed, 2))
	obs := make([]float32, 0, n*per)
	buf := make([]float32, per)
	var legal []int
	s := g.NewInitialState()
	for len(obs) < n*per {
		if s.IsTerminal() {
			s = g.NewInitialState()
		}
		if s.MoveNumber() == 0 || rng.IntN(3) == 0 {
			s.Observation(buf)
			obs = append(obs, buf...)
		}
		legal = s.LegalActions(legal)
		s.ApplyAction(legal[rng.IntN(len(legal))])
	}
	return obs
}

type ortRun struct {
	Batch int       `json:"batch"`
	Obs   []float32 `json:"obs"`
}

type ortJob struct {
	Model string   `json:"model"`
	Shape [3]int   `json:"shape"`
	Runs  []ortRun `json:"runs"`
}

type ortResult struct {
	Error       string   `json:"error"`
	InputNames  []string `json:"inputNames"`
	OutputNames []string `json:"outputNames"`
	Runs        []struct {
		Policy     []float64 `json:"policy"`
		PolicyDims []int     `json:"policyDims"`
		Value      []float64 `json:"value"`
		ValueDims  []int     `json:"valueDims"`
	} `json:"runs"`
}

// onnxRuntime returns a function that runs jobs in onnxruntime, all in one
// node process, or skips (fails under TABULA_REQUIRE_ALL) where node or the
// npm package is missing.
func onnxRuntime(t *testing.T) func(jobs []ortJob) []ortResult {
	t.Helper()
	node := refdatatest.Program(t, "node", "apt-get install nodejs npm")
	modules := filepath.Join(repoRoot(t), ".cache", "node", "node_modules")
	if _, err := os.Stat(filepath.Join(modules, "onnxruntime-node", "package.json")); err != nil {
		msg := fmt.Sprintf("npm package onnxruntime-node not installed in %s (install: mkdir -p .cache/node && cd .cache/node && npm install --ignore-scripts onnxruntime-node; .ci/run does it)", modules)
		if os.Getenv(refdata.RequireAllEnv) != "" {
			t.Fatalf("%s, and %s is set", msg, refdata.RequireAllEnv)
		}
		t.Skip(msg)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "ort.js"))
	if err != nil {
		t.Fatal(err)
	}
	return func(jobs []ortJob) []ortResult {
		t.Helper()
		dir := t.TempDir()
		inPath, outPath := filepath.Join(dir, "in.json"), filepath.Join(dir, "out.json")
		in, err := json.Marshal(map[string]any{"jobs": jobs})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(inPath, in, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(node, script, inPath, outPath)
		cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("onnxruntime: %v\n%s", err, out)
		}
		b, err := os.ReadFile(outPath)
		if err != nil {
			t.Fatal(err)
		}
		var res struct {
			Results []ortResult `json:"results"`
		}
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatalf("onnxruntime output: %v", err)
		}
		if len(res.Results) != len(jobs) {
			t.Fatalf("onnxruntime returned %d results for %d models", len(res.Results), len(jobs))
		}
		return res.Results
	}
}

// parityCase is one exported model and what nn.Forward says of its inputs.
type parityCase struct {
	name         string
	batch, na    int
	wantP, wantV []float32
}

// TestParityOnnxRuntime exports a random network of each game's configured
// size, and a trained one, with batch normalisation folded and separate, and
// checks that onnxruntime's outputs equal nn's forward pass within 1e-4 on
// sample positions, at batch 1 and at a larger batch (the batch dimension is
// dynamic).
func TestParityOnnxRuntime(t *testing.T) {
	run := onnxRuntime(t)
	const positions, tol = 6, 1e-4
	dir := t.TempDir()
	var cases []parityCase
	var jobs []ortJob
	add := func(name string, ck *nn.Checkpoint, g games.Game, seed uint64) {
		p, h, w := g.ObservationShape()
		obs := samplePositions(g, positions, seed)
		net, err := nn.NewNet(ck.Weights, positions)
		if err != nil {
			t.Fatal(err)
		}
		c := parityCase{batch: positions, na: g.NumActions()}
		c.wantP, c.wantV = make([]float32, positions*c.na), make([]float32, positions)
		if err := net.Forward(obs, positions, c.wantP, c.wantV); err != nil {
			t.Fatal(err)
		}
		for _, sep := range []bool{false, true} {
			model, err := Export(ck, g, Options{SeparateBatchNorm: sep})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			c.name = fmt.Sprintf("%s/separate=%v", name, sep)
			path := filepath.Join(dir, fmt.Sprintf("m%d.onnx", len(jobs)))
			if err := os.WriteFile(path, model, 0o644); err != nil {
				t.Fatal(err)
			}
			cases = append(cases, c)
			jobs = append(jobs, ortJob{Model: path, Shape: [3]int{p, h, w},
				Runs: []ortRun{{1, obs[:p*h*w]}, {positions, obs}}})
		}
	}
	for i, name := range []string{"connect4", "othello6", "othello8", "go5", "go7", "go9", "chess"} {
		spec, cfg := configNetwork(t, name)
		g, err := games.New(spec)
		if err != nil {
			t.Fatal(err)
		}
		add(name, randomCheckpoint(t, g, cfg, uint64(i+1)), g, uint64(i+1))
	}
	// A win/draw/loss value head (experimental.wdl): Softmax, then MatMul.
	{
		spec, cfg := configNetwork(t, "connect4")
		g, err := games.New(spec)
		if err != nil {
			t.Fatal(err)
		}
		cfg.WDL = true
		add("connect4-wdl", randomCheckpoint(t, g, cfg, 11), g, 11)
	}
	// Global pooling (network.global_pooling) in blocks 1 and 3: Slice, the
	// two pools, Concat and a 1x1 convolution; on Go 9x9 too, with
	// pool_channels set.
	for i, name := range []string{"connect4", "go9"} {
		spec, cfg := configNetwork(t, name)
		g, err := games.New(spec)
		if err != nil {
			t.Fatal(err)
		}
		cfg.GlobalPooling, cfg.Blocks = true, max(cfg.Blocks, 4)
		if name == "go9" {
			cfg.PoolChannels = 5
		}
		add(name+"-pooled", randomCheckpoint(t, g, cfg, uint64(21+i)), g, uint64(21+i))
	}
	// Squeeze-and-excitation (network.squeeze_excite) in every block, alone
	// on Othello 8x8 and with global pooling on Go 9x9.
	for i, name := range []string{"othello8", "go9"} {
		spec, cfg := configNetwork(t, name)
		g, err := games.New(spec)
		if err != nil {
			t.Fatal(err)
		}
		cfg.SqueezeExcite = true
		if name == "go9" {
			cfg.GlobalPooling, cfg.Blocks = true, max(cfg.Blocks, 2)
		}
		add(name+"-se", randomCheckpoint(t, g, cfg, uint64(31+i)), g, uint64(31+i))
	}
	// A trained network (8 filters, 1 block; 30 iterations of
	// configs/connect4-smoke.yaml), with batch-norm statistics from training.
	ck, err := nn.LoadCheckpoint(filepath.Join("testdata", "connect4-smoke.tbn"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := games.New(ck.Game)
	if err != nil {
		t.Fatal(err)
	}
	add("connect4-trained", ck, g, 99)

	results := run(jobs)
	for k, c := range cases {
		res := results[k]
		t.Run(c.name, func(t *testing.T) {
			if res.Error != "" {
				t.Fatalf("onnxruntime: %s", res.Error)
			}
			if fmt.Sprint(res.InputNames, res.OutputNames) != fmt.Sprint([]string{InputName}, []string{PolicyName, ValueName}) {
				t.Fatalf("names: inputs %v outputs %v", res.InputNames, res.OutputNames)
			}
			if len(res.Runs) != 2 {
				t.Fatalf("%d runs, want 2", len(res.Runs))
			}
			var worst float64
			for r, batch := range []int{1, c.batch} {
				got := res.Runs[r]
				if fmt.Sprint(got.PolicyDims) != fmt.Sprint([]int{batch, c.na}) || fmt.Sprint(got.ValueDims) != fmt.Sprint([]int{batch, 1}) {
					t.Fatalf("batch %d: dims policy %v value %v", batch, got.PolicyDims, got.ValueDims)
				}
				for j := range batch * c.na {
					worst = max(worst, math.Abs(got.Policy[j]-float64(c.wantP[j])))
				}
				for j := range batch {
					worst = max(worst, math.Abs(got.Value[j]-float64(c.wantV[j])))
				}
			}
			if worst > tol {
				t.Fatalf("largest difference from nn.Forward %.3g, want <= %g", worst, tol)
			}
			t.Logf("%s: largest difference from nn.Forward over %d positions: %.3g", c.name, c.batch, worst)
		})
	}
}

// TestMetadata checks that the model carries the game and the layout.
func TestMetadata(t *testing.T) {
	g, err := games.New("othello:size=6")
	if err != nil {
		t.Fatal(err)
	}
	ck := randomCheckpoint(t, g, nn.Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 8}, 7)
	model, err := Export(ck, g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	meta, err := Metadata(model)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{KeyGame: "othello:size=6", KeyObservationShape: "3,6,6", KeyActions: "37",
		KeyStep: "1234", KeyBatchNorm: "folded", CheckpointMetaPrefix + "run": "test",
		KeyNetwork: "filters=8,blocks=1,policy_filters=2,value_filters=1,value_hidden=8"}
	for k, v := range want {
		if meta[k] != v {
			t.Errorf("metadata %s = %q, want %q", k, meta[k], v)
		}
	}
	for _, k := range []string{KeyObservation, KeyPolicy, KeyValue} {
		if meta[k] == "" {
			t.Errorf("metadata %s missing", k)
		}
	}
	ck.Weights.Config.WDL = true
	ck.Weights = randomCheckpoint(t, g, ck.Weights.Config, 7).Weights
	model, err = Export(ck, g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if meta, err = Metadata(model); err != nil {
		t.Fatal(err)
	}
	if got := meta[KeyNetwork]; got != want[KeyNetwork]+",wdl=true" {
		t.Errorf("win/draw/loss head: metadata %s = %q", KeyNetwork, got)
	}
	if got := meta[KeyValue]; !strings.Contains(got, "p(win) - p(loss)") {
		t.Errorf("win/draw/loss head: metadata %s = %q", KeyValue, got)
	}
	if _, err := Metadata([]byte{0x0a, 0x05, 1}); err == nil {
		t.Error("Metadata of a truncated message: no error")
	}
}

// TestExportRefuses checks the errors for a checkpoint of another game and
// for broken weights.
func TestExportRefuses(t *testing.T) {
	c4, err := games.New("connect4")
	if err != nil {
		t.Fatal(err)
	}
	oth, err := games.New("othello:size=6")
	if err != nil {
		t.Fatal(err)
	}
	cfg := nn.Config{Filters: 4, Blocks: 1, PolicyFilters: 1, ValueFilters: 1, ValueHidden: 4}
	ck := randomCheckpoint(t, c4, cfg, 3)
	if _, err := Export(ck, oth, Options{}); err == nil || !strings.Contains(err.Error(), "connect4") {
		t.Errorf("export of a connect4 checkpoint as othello: err = %v", err)
	}
	bad := randomCheckpoint(t, c4, cfg, 3)
	bad.Weights.StemBN.Var[0] = -1
	if _, err := Export(bad, c4, Options{}); err == nil || !strings.Contains(err.Error(), "variance") {
		t.Errorf("export with a negative variance: err = %v", err)
	}
	if _, err := Export(nil, c4, Options{}); err == nil {
		t.Error("export of nil: no error")
	}
}

// BenchmarkExport measures encoding the Connect Four headline network.
func BenchmarkExport(b *testing.B) {
	spec, cfg := configNetwork(b, "connect4")
	g, err := games.New(spec)
	if err != nil {
		b.Fatal(err)
	}
	ck := randomCheckpoint(b, g, cfg, 1)
	var n int
	for b.Loop() {
		m, err := Export(ck, g, Options{})
		if err != nil {
			b.Fatal(err)
		}
		n = len(m)
	}
	b.ReportMetric(float64(n), "bytes")
}

// FuzzMetadata checks that no input makes the metadata reader panic.
func FuzzMetadata(f *testing.F) {
	g, err := games.New("connect4")
	if err != nil {
		f.Fatal(err)
	}
	ck := randomCheckpoint(f, g, nn.Config{Filters: 2, Blocks: 0, PolicyFilters: 1, ValueFilters: 1, ValueHidden: 2}, 1)
	model, err := Export(ck, g, Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(model)
	f.Add([]byte{0x72, 0x03, 0x0a, 0x01, 'k'})
	f.Fuzz(func(t *testing.T, data []byte) {
		Metadata(data)
	})
}
