//go:build amd64 && !noasm

#include "textflag.h"

// func bnStatsAVX(s1, s2 *float64, k, y *float32, rows, ld, n int)
// Per block of 16 channels (then 8), row after row: d = float64(y - k),
// s1 += d, s2 += d*d.
TEXT ·bnStatsAVX(SB), NOSPLIT, $0-56
	MOVQ s1+0(FP), DI
	MOVQ s2+8(FP), SI
	MOVQ k+16(FP), R8
	MOVQ y+24(FP), R9
	MOVQ rows+32(FP), R10
	MOVQ ld+40(FP), R11
	SHLQ $2, R11
	MOVQ n+48(FP), DX
	XORQ AX, AX

statsBlock16:
	MOVQ    DX, CX
	SUBQ    AX, CX
	CMPQ    CX, $16
	JLT     statsBlock
	VMOVUPD (DI)(AX*8), Y0
	VMOVUPD 32(DI)(AX*8), Y1
	VMOVUPD 64(DI)(AX*8), Y8
	VMOVUPD 96(DI)(AX*8), Y9
	VMOVUPD (SI)(AX*8), Y2
	VMOVUPD 32(SI)(AX*8), Y3
	VMOVUPD 64(SI)(AX*8), Y10
	VMOVUPD 96(SI)(AX*8), Y11
	LEAQ    (R9)(AX*4), BX
	MOVQ    R10, CX

statsRow16:
	VMOVUPS      (BX), Y5
	VSUBPS       (R8)(AX*4), Y5, Y5
	VMOVUPS      32(BX), Y12
	VSUBPS       32(R8)(AX*4), Y12, Y12
	VCVTPS2PD    X5, Y6
	VEXTRACTF128 $1, Y5, X7
	VCVTPS2PD    X7, Y7
	VCVTPS2PD    X12, Y13
	VEXTRACTF128 $1, Y12, X14
	VCVTPS2PD    X14, Y14
	VADDPD       Y6, Y0, Y0
	VADDPD       Y7, Y1, Y1
	VADDPD       Y13, Y8, Y8
	VADDPD       Y14, Y9, Y9
	VMULPD       Y6, Y6, Y6
	VMULPD       Y7, Y7, Y7
	VMULPD       Y13, Y13, Y13
	VMULPD       Y14, Y14, Y14
	VADDPD       Y6, Y2, Y2
	VADDPD       Y7, Y3, Y3
	VADDPD       Y13, Y10, Y10
	VADDPD       Y14, Y11, Y11
	ADDQ         R11, BX
	DECQ         CX
	JNZ          statsRow16
	VMOVUPD      Y0, (DI)(AX*8)
	VMOVUPD      Y1, 32(DI)(AX*8)
	VMOVUPD      Y8, 64(DI)(AX*8)
	VMOVUPD      Y9, 96(DI)(AX*8)
	VMOVUPD      Y2, (SI)(AX*8)
	VMOVUPD      Y3, 32(SI)(AX*8)
	VMOVUPD      Y10, 64(SI)(AX*8)
	VMOVUPD      Y11, 96(SI)(AX*8)
	ADDQ         $16, AX
	CMPQ         AX, DX
	JLT          statsBlock16
	VZEROUPPER
	RET

statsBlock:
	VMOVUPD (DI)(AX*8), Y0
	VMOVUPD 32(DI)(AX*8), Y1
	VMOVUPD (SI)(AX*8), Y2
	VMOVUPD 32(SI)(AX*8), Y3
	VMOVUPS (R8)(AX*4), Y4
	LEAQ    (R9)(AX*4), BX
	MOVQ    R10, CX

statsRow:
	VMOVUPS      (BX), Y5
	VSUBPS       Y4, Y5, Y5
	VCVTPS2PD    X5, Y6
	VEXTRACTF128 $1, Y5, X7
	VCVTPS2PD    X7, Y7
	VADDPD       Y6, Y0, Y0
	VADDPD       Y7, Y1, Y1
	VMULPD       Y6, Y6, Y6
	VMULPD       Y7, Y7, Y7
	VADDPD       Y6, Y2, Y2
	VADDPD       Y7, Y3, Y3
	ADDQ         R11, BX
	DECQ         CX
	JNZ          statsRow
	VMOVUPD      Y0, (DI)(AX*8)
	VMOVUPD      Y1, 32(DI)(AX*8)
	VMOVUPD      Y2, (SI)(AX*8)
	VMOVUPD      Y3, 32(SI)(AX*8)
	ADDQ         $8, AX
	CMPQ         AX, DX
	JLT          statsBlock16
	VZEROUPPER
	RET

