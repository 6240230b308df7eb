//go:build amd64 && !noasm

#include "textflag.h"

// func biasReLURowsAVX(x *float32, rows int, bias *float32, n int)
TEXT ·biasReLURowsAVX(SB), NOSPLIT, $0-32
	MOVQ   x+0(FP), DI
	MOVQ   rows+8(FP), CX
	MOVQ   bias+16(FP), SI
	MOVQ   n+24(FP), DX
	VXORPS Y0, Y0, Y0
	TESTQ  CX, CX
	JLE    done

row:
	XORQ AX, AX

col:
	VMOVUPS (DI)(AX*4), Y1
	VADDPS  (SI)(AX*4), Y1, Y1
	VMAXPS  Y0, Y1, Y1
	VMOVUPS Y1, (DI)(AX*4)
	ADDQ    $8, AX
	CMPQ    AX, DX
	JLT     col
	LEAQ    (DI)(DX*4), DI
	DECQ    CX
	JNZ     row

done:
	VZEROUPPER
	RET

// func im2colRuns(dst, src *byte, ops *copyOp, nops int, shift int)
//
// For each op: copy op.n<<shift bytes from src+op.src<<shift to
// dst+op.dst<<shift, 64 bytes at a time: every op's length must be a
// positive multiple of 64 bytes.
TEXT ·im2colRuns(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ops+16(FP), R8
	MOVQ nops+24(FP), R9
	MOVQ shift+32(FP), CX
	TESTQ R9, R9
	JLE  runsdone

runsop:
	MOVLQSX 0(R8), AX
	MOVLQSX 4(R8), BX
	MOVLQSX 8(R8), DX
	SHLQ    CX, AX
	SHLQ    CX, BX
	SHLQ    CX, DX
	ADDQ    DI, AX
	ADDQ    SI, BX

runschunk:
	VMOVDQU64 (BX), Z0
	VMOVDQU64 Z0, (AX)
	ADDQ      $64, AX
	ADDQ      $64, BX
	SUBQ      $64, DX
	JG        runschunk
	ADDQ      $12, R8
	DECQ      R9
	JNZ       runsop

runsdone:
	VZEROUPPER
	RET

// func im2colRuns32(dst, src *byte, ops *copyOp, nops int, shift int)
//
// im2colRuns with 32-byte AVX moves: every op's length must be a positive
// multiple of 32 bytes.
TEXT ·im2colRuns32(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ops+16(FP), R8
	MOVQ nops+24(FP), R9
	MOVQ shift+32(FP), CX
	TESTQ R9, R9
	JLE  runs32done

runs32op:
	MOVLQSX 0(R8), AX
	MOVLQSX 4(R8), BX
	MOVLQSX 8(R8), DX
	SHLQ    CX, AX
	SHLQ    CX, BX
	SHLQ    CX, DX
	ADDQ    DI, AX
	ADDQ    SI, BX

runs32chunk:
	VMOVDQU (BX), Y0
	VMOVDQU Y0, (AX)
	ADDQ    $32, AX
	ADDQ    $32, BX
	SUBQ    $32, DX
	JG      runs32chunk
	ADDQ    $12, R8
	DECQ    R9
	JNZ     runs32op

runs32done:
	VZEROUPPER
	RET

// func im2colRuns16(dst, src *byte, ops *copyOp, nops int, shift int)
//
// im2colRuns with 16-byte SSE2 moves: every op's length must be a positive
// multiple of 16 bytes.
TEXT ·im2colRuns16(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ops+16(FP), R8
	MOVQ nops+24(FP), R9
	MOVQ shift+32(FP), CX
	TESTQ R9, R9
	JLE  runs16done

runs16op:
	MOVLQSX 0(R8), AX
	MOVLQSX 4(R8), BX
	MOVLQSX 8(R8), DX
	SHLQ    CX, AX
	SHLQ    CX, BX
	SHLQ    CX, DX
	ADDQ    DI, AX
	ADDQ    SI, BX

runs16chunk:
	MOVOU (BX), X0
	MOVOU X0, (AX)
	ADDQ  $16, AX
	ADDQ  $16, BX
	SUBQ  $16, DX
	JG    runs16chunk
	ADDQ  $12, R8
	DECQ  R9
	JNZ   runs16op

runs16done:
	RET
