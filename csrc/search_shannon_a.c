/* search_shannon_a.c -- Shannon's type A (CKR_MODE_SHANNON_A): every line
 * to a fixed depth, plain minimax (no pruning, no table, no repetition rule). */
#include "search.h"

int search_shannon_a(ckr_engine *e, ckr_pos *p, int depth, int ply)
{
    int n, settled;
    if (open_node(e, p, ply, &n, &settled))
        return settled;
    ckr_move *moves = e->moves[ply];
    if (depth <= 0 || ply >= CKR_MAX_PLY - 1)
        return leaf_eval(e, p, ply);
    int best = -CKR_INF;
    for (int i = 0; i < n; i++) {
        e->line[ply] = &moves[i];
        ckr_make(p, &moves[i]);
        int v = -search_shannon_a(e, p, depth - 1, ply + 1);
        ckr_unmake(p, &moves[i]);
        if (e->aborted)
            return 0;
        if (v > best) {
            best = v;
            update_pv(e, ply, &moves[i]);
        }
    }
    return best;
}
