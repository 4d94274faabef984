/* eval_kind.h -- the table of evaluator kinds (internal, not part of the cdef).
 *
 * One row per CKR_EVAL_* kind says how to call it and what it reads, so
 * ckr_evaluate_ctx and the search dispatch through the same row, chosen once
 * (ckr_engine_set_eval) instead of comparing kind numbers at every leaf.
 *   value         the score for the side to move, not yet clamped
 *   value_for     the score for a given side, for a kind that is not
 *                 antisymmetric (f(P, them) != -f(P, us): the evolved network);
 *                 NULL when the other side's score is minus the mover's
 *   needs_parent  reads the position before the last move (the search then
 *                 rebuilds it at each leaf by undoing the line's last move)
 *   needs_ply     reads the game ply (the move-phase tables)
 *   packed        the search runs it through a packed form built once when
 *                 the evaluator is set, with a cache of leaf scores (the piece
 *                 network, piece_net_fast.c; its first layer is kept as an
 *                 accumulator per ply, piece_net_acc.c).  The other kinds
 *                 score each leaf from the position. */
#ifndef CKR_EVAL_KIND_H
#define CKR_EVAL_KIND_H

#include "ckr.h"

typedef int (*ckr_eval_fn)(const ckr_eval *eval, const ckr_pos *pos, const ckr_pos *parent, int game_ply);
typedef int (*ckr_eval_side_fn)(const ckr_eval *eval, const ckr_pos *pos, int side);

typedef struct ckr_eval_kind {
    const char *name;
    ckr_eval_fn value;
    ckr_eval_side_fn value_for;
    uint8_t needs_parent;
    uint8_t needs_ply;
    uint8_t packed;
} ckr_eval_kind;

/* The row of `kind`; an unknown kind scores as CKR_EVAL_DEFAULT. */
const ckr_eval_kind *ckr_eval_kind_of(int kind);

/* Every evaluator's score is clamped inside the proven-result range. */
static inline int ckr_eval_clamp(int s)
{
    return s > CKR_WIN_BOUND - 1 ? CKR_WIN_BOUND - 1 : s < 1 - CKR_WIN_BOUND ? 1 - CKR_WIN_BOUND : s;
}

#endif
