package nn

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// PeekCheckpointGame reads only the header of the checkpoint at path and
// returns the game it was made for, without reading or checking the weights
// (LoadCheckpoint does that). It lets a front end list many checkpoints
// cheaply.
func PeekCheckpointGame(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("checkpoint %s: %w", path, err)
	}
	defer f.Close()
	var head [24]byte
	if _, err := io.ReadFull(f, head[:]); err != nil {
		return "", fmt.Errorf("checkpoint %s: header: %w", path, err)
	}
	if !bytes.Equal(head[:8], checkpointMagic[:]) {
		return "", fmt.Errorf("checkpoint %s: not a tabula checkpoint", path)
	}
	if v := binary.LittleEndian.Uint32(head[8:]); v != checkpointVersionPlain && v != CheckpointVersion {
		return "", fmt.Errorf("checkpoint %s: format version %d, want %d or %d", path, v, checkpointVersionPlain, CheckpointVersion)
	}
	n := binary.LittleEndian.Uint32(head[20:])
	if n > maxNameLen {
		return "", fmt.Errorf("checkpoint %s: game name length %d exceeds %d", path, n, maxNameLen)
	}
	name := make([]byte, n)
	if _, err := io.ReadFull(f, name); err != nil {
		return "", fmt.Errorf("checkpoint %s: game name: %w", path, err)
	}
	return string(name), nil
}
