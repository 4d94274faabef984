/* perft.c -- leaf counts, the correctness oracle of the move generator.
 * With bulk counting the last ply is counted without making the moves. */
#include "bitboard.h"

static uint64_t perft_rec(ckr_pos *p, int depth, int bulk)
{
    if (depth == 0)
        return 1;
    if (bulk && depth == 1)
        return (uint64_t)ckr_count_moves(p);
    ckr_move moves[CKR_MAX_MOVES];
    int n = ckr_gen_moves(p, moves);
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        ckr_make(p, &moves[i]);
        total += perft_rec(p, depth - 1, bulk);
        ckr_unmake(p, &moves[i]);
    }
    return total;
}

uint64_t ckr_perft(const ckr_pos *pos, int depth, int bulk)
{
    ckr_pos p = *pos;
    return perft_rec(&p, depth, bulk);
}
