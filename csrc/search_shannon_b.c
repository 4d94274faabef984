/* search_shannon_b.c -- Shannon's type B strategy (CKR_MODE_SHANNON_B).
 *
 * The rules and their sources are in docs/shannon-b.md; in short
 * (Shannon 1950, section 6, "Improvements in the strategy"):
 *
 *  (1) "Examine forceful variations out as far as possible and evaluate only
 *      at reasonable positions, where some quasi-stability has been
 *      established": g(P) = 1 while a piece of either side is en prise (the
 *      side to move has a capture, or would face one if it passed); a static
 *      score is taken only where g(P) = 0, except at the depth cap.
 *  (2) "Select the variations to be explored": h(P, M) puts the forceful
 *      moves (a capture, a move that offers a capture, a crowning, a move
 *      that threatens a capture) above the quiet ones, and ranks each kind
 *      by the static score of the position the move leads to; "as it gets
 *      further into the variation the requirements on h are set higher", so
 *      past the full-width base of `base` plies every capture is followed,
 *      but only the SB_FORCEFUL_WIDTH best other forceful moves and the
 *      SB_WIDTH best quiet ones, one fewer of each every ply, then none.
 *
 * The tree is searched by fail-soft alpha-beta (it returns the minimax value
 * of the same selected tree, with fewer nodes); moves are tried in order of
 * h, which is also the order alpha-beta wants.  No transposition table and no
 * repetition rule, like the type A searcher. */
#include "search.h"

/* constants */

/* Quiet (non-forceful) moves kept at the first ply past the base; one fewer
 * at each ply after it, down to none. */
#define SB_WIDTH 3
/* Forceful moves (not captures: those are always followed) kept at the first
 * ply past the base; one fewer at each ply after it. */
#define SB_FORCEFUL_WIDTH 4
/* "never more [than] say, 10" moves: the selective part ends at ply 20 ... */
#define SB_MAX_PLY 20
/* ... but a base deeper than 16 plies still gets 4 plies of it. */
#define SB_MIN_TAIL 4

/* h(P, M), coarse part: a forceful move outranks every quiet one. */
#define SB_H_FORCEFUL (1 << 20)

/* prototypes */
static int sb_threatened(const ckr_pos *p);
static int sb_classify(ckr_engine *e, ckr_pos *p, ckr_move *moves, int *h, int n, int ply, int *all_offers);

/* functions */

/* Whether a piece of the side to move is en prise: the opponent would have a
 * capture if it were its turn. */
static int sb_threatened(const ckr_pos *p)
{
    ckr_pos q = *p;
    q.side ^= 1;
    return ckr_has_capture(&q);
}

/* h(P, M) for each of the n moves at this node, into h[].  A capture, an
 * offer (the reply must be a capture: the checkers form of a check, the
 * opponent's answer is forced), a crowning and an attack (afterwards the
 * mover threatens a capture) are forceful and get SB_H_FORCEFUL on top of
 * the plausibility, the static score of the position after the move for the
 * mover.  Returns the number of forceful moves; *all_offers is set when every
 * move offers a capture (a squeeze: the side to move cannot keep the
 * position quiet). */
static int sb_classify(ckr_engine *e, ckr_pos *p, ckr_move *moves, int *h, int n, int ply, int *all_offers)
{
    int forceful = 0, offers = 0;
    for (int i = 0; i < n; i++) {
        ckr_move *m = &moves[i];
        e->line[ply] = m;
        ckr_make(p, m);
        int offer = !m->ncaps && ckr_has_capture(p);
        int attack = !m->ncaps && !offer && sb_threatened(p);
        int score = -leaf_eval(e, p, ply + 1);
        ckr_unmake(p, m);
        int force = m->ncaps || offer || attack || (m->flags & CKR_MOVE_CROWN);
        h[i] = score + (force ? SB_H_FORCEFUL : 0);
        forceful += force;
        offers += offer;
    }
    *all_offers = n > 0 && offers == n;
    return forceful;
}

/* One node of the type B tree.  Plies 0..base-1 are full width; from `base`
 * on, a capture is always followed (forced, and the position is not stable),
 * a stable position may stand on its static score, and only the forceful and
 * the few most plausible quiet moves are searched on, until the cap. */
int search_shannon_b(ckr_engine *e, ckr_pos *p, int alpha, int beta, int ply, int base)
{
    int n, settled;
    if (open_node(e, p, ply, &n, &settled))
        return settled;
    ckr_move *moves = e->moves[ply];
    if (ply >= CKR_MAX_PLY - 1)
        return leaf_eval(e, p, ply);
    int capture = moves[0].ncaps > 0;
    int cap = base + (SB_MAX_PLY - base > SB_MIN_TAIL ? SB_MAX_PLY - base : SB_MIN_TAIL);
    if (ply >= base && !capture && ply >= cap)
        return leaf_eval(e, p, ply); /* the cap: evaluate even if not quite stable */

    int *h = e->scores[ply], all_offers = 0;
    sb_classify(e, p, moves, h, n, ply, &all_offers);

    /* How many forceful and how many quiet moves are searched on: all of
     * them in the base; past it the requirements on h rise with each ply. */
    int best = -CKR_INF, keep_forceful = n, keep_quiet = n;
    if (ply >= base && !capture) {
        int s = ply - base;
        keep_forceful = SB_FORCEFUL_WIDTH - s > 0 ? SB_FORCEFUL_WIDTH - s : 0;
        keep_quiet = SB_WIDTH - s > 0 ? SB_WIDTH - s : 0;
        /* g(P) = 0: nothing en prise, and some move keeps it so. */
        if (!sb_threatened(p) && !all_offers) {
            int stand = leaf_eval(e, p, ply);
            if (stand >= beta)
                return stand;
            best = stand;
            if (stand > alpha)
                alpha = stand;
        } else if (keep_forceful + keep_quiet < 1) {
            keep_quiet = keep_forceful = 1; /* not stable: the most plausible answers are looked at */
        }
    }

    /* Moves in order of h (ties: generation order, so node counts repeat). */
    int order[CKR_MAX_MOVES];
    for (int i = 0; i < n; i++) {
        int j = i;
        while (j > 0 && h[order[j - 1]] < h[i]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    int forceful_seen = 0, quiet_seen = 0;
    for (int k = 0; k < n; k++) {
        ckr_move *m = &moves[order[k]];
        if (h[order[k]] >= SB_H_FORCEFUL / 2 ? forceful_seen++ >= keep_forceful
                                             : quiet_seen++ >= keep_quiet)
            continue;
        e->line[ply] = m;
        ckr_make(p, m);
        int v = -search_shannon_b(e, p, -beta, -alpha, ply + 1, base);
        ckr_unmake(p, m);
        if (e->aborted)
            return 0;
        if (raise_best(e, ply, m, v, &best, &alpha, beta))
            break;
    }
    if (best == -CKR_INF) /* nothing selected and no stand: score the position as it is */
        best = leaf_eval(e, p, ply);
    return best;
}