// func bnApplyAVX(y, res, out *float32, rows, ld, n int, sc, sh *float32, mode int)
// out = y*sc + sh (mode 0); max(that, 0) (mode 1); max(res + y*sc + sh, 0)
// (mode 2). As Go's max(x, 0): a NaN stays NaN (VMAXPS returns its second
// source when either is NaN or both are zero), and adding +0 turns -0 into +0.
TEXT ·bnApplyAVX(SB), NOSPLIT, $0-72
	MOVQ   y+0(FP), R9
	MOVQ   res+8(FP), R10
	MOVQ   out+16(FP), DI
	MOVQ   rows+24(FP), CX
	MOVQ   ld+32(FP), R11
	SHLQ   $2, R11
	MOVQ   n+40(FP), DX
	MOVQ   sc+48(FP), R12
	MOVQ   sh+56(FP), R13
	MOVQ   mode+64(FP), BX
	VXORPS Y0, Y0, Y0
	CMPQ   BX, $1
	JEQ    applyReLU
	JGT    applyRes

applyPlain:
	XORQ AX, AX

applyPlainCol:
	VMOVUPS (R9)(AX*4), Y1
	VMULPS  (R12)(AX*4), Y1, Y1
	VADDPS  (R13)(AX*4), Y1, Y1
	VMOVUPS Y1, (DI)(AX*4)
	ADDQ    $8, AX
	CMPQ    AX, DX
	JLT     applyPlainCol
	ADDQ    R11, R9
	ADDQ    R11, DI
	DECQ    CX
	JNZ     applyPlain
	VZEROUPPER
	RET

applyReLU:
	XORQ AX, AX

applyReLUCol:
	VMOVUPS (R9)(AX*4), Y1
	VMULPS  (R12)(AX*4), Y1, Y1
	VADDPS  (R13)(AX*4), Y1, Y1
	VMAXPS  Y1, Y0, Y1
	VADDPS  Y0, Y1, Y1
	VMOVUPS Y1, (DI)(AX*4)
	ADDQ    $8, AX
	CMPQ    AX, DX
	JLT     applyReLUCol
	ADDQ    R11, R9
	ADDQ    R11, DI
	DECQ    CX
	JNZ     applyReLU
	VZEROUPPER
	RET

applyRes:
	XORQ AX, AX

applyResCol:
	VMOVUPS (R9)(AX*4), Y1
	VMULPS  (R12)(AX*4), Y1, Y1
	VADDPS  (R10)(AX*4), Y1, Y1
	VADDPS  (R13)(AX*4), Y1, Y1
	VMAXPS  Y1, Y0, Y1
	VADDPS  Y0, Y1, Y1
	VMOVUPS Y1, (DI)(AX*4)
	ADDQ    $8, AX
	CMPQ    AX, DX
	JLT     applyResCol
	ADDQ    R11, R9
	ADDQ    R11, R10
	ADDQ    R11, DI
	DECQ    CX
	JNZ     applyRes
	VZEROUPPER
	RET

// func bnBackSumsAVX(s1, s2 *float64, y, out, grad, mu, inv *float32, rows, ld, n int)
// Per block of 16 channels (then 8), row after row: grad *= (out > 0) when
// out is not nil, s1 += float64(grad), s2 += float64(grad*(y-mu)*inv).
TEXT ·bnBackSumsAVX(SB), NOSPLIT, $0-80
	MOVQ   s1+0(FP), DI
	MOVQ   s2+8(FP), SI
	MOVQ   y+16(FP), R8
	MOVQ   out+24(FP), R9
	MOVQ   grad+32(FP), R10
	MOVQ   mu+40(FP), R12
	MOVQ   inv+48(FP), R13
	MOVQ   ld+64(FP), R11
	SHLQ   $2, R11
	MOVQ   n+72(FP), DX
	VXORPS Y15, Y15, Y15
	XORQ   AX, AX

