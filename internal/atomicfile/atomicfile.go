// Package atomicfile writes files so that a reader (or a restart after a
// crash or kill -9) sees either the old contents or the new, never a mix.
package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// TempSuffix ends the name of every temporary file Write creates; a process
// that was killed may leave such files behind, and RemoveStaleTemps cleans
// them.
const TempSuffix = ".tmp"

// StaleAge is the age after which RemoveStaleTemps takes any temporary file
// for abandoned, whoever wrote it: a write takes milliseconds, not an hour.
const StaleAge = time.Hour

// owner names this process in its temporary files: "." + base + "." + owner
// + "." + random + TempSuffix, owner being "<host>-p<pid>". Several
// processes can share a folder (a trainer and self-play workers share a run
// folder), and each must leave the others' half-written files alone.
var owner = func() string {
	host, _ := os.Hostname()
	return sanitizeHost(host) + "-p" + strconv.Itoa(os.Getpid())
}()

// sanitizeHost keeps letters, digits and '-' of a host name, so that it
// cannot be confused with the dots that separate the parts of a temp name.
func sanitizeHost(h string) string {
	b := []byte(h)
	for i, c := range b {
		if !(c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "host"
	}
	return string(b)
}

// Write writes data to path atomically: a temporary file in the same folder,
// fsync, rename over path, fsync of the folder (on Windows, a rename that
// returns once it is on disk instead).
func Write(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+"."+owner+".*"+TempSuffix)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write %s: fsync: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	ok = true
	return SyncDir(dir)
}

// TempOwner returns the host and process id that wrote a temporary file
// named name, and false for a name Write did not make (or an older format).
func TempOwner(name string) (host string, pid int, ok bool) {
	if !strings.HasPrefix(name, ".") || !strings.HasSuffix(name, TempSuffix) {
		return "", 0, false
	}
	rest := strings.TrimSuffix(name, TempSuffix)
	i := strings.LastIndexByte(rest, '.') // before the random part
	if i < 0 {
		return "", 0, false
	}
	rest = rest[:i]
	i = strings.LastIndexByte(rest, '.') // before the owner
	if i < 0 {
		return "", 0, false
	}
	own := rest[i+1:]
	j := strings.LastIndex(own, "-p")
	if j <= 0 {
		return "", 0, false
	}
	pid, err := strconv.Atoi(own[j+2:])
	if err != nil || pid <= 0 {
		return "", 0, false
	}
	return own[:j], pid, true
}

// RemoveStaleTemps deletes the temporary files in dir that an interrupted
// Write left behind, and only those: files written by a process of this host
// that no longer exists, and any temporary file older than StaleAge. Files
// that a live process is writing (this one included) are left alone, so that
// processes sharing a folder never delete each other's writes in flight. It
// returns how many files it removed.
func RemoveStaleTemps(dir string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	myHost, _, _ := TempOwner(".x." + owner + ".r" + TempSuffix)
	n := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasPrefix(name, ".") || !strings.HasSuffix(name, TempSuffix) {
			continue
		}
		stale := false
		if host, pid, ok := TempOwner(name); ok && host == myHost && !processAlive(pid) {
			stale = true
		} else if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > StaleAge {
			stale = true
		}
		if !stale {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return n, err
		}
		n++
	}
	return n, nil
}
