// Command checkmodel measures a shipped network again: it checks the
// model's file against the manifest's SHA-256 (models/manifest.json), prints
// the claim the manifest records, and runs the manifest's arena command for
// it, whose output is set beside the claim.
//
//	go run ./scripts/checkmodel go9         # one model
//	go run ./scripts/checkmodel -list       # the manifest's models and claims
//	go run ./scripts/checkmodel -n go9      # print the arena command only
//
// "{model}" in the manifest's command stands for net:model=NAME. The arena
// runs as `go run ./cmd/arena` from the clone's root (the models folder's
// parent), unless -arena names a built binary.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"tabula/nn/models"
)

func main() {
	list := flag.Bool("list", false, "list the manifest's models and their claims")
	dry := flag.Bool("n", false, "print the arena command without running it")
	arena := flag.String("arena", "", "an arena binary (default: go run ./cmd/arena from the clone's root)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: checkmodel [-n] [-arena BIN] NAME | -list")
		flag.PrintDefaults()
	}
	flag.Parse()
	if err := run(*list, *dry, *arena, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "checkmodel:", err)
		os.Exit(1)
	}
}

func run(list, dry bool, arena string, args []string) error {
	dir, err := models.Dir()
	if err != nil {
		return err
	}
	m, err := models.Load(dir)
	if err != nil {
		return err
	}
	if list {
		if len(m.Models) == 0 {
			fmt.Printf("%s lists no models\n", filepath.Join(dir, models.ManifestFile))
		}
		for _, e := range m.Models {
			fmt.Printf("%-12s %-12s %s (%s, %s)\n", e.Name, e.Game, e.Result, e.Config, e.Date)
		}
		return nil
	}
	if len(args) != 1 {
		return fmt.Errorf("name one model (the manifest has: %s)", strings.Join(m.Names(), ", "))
	}
	e, _, err := models.ResolveIn(dir, args[0])
	if err != nil {
		return err
	}
	argv := make([]string, len(e.Check))
	for i, a := range e.Check {
		argv[i] = strings.ReplaceAll(a, "{model}", "net:model="+e.Name)
	}
	name, cmdArgs := arena, argv
	if name == "" {
		name, cmdArgs = "go", append([]string{"run", "./cmd/arena"}, argv...)
	}
	fmt.Printf("model %s (%s): %s\nclaim: %s\ntrained: %s, %s, on %s\n", e.Name, e.Game, e.SHA256[:12], e.Result, e.Command, e.Date, e.Machine)
	fmt.Printf("command: %s %s\n", name, shellQuote(cmdArgs))
	if dry {
		return nil
	}
	cmd := exec.Command(name, cmdArgs...)
	cmd.Dir = filepath.Dir(dir)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), models.EnvDir+"="+dir)
	return cmd.Run()
}

// shellQuote writes args as a shell would need them.
func shellQuote(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t'\"$\\*?;&|<>(){}") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}
