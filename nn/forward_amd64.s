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

// func sigmoidAVX2(x *float32, n int)
//
// sigmoidGeneric in 8 lanes: y = clamp(-x, -87, 87), n = round(y log2 e),
// r = y - n ln2Hi - n ln2Lo, p = the Taylor series of e^r to r^6 (Horner),
// x = 1/(1 + p 2^n).
TEXT ·sigmoidAVX2(SB), NOSPLIT, $0-16
	MOVQ x+0(FP), DI
	MOVQ n+8(FP), CX
	MOVL $0x42ae0000, AX       // 87
	VMOVD AX, X2
	VBROADCASTSS X2, Y2
	MOVL $0xc2ae0000, AX       // -87
	VMOVD AX, X3
	VBROADCASTSS X3, Y3
	MOVL $0x3fb8aa3b, AX       // log2(e)
	VMOVD AX, X4
	VBROADCASTSS X4, Y4
	MOVL $0x3f317200, AX       // ln2Hi
	VMOVD AX, X5
	VBROADCASTSS X5, Y5
	MOVL $0x35bfbe8e, AX       // ln2Lo
	VMOVD AX, X6
	VBROADCASTSS X6, Y6
	MOVL $0x3f800000, AX       // 1
	VMOVD AX, X7
	VBROADCASTSS X7, Y7
	MOVL $0x3f000000, AX       // 1/2
	VMOVD AX, X8
	VBROADCASTSS X8, Y8
	MOVL $0x3e2aaaab, AX       // 1/6
	VMOVD AX, X9
	VBROADCASTSS X9, Y9
	MOVL $0x3d2aaaab, AX       // 1/24
	VMOVD AX, X10
	VBROADCASTSS X10, Y10
	MOVL $0x3c088889, AX       // 1/120
	VMOVD AX, X11
	VBROADCASTSS X11, Y11
	MOVL $0x3ab60b61, AX       // 1/720
	VMOVD AX, X12
	VBROADCASTSS X12, Y12
	MOVL $127, AX              // the exponent bias
	VMOVD AX, X13
	VPBROADCASTD X13, Y13
	MOVL $0x80000000, AX       // the sign bit
	VMOVD AX, X14
	VBROADCASTSS X14, Y14

sigloop:
	VMOVUPS      (DI), Y0
	VXORPS       Y14, Y0, Y0       // y = -x
	VMINPS       Y2, Y0, Y0
	VMAXPS       Y3, Y0, Y0
	VMULPS       Y4, Y0, Y1
	VROUNDPS     $0, Y1, Y1        // n, to nearest even
	VFNMADD231PS Y5, Y1, Y0        // y - n ln2Hi
	VFNMADD231PS Y6, Y1, Y0        // r
	VMOVAPS      Y12, Y15
	VFMADD213PS  Y11, Y0, Y15
	VFMADD213PS  Y10, Y0, Y15
	VFMADD213PS  Y9, Y0, Y15
	VFMADD213PS  Y8, Y0, Y15
	VFMADD213PS  Y7, Y0, Y15
	VFMADD213PS  Y7, Y0, Y15       // e^r
	VCVTPS2DQ    Y1, Y1
	VPADDD       Y13, Y1, Y1
	VPSLLD       $23, Y1, Y1       // 2^n
	VMULPS       Y1, Y15, Y15
	VADDPS       Y7, Y15, Y15
	VDIVPS       Y15, Y7, Y15      // 1/(1 + e^y)
	VMOVUPS      Y15, (DI)
	ADDQ         $32, DI
	SUBQ         $8, CX
	JNZ          sigloop
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
