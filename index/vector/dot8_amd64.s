//go:build amd64

#include "textflag.h"

// func dot8RowsAVX2(qa, q, b *int8, n, stride, count int, out *int32)
//
// out[r] = the dot product of q[0:n] and the n bytes at b + r·stride, for
// r < count, qa = |q|, n a multiple of 32, q and the rows in -127..127.
// VPMADDUBSW multiplies unsigned by signed bytes and adds adjacent
// products into int16, so q's signs move to the row first (VPSIGNB:
// b·sign(q)) and |q| is the unsigned side: |q|·b·sign(q) = q·b. A pair of
// products is at most 2·127·127 = 32258, inside int16, so nothing
// saturates. VPMADDWD with ones widens the pairs to int32 sums, which
// VPADDD accumulates. Four rows at a time share each 32-byte chunk of the
// query (loaded once for the four), have an accumulator each, and are
// summed horizontally together (three VPHADDD and one lane fold for four
// rows); the last count mod 4 rows go one at a time. Integer sums in
// another order are the same sums: the results are dot8Go's.
TEXT ·dot8RowsAVX2(SB), NOSPLIT, $0-56
	MOVQ qa+0(FP), SI
	MOVQ q+8(FP), DX
	MOVQ b+16(FP), DI
	MOVQ n+24(FP), CX
	MOVQ stride+32(FP), R8
	MOVQ count+40(FP), R9
	MOVQ out+48(FP), R10
	MOVL $0x00010001, AX
	MOVD AX, X15
	VPBROADCASTD X15, Y15
	LEAQ (R8)(R8*2), R14 // 3·stride

rows4:
	CMPQ R9, $4
	JL   rows1
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	LEAQ (DI)(R8*1), R11
	LEAQ (DI)(R8*2), R12
	LEAQ (DI)(R14*1), R13
	XORQ AX, AX

chunk4:
	VMOVDQU    (SI)(AX*1), Y4
	VMOVDQU    (DX)(AX*1), Y5
	VMOVDQU    (DI)(AX*1), Y6
	VPSIGNB    Y5, Y6, Y6
	VPMADDUBSW Y6, Y4, Y6
	VPMADDWD   Y15, Y6, Y6
	VPADDD     Y6, Y0, Y0
	VMOVDQU    (R11)(AX*1), Y7
	VPSIGNB    Y5, Y7, Y7
	VPMADDUBSW Y7, Y4, Y7
	VPMADDWD   Y15, Y7, Y7
	VPADDD     Y7, Y1, Y1
	VMOVDQU    (R12)(AX*1), Y8
	VPSIGNB    Y5, Y8, Y8
	VPMADDUBSW Y8, Y4, Y8
	VPMADDWD   Y15, Y8, Y8
	VPADDD     Y8, Y2, Y2
	VMOVDQU    (R13)(AX*1), Y9
	VPSIGNB    Y5, Y9, Y9
	VPMADDUBSW Y9, Y4, Y9
	VPMADDWD   Y15, Y9, Y9
	VPADDD     Y9, Y3, Y3
	ADDQ       $32, AX
	CMPQ       AX, CX
	JL         chunk4

	// Y0 = [r0 r0 r1 r1 | ...] pairs, then [r0 r1 r2 r3] per lane.
	VPHADDD      Y1, Y0, Y0
	VPHADDD      Y3, Y2, Y2
	VPHADDD      Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VMOVDQU      X0, (R10)
	ADDQ         $16, R10
	LEAQ         (DI)(R8*4), DI
	SUBQ         $4, R9
	JMP          rows4

rows1:
	TESTQ R9, R9
	JZ    done
	VPXOR Y0, Y0, Y0
	XORQ  AX, AX

chunk1:
	VMOVDQU    (DI)(AX*1), Y6
	VPSIGNB    (DX)(AX*1), Y6, Y6
	VMOVDQU    (SI)(AX*1), Y4
	VPMADDUBSW Y6, Y4, Y6
	VPMADDWD   Y15, Y6, Y6
	VPADDD     Y6, Y0, Y0
	ADDQ       $32, AX
	CMPQ       AX, CX
	JL         chunk1

	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4e, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xb1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX
	MOVL         AX, (R10)
	ADDQ         $4, R10
	ADDQ         R8, DI
	DECQ         R9
	JMP          rows1

done:
	VZEROUPPER
	RET
