//go:build amd64 && !noasm

#include "textflag.h"

// func flipsAVX512(sq int, p, o uint64) uint64
//
// flipsGeneric with its eight rays in the lanes of one register: lanes 0-3
// hold the rays towards higher bits (rays[sq][0..3]), lanes 4-7 those towards
// lower bits. Both formulas are computed in every lane, each lane keeps its
// own, and the lanes are ORed together.
TEXT ·flipsAVX512(SB), NOSPLIT, $0-32
	MOVQ sq+0(FP), AX
	ANDQ $63, AX
	MOVQ $1, BX
	MOVQ AX, CX
	SHLQ CX, BX               // x = 1 << sq
	SHLQ $6, AX               // 64 bytes of rays a square
	LEAQ ·rays(SB), DX
	VMOVDQU64 (DX)(AX*1), Z0  // m: the rays
	VPBROADCASTQ p+8(FP), Z1  // p
	VPBROADCASTQ o+16(FP), Z2 // o
	VPBROADCASTQ BX, Z3       // x
	MOVQ $1, BX
	VPBROADCASTQ BX, Z4       // 1 in every lane
	VPTERNLOGQ $0xff, Z5, Z5, Z5 // all ones

	// Upward: out = ((o | ^m) + (m & -m)) & m & p; flips = (out - (out != 0)) & m.
	VPXORQ Z5, Z0, Z6         // ^m
	VPORQ Z2, Z6, Z6          // o | ^m
	VPXORQ Z7, Z7, Z7
	VPSUBQ Z0, Z7, Z7         // -m
	VPANDQ Z0, Z7, Z7         // m & -m
	VPADDQ Z7, Z6, Z6
	VPANDQ Z0, Z6, Z6
	VPANDQ Z1, Z6, Z6         // out
	VPTESTMQ Z6, Z6, K1       // out != 0
	VPSUBQ Z4, Z6, K1, Z6     // out - 1 where out != 0
	VPANDQ Z0, Z6, Z6         // upward flips

	// Downward: out = (1<<63 >> lzcnt(m &^ o)) & m & p; flips = (x - out<<1) & m.
	VPANDNQ Z0, Z2, Z8        // m &^ o
	VPLZCNTQ Z8, Z8
	VPSLLQ $63, Z4, Z9        // 1 << 63
	VPSRLVQ Z8, Z9, Z9        // 1<<63 >> lzcnt (0 when the count is 64)
	VPANDQ Z0, Z9, Z9
	VPANDQ Z1, Z9, Z9         // out
	VPSLLQ $1, Z9, Z9
	VPSUBQ Z9, Z3, Z9         // x - out<<1
	VPANDQ Z0, Z9, Z9         // downward flips

	// Lanes 0-3 take the upward flips; then OR the eight lanes.
	MOVQ $0x0f, BX
	KMOVB BX, K2
	VMOVDQA64 Z6, K2, Z9
	VEXTRACTI64X4 $1, Z9, Y10
	VPOR Y10, Y9, Y9
	VEXTRACTI128 $1, Y9, X10
	VPOR X10, X9, X9
	VPSHUFD $0x4e, X9, X10
	VPOR X10, X9, X9
	MOVQ X9, AX
	VZEROUPPER
	MOVQ AX, ret+24(FP)
	RET
