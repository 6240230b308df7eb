//go:build amd64 && !noasm

#include "textflag.h"

// func Lines(p unsafe.Pointer, n uintptr)
// PREFETCHT0 on each 64-byte line of the n bytes at p: a hint, which
// neither waits for the lines nor faults on a bad address.
TEXT ·Lines(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	ADDQ AX, CX
	ANDQ $~63, AX // from the line p is in
loop:
	CMPQ AX, CX
	JAE  done
	PREFETCHT0 (AX)
	ADDQ $64, AX
	JMP  loop
done:
	RET
