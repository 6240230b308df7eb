package atomicfile

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

func TestWriteReplacesAndCleans(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.bin")
	for _, s := range []string{"first", "second, longer"} {
		if err := Write(p, []byte(s)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != s {
			t.Fatalf("read back %q, %v; want %q", got, err, s)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "f.bin" {
		t.Fatalf("folder holds %v, want only f.bin", entries)
	}
	if err := Write(filepath.Join(dir, "missing", "x"), nil); err == nil {
		t.Fatal("Write into a missing folder succeeded")
	}
}

// TestRemoveStaleTempsKeepsLiveWriters: processes share folders, so only the
// temp files of dead processes (or very old ones) may be removed, never a
// live process's write in flight.
func TestRemoveStaleTempsKeepsLiveWriters(t *testing.T) {
	dir := t.TempDir()
	// A finished process's pid: its temp files are abandoned.
	dead := exitedPid(t)
	host, _, ok := TempOwner(".x." + owner + ".1" + TempSuffix)
	if !ok {
		t.Fatalf("TempOwner cannot parse this process's own temp names (owner %q)", owner)
	}
	mine := ".ckpt-000001.tbn." + owner + ".123" + TempSuffix
	parent := ".chunk-1-train-000001.tbr." + host + "-p" + strconv.Itoa(os.Getppid()) + ".9" + TempSuffix
	gone := ".best." + host + "-p" + strconv.Itoa(dead) + ".77" + TempSuffix
	otherHost := ".best.elsewhere-p" + strconv.Itoa(dead) + ".5" + TempSuffix
	legacy := ".f.bin.123" + TempSuffix
	oldLegacy := ".g.bin.456" + TempSuffix
	for _, n := range []string{mine, parent, gone, otherHost, legacy, oldLegacy, "keep.bin"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * StaleAge)
	os.Chtimes(filepath.Join(dir, oldLegacy), old, old)
	n, err := RemoveStaleTemps(dir)
	if err != nil || n != 2 {
		t.Fatalf("RemoveStaleTemps = %d, %v; want 2 (the dead process's and the old one)", n, err)
	}
	for _, name := range []string{mine, parent, otherHost, legacy, "keep.bin"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s was removed: %v", name, err)
		}
	}
	for _, name := range []string{gone, oldLegacy} {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("stale %s was kept", name)
		}
	}
}

func TestTempOwnerOfWrite(t *testing.T) {
	for _, c := range []struct {
		name string
		ok   bool
		pid  int
	}{
		{".ckpt-000046.tbn.box-1-p4242.1234567" + TempSuffix, true, 4242},
		{".a.b.c.tbn.h-p7.1" + TempSuffix, true, 7},
		{".f.bin.123" + TempSuffix, false, 0},
		{".f.bin.h-px.1" + TempSuffix, false, 0},
		{"f.bin.h-p1.1" + TempSuffix, false, 0},
		{".f.bin.h-p1.1", false, 0},
	} {
		_, pid, ok := TempOwner(c.name)
		if ok != c.ok || pid != c.pid {
			t.Errorf("TempOwner(%q) = %d, %v; want %d, %v", c.name, pid, ok, c.pid, c.ok)
		}
	}
}

// exitedPid runs this test binary with no tests to run, waits for it to
// exit, and returns its process id: a pid that is no longer alive, on every
// OS.
func exitedPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestProcessAlive: this process and its parent are alive, an exited child
// is not.
func TestProcessAlive(t *testing.T) {
	if !processAlive(os.Getpid()) {
		t.Error("this process reported dead")
	}
	if !processAlive(os.Getppid()) {
		t.Error("the parent process reported dead")
	}
	if pid := exitedPid(t); processAlive(pid) {
		t.Errorf("exited process %d reported alive", pid)
	}
}
