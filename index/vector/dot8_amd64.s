//go:build amd64

#include "textflag.h"

// func dot8AVX2(qa, q, b *int8, n int) int32
//
// The dot product of q[0:n] and b[0:n] for qa = |q|, n a multiple of 32,
// q and b in -127..127. VPMADDUBSW multiplies unsigned by signed bytes
// and adds adjacent products into int16, so q's signs move to b first
// (VPSIGNB: b·sign(q)) and |q| is the unsigned side: |q|·b·sign(q) = q·b.
// A pair of products is at most 2·127·127 = 32258, inside int16, so
// nothing saturates. VPMADDWD with ones widens the pairs to int32 sums,
// which VPADDD accumulates in two registers so consecutive blocks
// overlap. Half the instructions of widening every byte to int16.
TEXT ·dot8AVX2(SB), NOSPLIT, $0-36
	MOVQ qa+0(FP), SI
	MOVQ q+8(FP), DX
	MOVQ b+16(FP), DI
	MOVQ n+24(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	MOVL $0x00010001, AX
	MOVD AX, X15
	VPBROADCASTD X15, Y15

loop64:
	CMPQ CX, $64
	JL   tail32
	VMOVDQU    (DI), Y2
	VPSIGNB    (DX), Y2, Y2
	VMOVDQU    (SI), Y3
	VPMADDUBSW Y2, Y3, Y2
	VPMADDWD   Y15, Y2, Y2
	VPADDD     Y2, Y0, Y0
	VMOVDQU    32(DI), Y4
	VPSIGNB    32(DX), Y4, Y4
	VMOVDQU    32(SI), Y5
	VPMADDUBSW Y4, Y5, Y4
	VPMADDWD   Y15, Y4, Y4
	VPADDD     Y4, Y1, Y1
	ADDQ       $64, SI
	ADDQ       $64, DX
	ADDQ       $64, DI
	SUBQ       $64, CX
	JMP        loop64

tail32:
	CMPQ CX, $32
	JL   done
	VMOVDQU    (DI), Y2
	VPSIGNB    (DX), Y2, Y2
	VMOVDQU    (SI), Y3
	VPMADDUBSW Y2, Y3, Y2
	VPMADDWD   Y15, Y2, Y2
	VPADDD     Y2, Y0, Y0

done:
	VPADDD       Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4e, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xb1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX
	VZEROUPPER
	MOVL         AX, ret+32(FP)
	RET
