/* perft.c -- leaf counts, the correctness oracle of the move generator.
 * With bulk counting the last ply is counted without making the moves. */
#include "bitboard.h"

/* Perft needs no hash keys, so its make/unmake skip the Zobrist update. */
static inline void make_nohash(ckr_pos *p, const ckr_move *m)
{
    int us = p->side;
    p->pieces[us] ^= bb_bit(m->from) ^ bb_bit(m->to);
    p->pieces[us ^ 1] ^= m->caps;
    p->kings ^= m->kxor;
    p->side = us ^ 1;
}

static inline void unmake_nohash(ckr_pos *p, const ckr_move *m)
{
    int us = p->side ^ 1;
    p->pieces[us] ^= bb_bit(m->from) ^ bb_bit(m->to);
    p->pieces[us ^ 1] ^= m->caps;
    p->kings ^= m->kxor;
    p->side = us;
}

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
        make_nohash(p, &moves[i]);
        total += perft_rec(p, depth - 1, bulk);
        unmake_nohash(p, &moves[i]);
    }
    return total;
}

uint64_t ckr_perft(const ckr_pos *pos, int depth, int bulk)
{
    ckr_pos p = *pos;
    return perft_rec(&p, depth, bulk);
}
