/* bitboard.h -- bit helpers and direction tables shared by the C core. */
#ifndef CKR_BITBOARD_H
#define CKR_BITBOARD_H

#include "ckr.h"

/* Direction indices: forward steps are +4/+5 (Black's way), backward -4/-5. */
enum { DIR_F4 = 0, DIR_F5 = 1, DIR_B4 = 2, DIR_B5 = 3 };

static inline int bb_popcount(ckr_bb b) { return __builtin_popcountll(b); }
static inline int bb_lsb(ckr_bb b) { return __builtin_ctzll(b); }
static inline ckr_bb bb_bit(int i) { return (ckr_bb)1 << i; }

static inline ckr_bb bb_fwd(ckr_bb b, int n) { return b << n; }
static inline ckr_bb bb_back(ckr_bb b, int n) { return b >> n; }

/* One step (or n steps, for jumps) in direction d. */
static inline ckr_bb bb_step(ckr_bb b, int dir, int times)
{
    switch (dir) {
    case DIR_F4: return b << (4 * times);
    case DIR_F5: return b << (5 * times);
    case DIR_B4: return b >> (4 * times);
    default: return b >> (5 * times);
    }
}

static inline ckr_bb bb_empty(const ckr_pos *p)
{
    return CKR_BB_BOARD & ~(p->pieces[0] | p->pieces[1]);
}

/* Whether the side to move has any non-capturing move (no list needed). */
static inline int bb_has_quiet(const ckr_pos *p)
{
    ckr_bb us = p->pieces[p->side], empty = bb_empty(p);
    ckr_bb f = p->side == CKR_BLACK ? us : us & p->kings;
    ckr_bb b = p->side == CKR_WHITE ? us : us & p->kings;
    return (((f << 4) | (f << 5)) & empty) || (((b >> 4) | (b >> 5)) & empty);
}

extern uint64_t ckr_zobrist[4][64];
extern uint64_t ckr_zobrist_side;

/* Zobrist index: colour * 2 + is_king */
static inline uint64_t zob(int colour, int king, int bit)
{
    return ckr_zobrist[colour * 2 + king][bit];
}

/* A square (1..32) from the point of view of `mover` (square 1 is its own
 * back rank), or 0 for a bit that is not a square. */
static inline int bb_rel_square(int bit, int mover)
{
    int sq = ckr_bit_to_square(bit);
    if (sq < 1 || sq > 32)
        return 0;
    return mover == CKR_BLACK ? sq : 33 - sq;
}

/* Samuel's piece advantage with trading when ahead (CKR_EVAL_MATERIAL), for
 * the evaluators that add material to a positional table. */
static inline int bb_material_score(const ckr_pos *pos)
{
    static const ckr_eval material = {.kind = CKR_EVAL_MATERIAL};
    return ckr_evaluate(&material, pos);
}

#endif