backBlock16:
	MOVQ    DX, CX
	SUBQ    AX, CX
	CMPQ    CX, $16
	JLT     backBlock
	VMOVUPD (DI)(AX*8), Y0
	VMOVUPD 32(DI)(AX*8), Y1
	VMOVUPD 64(DI)(AX*8), Y2
	VMOVUPD 96(DI)(AX*8), Y3
	VMOVUPD (SI)(AX*8), Y4
	VMOVUPD 32(SI)(AX*8), Y5
	VMOVUPD 64(SI)(AX*8), Y6
	VMOVUPD 96(SI)(AX*8), Y7
	LEAQ    (R8)(AX*4), BX
	LEAQ    (R10)(AX*4), R14
	MOVQ    rows+56(FP), CX
	TESTQ   R9, R9
	JZ      back16Row
	LEAQ    (R9)(AX*4), R15

back16RowMask:
	VMOVUPS (R15), Y8
	VCMPPS  $4, Y15, Y8, Y8 // out != 0: ReLU's derivative (out is >= 0)
	VANDPS  (R14), Y8, Y8
	VMOVUPS Y8, (R14)
	VMOVUPS 32(R15), Y9
	VCMPPS  $4, Y15, Y9, Y9
	VANDPS  32(R14), Y9, Y9
	VMOVUPS Y9, 32(R14)
	ADDQ    R11, R15
	JMP     back16RowSums

back16Row:
	VMOVUPS (R14), Y8
	VMOVUPS 32(R14), Y9

back16RowSums:
	VCVTPS2PD    X8, Y10
	VEXTRACTF128 $1, Y8, X11
	VCVTPS2PD    X11, Y11
	VADDPD       Y10, Y0, Y0
	VADDPD       Y11, Y1, Y1
	VCVTPS2PD    X9, Y10
	VEXTRACTF128 $1, Y9, X11
	VCVTPS2PD    X11, Y11
	VADDPD       Y10, Y2, Y2
	VADDPD       Y11, Y3, Y3
	VMOVUPS      (BX), Y12
	VSUBPS       (R12)(AX*4), Y12, Y12
	VMULPS       Y12, Y8, Y12
	VMULPS       (R13)(AX*4), Y12, Y12
	VMOVUPS      32(BX), Y13
	VSUBPS       32(R12)(AX*4), Y13, Y13
	VMULPS       Y13, Y9, Y13
	VMULPS       32(R13)(AX*4), Y13, Y13
	VCVTPS2PD    X12, Y10
	VEXTRACTF128 $1, Y12, X11
	VCVTPS2PD    X11, Y11
	VADDPD       Y10, Y4, Y4
	VADDPD       Y11, Y5, Y5
	VCVTPS2PD    X13, Y10
	VEXTRACTF128 $1, Y13, X11
	VCVTPS2PD    X11, Y11
	VADDPD       Y10, Y6, Y6
	VADDPD       Y11, Y7, Y7
	ADDQ         R11, BX
	ADDQ         R11, R14
	DECQ         CX
	JZ           back16Done
	TESTQ        R9, R9
	JZ           back16Row
	JMP          back16RowMask

back16Done:
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	VMOVUPD Y2, 64(DI)(AX*8)
	VMOVUPD Y3, 96(DI)(AX*8)
	VMOVUPD Y4, (SI)(AX*8)
	VMOVUPD Y5, 32(SI)(AX*8)
	VMOVUPD Y6, 64(SI)(AX*8)
	VMOVUPD Y7, 96(SI)(AX*8)
	ADDQ    $16, AX
	CMPQ    AX, DX
	JLT     backBlock16
	VZEROUPPER
	RET

backBlock:
	VMOVUPD (DI)(AX*8), Y0
	VMOVUPD 32(DI)(AX*8), Y1
	VMOVUPD (SI)(AX*8), Y2
	VMOVUPD 32(SI)(AX*8), Y3
	VMOVUPS (R12)(AX*4), Y4
	VMOVUPS (R13)(AX*4), Y5
	LEAQ    (R8)(AX*4), BX
	LEAQ    (R10)(AX*4), R14
	MOVQ    rows+56(FP), CX
	TESTQ   R9, R9
	JZ      backRow
	LEAQ    (R9)(AX*4), R15

