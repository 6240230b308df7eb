package main

import (
	"bytes"
	"testing"
)

// TestEVEXEncoding checks the hand-made EVEX encodings against the bytes
// LLVM's assembler (llvm-mc -show-encoding) gives for the same instructions.
func TestEVEXEncoding(t *testing.T) {
	for _, tc := range []struct {
		asm  string
		got  []byte
		want []byte
	}{
		{"vdpbf16ps zmm1, zmm2, zmm3", evexRR(0x52, map0F38, ppF3, 1, 2, 3), []byte{0x62, 0xf2, 0x6e, 0x48, 0x52, 0xcb}},
		{"vdpbf16ps zmm0, zmm29, zmm27", evexRR(0x52, map0F38, ppF3, 0, 29, 27), []byte{0x62, 0x92, 0x16, 0x40, 0x52, 0xc3}},
		{"vdpbf16ps zmm23, zmm28, zmm26", evexRR(0x52, map0F38, ppF3, 23, 28, 26), []byte{0x62, 0x82, 0x1e, 0x40, 0x52, 0xfa}},
		{"vcvtneps2bf16 ymm1, zmm0", evexRR(0x72, map0F38, ppF3, 1, -1, 0), []byte{0x62, 0xf2, 0x7e, 0x48, 0x72, 0xc8}},
		{"vcvtneps2bf16 ymm17, zmm25", evexRR(0x72, map0F38, ppF3, 17, -1, 25), []byte{0x62, 0x82, 0x7e, 0x48, 0x72, 0xc9}},
		{"vpdpbusd zmm23, zmm28, zmm26", evexRR(0x50, map0F38, pp66, 23, 28, 26), []byte{0x62, 0x82, 0x1d, 0x40, 0x50, 0xfa}},
	} {
		if !bytes.Equal(tc.got, tc.want) {
			t.Errorf("%s: got % x, want % x", tc.asm, tc.got, tc.want)
		}
	}
}
