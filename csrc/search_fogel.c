/* search_fogel.c -- Chellapilla and Fogel's search (CKR_MODE_FOGEL, 1999):
 * fail-soft alpha-beta to the depth, two plies more for every two forced
 * moves of the root side along the branch, and two more while the leaf has a
 * jump pending; leaves are scored from the root side's point of view. */
#include "search.h"

/* The leaf score for the side to move.  Their network scores a position for
 * "the player" (the side at the root), and f(P, them) is not -f(P, us), so a
 * network is asked for the root side and the value turned over when the other
 * side moves; the other evaluators are antisymmetric already. */
static int fogel_leaf(ckr_engine *e, const ckr_pos *p, int ply, int root_side)
{
    if (!e->kind->value_for)
        return leaf_eval(e, p, ply);
    int v = e->kind->value_for(&e->eval, p, root_side);
    return p->side == root_side ? v : -v;
}

/* Their extensions, as we read them (docs/learners/evolution.md): forced
 * counts the root side's moves along the line that had no alternative ("the
 * player has no real decision to make"), and the depth grows by the smallest
 * even number >= forced; a would-be leaf with a jump pending is not scored
 * but searched on, two plies at a time, until quiet.  Both together add at
 * most FOGEL_MAX_EXTENSION plies to the forced part (uncapped, a random
 * network's search at depth 4 goes 27 plies deep and 50,000 nodes a move, far
 * beyond the few thousand boards a move their 3,500 a second allowed). */
#ifndef FOGEL_MAX_EXTENSION
#define FOGEL_MAX_EXTENSION 4
#endif
/* A side with no move has lost: scored -CKR_WIN + ply (ours, above every
 * network score), or -FOGEL_WIN_SCORE when defined (1000: the paper's "+1" of
 * a win is the network's largest output, so a win ties with a saturated
 * board; docs/learners/evolution.md measures both). */
#ifndef FOGEL_WIN_SCORE
#define FOGEL_WIN_SCORE 0
#endif
/* Their search knew nothing of repetition: their games had no repetition
 * draw.  Under real rules a depth-4 searcher a few pieces ahead shuffles its
 * kings into a threefold repetition (docs/learners/evolution.md counts it).
 * limits.fogel_draws 1 (ours): a repetition of the game or the line since the
 * last man move or capture, or the 40-move rule, scores a draw (0), as in the
 * modern search, so the side ahead steers clear of it. */
int search_fogel(ckr_engine *e, ckr_pos *p, int alpha, int beta, int ply, int forced, int active,
                 int root_side, int floor)
{
    int n, settled;
    if (e->limits.fogel_draws && ply > 0 &&
        (e->rep_len - floor >= FORTY_MOVE_PLIES || is_repetition(e, p->hash, floor)))
        return 0;
    if (open_node(e, p, ply, &n, &settled))
        return FOGEL_WIN_SCORE && settled < 0 ? -FOGEL_WIN_SCORE : settled;
    ckr_move *moves = e->moves[ply];
    if (n == 1 && p->side == root_side)
        forced++;
    int ext = 2 * ((forced + 1) / 2) + active;
    int depth = e->fogel_depth + (ext < FOGEL_MAX_EXTENSION ? ext : FOGEL_MAX_EXTENSION);
    if (ply >= depth) {
        if (moves[0].ncaps == 0 || ply >= CKR_MAX_PLY - 3)
            return fogel_leaf(e, p, ply, root_side);
        active += 2; /* an active position is not scored: two plies more */
    }
    int best = -CKR_INF;
    e->rep[e->rep_len++] = p->hash;
    for (int i = 0; i < n; i++) {
        e->line[ply] = &moves[i];
        int child_floor = irreversible(&moves[i]) ? e->rep_len : floor;
        ckr_make(p, &moves[i]);
        int v = -search_fogel(e, p, -beta, -alpha, ply + 1, forced, active, root_side, child_floor);
        ckr_unmake(p, &moves[i]);
        if (e->aborted)
            break;
        if (raise_best(e, ply, &moves[i], v, &best, &alpha, beta))
            break;
    }
    e->rep_len--;
    return e->aborted ? 0 : best;
}