backRowMask:
	VMOVUPS (R15), Y7
	VCMPPS  $4, Y15, Y7, Y7 // out != 0: ReLU's derivative (out is >= 0)
	VANDPS  (R14), Y7, Y6
	VMOVUPS Y6, (R14)
	ADDQ    R11, R15
	JMP     backRowSums

backRow:
	VMOVUPS (R14), Y6

backRowSums:
	VCVTPS2PD    X6, Y8
	VEXTRACTF128 $1, Y6, X9
	VCVTPS2PD    X9, Y9
	VADDPD       Y8, Y0, Y0
	VADDPD       Y9, Y1, Y1
	VMOVUPS      (BX), Y10
	VSUBPS       Y4, Y10, Y10
	VMULPS       Y10, Y6, Y10
	VMULPS       Y5, Y10, Y10
	VCVTPS2PD    X10, Y11
	VEXTRACTF128 $1, Y10, X12
	VCVTPS2PD    X12, Y12
	VADDPD       Y11, Y2, Y2
	VADDPD       Y12, Y3, Y3
	ADDQ         R11, BX
	ADDQ         R11, R14
	DECQ         CX
	JZ           backBlockDone
	TESTQ        R9, R9
	JZ           backRow
	JMP          backRowMask

backBlockDone:
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	VMOVUPD Y2, (SI)(AX*8)
	VMOVUPD Y3, 32(SI)(AX*8)
	ADDQ    $8, AX
	CMPQ    AX, DX
	JLT     backBlock16
	VZEROUPPER
	RET

// func bnBackApplyAVX(dy, grad, y, ga, gb, gc *float32, rows, ld, n int)
// dy = ga*g + gb*y + gc, in that order, without fused multiply-adds.
TEXT ·bnBackApplyAVX(SB), NOSPLIT, $0-72
	MOVQ dy+0(FP), DI
	MOVQ grad+8(FP), R8
	MOVQ y+16(FP), R9
	MOVQ ga+24(FP), R12
	MOVQ gb+32(FP), R13
	MOVQ gc+40(FP), R14
	MOVQ rows+48(FP), CX
	MOVQ ld+56(FP), R11
	SHLQ $2, R11
	MOVQ n+64(FP), DX

backApplyRow:
	XORQ AX, AX

backApplyCol:
	VMOVUPS (R8)(AX*4), Y1
	VMULPS  (R12)(AX*4), Y1, Y1
	VMOVUPS (R9)(AX*4), Y2
	VMULPS  (R13)(AX*4), Y2, Y2
	VADDPS  Y2, Y1, Y1
	VADDPS  (R14)(AX*4), Y1, Y1
	VMOVUPS Y1, (DI)(AX*4)
	ADDQ    $8, AX
	CMPQ    AX, DX
	JLT     backApplyCol
	ADDQ    R11, DI
	ADDQ    R11, R8
	ADDQ    R11, R9
	DECQ    CX
	JNZ     backApplyRow
	VZEROUPPER
	RET

// func reluMaskSumAVX(grad, out, sum *float32, rows, ld, n int)
// Per block of 8 channels, row after row: grad *= (out > 0), sum += grad
// (float32, in row order).
TEXT ·reluMaskSumAVX(SB), NOSPLIT, $0-48
	MOVQ   grad+0(FP), R8
	MOVQ   out+8(FP), R9
	MOVQ   sum+16(FP), DI
	MOVQ   ld+32(FP), R11
	SHLQ   $2, R11
	MOVQ   n+40(FP), DX
	VXORPS Y15, Y15, Y15
	XORQ   AX, AX

maskBlock:
	VMOVUPS (DI)(AX*4), Y0
	LEAQ    (R8)(AX*4), BX
	LEAQ    (R9)(AX*4), R10
	MOVQ    rows+24(FP), CX

maskRow:
	VMOVUPS (R10), Y1
	VCMPPS  $4, Y15, Y1, Y1 // out != 0: ReLU's derivative (out is >= 0)
	VANDPS  (BX), Y1, Y1
	VMOVUPS Y1, (BX)
	VADDPS  Y1, Y0, Y0
	ADDQ    R11, BX
	ADDQ    R11, R10
	DECQ    CX
	JNZ     maskRow
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ    $8, AX
	CMPQ    AX, DX
	JLT     maskBlock
	VZEROUPPER
	RET
