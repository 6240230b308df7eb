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

// func seApplyRowsAVX(x, v *float32, rows int, scale, bias *float32, n int)
TEXT ·seApplyRowsAVX(SB), NOSPLIT, $0-48
	MOVQ   x+0(FP), DI
	MOVQ   v+8(FP), R8
	MOVQ   rows+16(FP), CX
	MOVQ   scale+24(FP), SI
	MOVQ   bias+32(FP), R9
	MOVQ   n+40(FP), DX
	VXORPS Y0, Y0, Y0
	TESTQ  CX, CX
	JLE    sedone

serow:
	XORQ AX, AX

secol:
	VMOVUPS (R8)(AX*4), Y1
	VMULPS  (SI)(AX*4), Y1, Y1
	VADDPS  (DI)(AX*4), Y1, Y1
	VADDPS  (R9)(AX*4), Y1, Y1
	VMAXPS  Y0, Y1, Y1
	VMOVUPS Y1, (DI)(AX*4)
	ADDQ    $8, AX
	CMPQ    AX, DX
	JLT     secol
	LEAQ    (DI)(DX*4), DI
	LEAQ    (R8)(DX*4), R8
	DECQ    CX
	JNZ     serow

sedone:
	VZEROUPPER
	RET

// func colSumRowsAVX(sum, x *float32, rows, n int)
//
// For each block of 8 columns: add the rows down the block in two
// accumulators (even and odd rows), then store their sum.
TEXT ·colSumRowsAVX(SB), NOSPLIT, $0-32
	MOVQ sum+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ rows+16(FP), CX
	MOVQ n+24(FP), DX
	LEAQ (DX*4), R10          // row stride in bytes
	XORQ AX, AX               // column

csblock:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	LEAQ   (SI)(AX*4), R8     // this block's first row
	MOVQ   CX, BX

cspair:
	CMPQ    BX, $2
	JLT     cstail
	VADDPS  (R8), Y0, Y0
	VADDPS  (R8)(R10*1), Y1, Y1
	LEAQ    (R8)(R10*2), R8
	SUBQ    $2, BX
	JMP     cspair

cstail:
	TESTQ   BX, BX
	JEQ     csstore
	VADDPS  (R8), Y0, Y0

csstore:
	VADDPS  Y1, Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ    $8, AX
	CMPQ    AX, DX
	JLT     csblock
	VZEROUPPER
	RET

// func im2colRuns(dst, src *byte, ops *copyOp, nops int, shift int, width int)
//
// For each op: copy op.n<<shift bytes from src+op.src<<shift to
// dst+op.dst<<shift, width bytes at a time (64: AVX-512, 32: AVX, else 16:
// SSE2): every op's length must be a positive multiple of width.
TEXT ·im2colRuns(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ops+16(FP), R8
	MOVQ nops+24(FP), R9
	MOVQ shift+32(FP), CX
	MOVQ width+40(FP), R10
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
	CMPQ    R10, $64
	JEQ     runs64
	CMPQ    R10, $32
	JEQ     runs32

runs16:
	MOVOU (BX), X0
	MOVOU X0, (AX)
	ADDQ  $16, AX
	ADDQ  $16, BX
	SUBQ  $16, DX
	JG    runs16
	JMP   runsnext

runs32:
	VMOVDQU (BX), Y0
	VMOVDQU Y0, (AX)
	ADDQ    $32, AX
	ADDQ    $32, BX
	SUBQ    $32, DX
	JG      runs32
	JMP     runsnext

runs64:
	VMOVDQU64 (BX), Z0
	VMOVDQU64 Z0, (AX)
	ADDQ      $64, AX
	ADDQ      $64, BX
	SUBQ      $64, DX
	JG        runs64

runsnext:
	ADDQ $12, R8
	DECQ R9
	JNZ  runsop

runsdone:
	CMPQ R10, $16
	JLE  runsret      // SSE2 only: no AVX state to clear (and no VZEROUPPER without AVX)
	VZEROUPPER

runsret:
	RET
