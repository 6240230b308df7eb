// Package models finds the networks that ship with tabula: weights files
// in a models folder with a manifest (manifest.json) that says, for each,
// its game, the config and command that trained it, when and on what
// machine, the result it was measured at, the command that measures it
// again, and the file's SHA-256. A player spec names one by its manifest
// name (net:model=NAME), and a training run can start from one
// (init: model:NAME).
//
// The folder is $TABULA_MODELS when that is set, and otherwise the first
// folder named models holding a manifest.json in the current directory or
// one of its parents, so that the commands find the repository's models/
// from anywhere inside a clone.
package models

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// ManifestFile is the manifest's name inside the models folder.
const ManifestFile = "manifest.json"

// EnvDir is the environment variable that names the models folder.
const EnvDir = "TABULA_MODELS"

// Model is one manifest entry.
type Model struct {
	// Name is what specs use: net:model=Name. Lower-case letters, digits,
	// '-' and '_'.
	Name string `json:"name"`
	// Game is the game spec the network plays, e.g. "go:size=9".
	Game string `json:"game"`
	// File is the weights file, relative to the models folder (no '..').
	File string `json:"file"`
	// SHA256 is the file's checksum, lower-case hex.
	SHA256 string `json:"sha256"`
	// Config is the training config, e.g. "configs/go9.yaml".
	Config string `json:"config"`
	// Command is the command that trained it.
	Command string `json:"command"`
	// Date is when the run ended (YYYY-MM-DD).
	Date string `json:"date"`
	// Machine describes where it ran (cores, CPU, whether it was quiet).
	Machine string `json:"machine"`
	// Result is the measured claim, as the README's results table gives it.
	Result string `json:"result"`
	// Check is the arena command line (its arguments after "arena") whose
	// output confirms Result, run by scripts/checkmodel; "{model}" in an
	// argument stands for net:model=Name.
	Check []string `json:"check"`
}

// Manifest is the whole manifest.json.
type Manifest struct {
	Models []Model `json:"models"`
}

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)
var shaRE = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Validate checks every entry: a valid unique name, a game, a file inside
// the folder, a checksum, and a check command.
func (m *Manifest) Validate() error {
	seen := map[string]bool{}
	for i, e := range m.Models {
		where := fmt.Sprintf("models[%d]", i)
		if e.Name != "" {
			where = fmt.Sprintf("model %q", e.Name)
		}
		switch {
		case !nameRE.MatchString(e.Name):
			return fmt.Errorf("%s: name %q, want lower-case letters, digits, - and _ (at most 64)", where, e.Name)
		case seen[e.Name]:
			return fmt.Errorf("%s: name given twice", where)
		case e.Game == "":
			return fmt.Errorf("%s: no game", where)
		case e.File == "" || filepath.IsAbs(e.File) || strings.Contains(filepath.ToSlash(e.File), ".."):
			return fmt.Errorf("%s: file %q, want a path inside the models folder", where, e.File)
		case !shaRE.MatchString(e.SHA256):
			return fmt.Errorf("%s: sha256 %q, want 64 lower-case hex digits", where, e.SHA256)
		case len(e.Check) == 0:
			return fmt.Errorf("%s: no check command", where)
		}
		// The network plays only its own game (backgammon:scoring=money is
		// not backgammon): a check that names another cannot run.
		for k, a := range e.Check {
			if (a == "-game" || a == "--game") && k+1 < len(e.Check) && e.Check[k+1] != e.Game {
				return fmt.Errorf("%s: the check command plays -game %s, the network's game is %s", where, e.Check[k+1], e.Game)
			}
			if v, ok := strings.CutPrefix(a, "-game="); ok && v != e.Game {
				return fmt.Errorf("%s: the check command plays -game %s, the network's game is %s", where, v, e.Game)
			}
		}
		seen[e.Name] = true
	}
	return nil
}

// Dir returns the models folder: $TABULA_MODELS, or the nearest models
// folder with a manifest from the current directory up.
func Dir() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		if _, err := os.Stat(filepath.Join(d, ManifestFile)); err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvDir, d, err)
		}
		return d, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; {
		cand := filepath.Join(d, "models")
		if _, err := os.Stat(filepath.Join(cand, ManifestFile)); err == nil {
			return cand, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return "", fmt.Errorf("no models folder (models/%s) in %s or above; run from inside a tabula clone or set %s", ManifestFile, wd, EnvDir)
}

// Load reads and validates dir's manifest.
func Load(dir string) (*Manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil, err
	}
	var m Manifest
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestFile), err)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestFile), err)
	}
	return &m, nil
}

// Find returns the entry named name.
func (m *Manifest) Find(name string) (Model, error) {
	for _, e := range m.Models {
		if e.Name == name {
			return e, nil
		}
	}
	return Model{}, fmt.Errorf("no shipped model %q; the manifest has: %s", name, strings.Join(m.Names(), ", "))
}

// Names lists the entries' names, sorted.
func (m *Manifest) Names() []string {
	names := make([]string, 0, len(m.Models))
	for _, e := range m.Models {
		names = append(names, e.Name)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return []string{"(none)"}
	}
	return names
}

// Resolve finds the model named name in the models folder (Dir), checks its
// file against the manifest's checksum, and returns the entry and the
// file's path.
func Resolve(name string) (Model, string, error) {
	dir, err := Dir()
	if err != nil {
		return Model{}, "", err
	}
	return ResolveIn(dir, name)
}

// ResolveIn is Resolve in the given models folder.
func ResolveIn(dir, name string) (Model, string, error) {
	m, err := Load(dir)
	if err != nil {
		return Model{}, "", err
	}
	e, err := m.Find(name)
	if err != nil {
		return Model{}, "", err
	}
	path := filepath.Join(dir, filepath.FromSlash(e.File))
	sum, err := FileSHA256(path)
	if err != nil {
		return Model{}, "", fmt.Errorf("model %s: %w", name, err)
	}
	if sum != e.SHA256 {
		return Model{}, "", fmt.Errorf("model %s: %s has SHA-256 %s, the manifest says %s (damaged or replaced; fetch it again)", name, path, sum, e.SHA256)
	}
	return e, path, nil
}

// FileSHA256 returns the lower-case hex SHA-256 of a file.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Prefix marks a model name where a file path is expected (init: model:go9).
const Prefix = "model:"

// Path returns the file a checkpoint reference names: a path as given, or,
// for "model:NAME", the shipped model's checked file.
func Path(ref string) (string, error) {
	if name, ok := strings.CutPrefix(ref, Prefix); ok {
		if name == "" {
			return "", errors.New("model: needs a name, e.g. model:go9")
		}
		_, p, err := Resolve(name)
		return p, err
	}
	return ref, nil
}
