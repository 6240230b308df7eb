// Package kernelcensus lets a package's tests report which CPU kernels they
// ran, and fail when a kernel that this CPU and build support was not run.
// The CPU's features come from CPUID (golang.org/x/sys/cpu), not from the
// tested package's own dispatch, so a dispatch that stops choosing a kernel
// fails too.
//
// Use it from TestMain:
//
//	var census = kernelcensus.New("gemm", asmBuild, kernels...)
//
//	func TestMain(m *testing.M) { os.Exit(census.Finish(os.Stdout, m.Run())) }
//
// and call census.Ran(family, name) where a test checked results computed
// with a kernel.
package kernelcensus

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"golang.org/x/sys/cpu"
)

// Feature is a CPU feature a kernel needs, and whether this CPU has it.
type Feature struct {
	Name string
	Has  bool
}

// The x86 features the kernels of this module need.
var (
	AVX2       = Feature{"AVX2", cpu.X86.HasAVX2}
	FMA        = Feature{"FMA", cpu.X86.HasFMA}
	AVX512F    = Feature{"AVX512F", cpu.X86.HasAVX512F}
	AVX512BW   = Feature{"AVX512BW", cpu.X86.HasAVX512BW}
	AVX512BF16 = Feature{"AVX512_BF16", cpu.X86.HasAVX512BF16}
	AVX512VNNI = Feature{"AVX512_VNNI", cpu.X86.HasAVX512VNNI}
)

// Kernel is one kernel of a family (e.g. family "lowp", name "avx512"):
// Asm says it exists only in the assembly build, Needs the CPU features it
// runs on.
type Kernel struct {
	Family, Name string
	Asm          bool
	Needs        []Feature
}

func (k Kernel) String() string { return k.Family + " " + k.Name }

// Census records which kernels a package's tests ran.
type Census struct {
	pkg      string
	asmBuild bool
	kernels  []Kernel

	mu  sync.Mutex
	ran map[string]bool
}

// New returns a census of kernels for the tests of package pkg; asmBuild
// says whether this build has the package's assembly.
func New(pkg string, asmBuild bool, kernels ...Kernel) *Census {
	return &Census{pkg: pkg, asmBuild: asmBuild, kernels: kernels, ran: map[string]bool{}}
}

// Ran records that a test checked results computed with a kernel.
func (c *Census) Ran(family, name string) {
	c.mu.Lock()
	c.ran[family+" "+name] = true
	c.mu.Unlock()
}

// missing returns why this CPU or build cannot run k, or "" if it can.
func (c *Census) missing(k Kernel) string {
	if k.Asm && !c.asmBuild {
		return "this build has no assembly (not amd64, or the noasm tag)"
	}
	var lacks []string
	for _, f := range k.Needs {
		if !f.Has {
			lacks = append(lacks, f.Name)
		}
	}
	if len(lacks) > 0 {
		return "this CPU lacks " + strings.Join(lacks, ", ")
	}
	return ""
}

// Finish writes to w a line listing the kernels the tests ran and one
// listing those they did not, with the reason, and returns the exit code
// of the test binary: code, or 1 if a kernel this CPU and build support was
// not run while another kernel of its family was (so its tests ran, but
// without it).
func (c *Census) Finish(w io.Writer, code int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	familyRan := map[string]bool{}
	for _, k := range c.kernels {
		if c.ran[k.String()] {
			familyRan[k.Family] = true
		}
	}
	var ran, notRun, failures []string
	for _, k := range c.kernels {
		switch why := c.missing(k); {
		case c.ran[k.String()]:
			ran = append(ran, k.String())
		case why != "":
			notRun = append(notRun, k.String()+" ("+why+")")
		case familyRan[k.Family]:
			notRun = append(notRun, k.String()+" (NOT RUN, though this CPU and build support it)")
			failures = append(failures, k.String())
		default:
			notRun = append(notRun, k.String()+" (no test of its family ran)")
		}
	}
	list := func(s []string) string {
		if len(s) == 0 {
			return "none"
		}
		return strings.Join(s, ", ")
	}
	fmt.Fprintf(w, "kernels run by %s tests: %s\n", c.pkg, list(ran))
	fmt.Fprintf(w, "kernels not run by %s tests: %s\n", c.pkg, list(notRun))
	if len(failures) > 0 {
		fmt.Fprintf(w, "FAIL: %s: the tests did not run %s, which this CPU and build support\n", c.pkg, strings.Join(failures, ", "))
		return 1
	}
	return code
}
