//go:build amd64

#include "textflag.h"

// func dot8ColsAVX2(cols *byte, pf uintptr, off *int64, qw *uint32, n int, out *int32)
//
// out[r] = Σ_k q_k · cols[off[k] + r] for the 64 rows r of a block, where
// the column of dimension k is the 64 int8 codes at cols + off[k] and
// qw[2k], qw[2k+1] are the int16 pairs (q_k, 0) and (0, q_k). Per column,
// VPMOVSXBW widens 16 codes to int16; VPMADDWD against (q_k, 0) gives the
// int32 products of the even rows of the 16 (the odd row times 0 added),
// against (0, q_k) those of the odd rows; VPADDD adds them to eight
// accumulators, the 64 rows' sums, which stay in registers across all the
// columns. The same columns of the block at pf (the next one the scan
// reads) and its scales and bounds are prefetched meanwhile: the columns
// are scattered cache lines, which the hardware prefetchers do not
// foresee, and without it the scan waited on memory. Products are at most 127·127 and sums of at most a few
// thousand of them, so nothing overflows, and integer sums in another
// order are the same sums: the results are dot8Go's. At the end the even
// and odd accumulators of each 16 rows are interleaved back into row
// order (VPUNPCKLDQ/VPUNPCKHDQ work within 128-bit lanes, so VPERM2I128
// puts the lanes in place).
TEXT ·dot8ColsAVX2(SB), NOSPLIT, $0-48
	MOVQ cols+0(FP), SI
	MOVQ pf+8(FP), R8
	MOVQ off+16(FP), BX
	MOVQ qw+24(FP), DX
	MOVQ n+32(FP), CX
	MOVQ out+40(FP), DI
	// The next block's scales and bounds, 768 bytes before its columns.
	PREFETCHT0 -768(R8)
	PREFETCHT0 -704(R8)
	PREFETCHT0 -640(R8)
	PREFETCHT0 -576(R8)
	PREFETCHT0 -512(R8)
	PREFETCHT0 -448(R8)
	PREFETCHT0 -384(R8)
	PREFETCHT0 -320(R8)
	PREFETCHT0 -256(R8)
	PREFETCHT0 -192(R8)
	PREFETCHT0 -128(R8)
	PREFETCHT0 -64(R8)
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7

loop:
	MOVQ (BX), AX
	PREFETCHT0 (R8)(AX*1) // the same column of the next block
	ADDQ SI, AX
	VPBROADCASTD (DX), Y8  // (q, 0) pairs: even rows
	VPBROADCASTD 4(DX), Y9 // (0, q) pairs: odd rows
	VPMOVSXBW (AX), Y10    // rows 0..15
	VPMADDWD Y8, Y10, Y11
	VPADDD Y11, Y0, Y0
	VPMADDWD Y9, Y10, Y12
	VPADDD Y12, Y1, Y1
	VPMOVSXBW 16(AX), Y10  // rows 16..31
	VPMADDWD Y8, Y10, Y11
	VPADDD Y11, Y2, Y2
	VPMADDWD Y9, Y10, Y12
	VPADDD Y12, Y3, Y3
	VPMOVSXBW 32(AX), Y10  // rows 32..47
	VPMADDWD Y8, Y10, Y11
	VPADDD Y11, Y4, Y4
	VPMADDWD Y9, Y10, Y12
	VPADDD Y12, Y5, Y5
	VPMOVSXBW 48(AX), Y10  // rows 48..63
	VPMADDWD Y8, Y10, Y11
	VPADDD Y11, Y6, Y6
	VPMADDWD Y9, Y10, Y12
	VPADDD Y12, Y7, Y7
	ADDQ $8, BX
	ADDQ $8, DX
	DECQ CX
	JNZ  loop

	// Even accumulator Ye = rows 0 2 4 6 | 8 10 12 14, odd Yo = rows
	// 1 3 5 7 | 9 11 13 15 (of its 16): unpack low gives 0 1 2 3 | 8 9 10
	// 11, high 4 5 6 7 | 12 13 14 15.
	VPUNPCKLDQ Y1, Y0, Y10
	VPUNPCKHDQ Y1, Y0, Y11
	VPERM2I128 $0x20, Y11, Y10, Y12
	VPERM2I128 $0x31, Y11, Y10, Y13
	VMOVDQU Y12, 0(DI)
	VMOVDQU Y13, 32(DI)
	VPUNPCKLDQ Y3, Y2, Y10
	VPUNPCKHDQ Y3, Y2, Y11
	VPERM2I128 $0x20, Y11, Y10, Y12
	VPERM2I128 $0x31, Y11, Y10, Y13
	VMOVDQU Y12, 64(DI)
	VMOVDQU Y13, 96(DI)
	VPUNPCKLDQ Y5, Y4, Y10
	VPUNPCKHDQ Y5, Y4, Y11
	VPERM2I128 $0x20, Y11, Y10, Y12
	VPERM2I128 $0x31, Y11, Y10, Y13
	VMOVDQU Y12, 128(DI)
	VMOVDQU Y13, 160(DI)
	VPUNPCKLDQ Y7, Y6, Y10
	VPUNPCKHDQ Y7, Y6, Y11
	VPERM2I128 $0x20, Y11, Y10, Y12
	VPERM2I128 $0x31, Y11, Y10, Y13
	VMOVDQU Y12, 192(DI)
	VMOVDQU Y13, 224(DI)
	VZEROUPPER
	RET
