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
