/* search_samuel.c -- Samuel's 1959 ply rules (CKR_MODE_SAMUEL): a minimum
 * ply, then on while a jump is pending or was just made or an exchange is
 * offered, with break points (default 4/5/11/20) that narrow the conditions
 * with depth; minimax by alpha-beta. */
#include "search.h"

static int material_units(const ckr_pos *p, int c)
{
    return 2 * bb_popcount(p->pieces[c] & ~p->kings) + 3 * bb_popcount(p->pieces[c] & p->kings);
}

/* An exchange offer: some quiet move hands the opponent a capture. */
static int exchange_offer(ckr_engine *e, ckr_pos *p, const ckr_move *moves, int n)
{
    (void)e;
    for (int i = 0; i < n; i++) {
        ckr_make(p, &moves[i]);
        int offer = ckr_has_capture(p);
        ckr_unmake(p, &moves[i]);
        if (offer)
            return 1;
    }
    return 0;
}

int search_samuel(ckr_engine *e, ckr_pos *p, int alpha, int beta, int ply, int last_jump)
{
    int n, settled;
    if (open_node(e, p, ply, &n, &settled))
        return settled;
    ckr_move *moves = e->moves[ply];
    int jump_next = moves[0].ncaps > 0;
    const int *brk = e->limits.samuel_breaks;
    if (ply >= e->samuel_min || ply >= CKR_MAX_PLY - 1) {
        int stop;
        if (ply >= brk[3] || ply >= CKR_MAX_PLY - 1)
            stop = 1;
        else if (ply >= brk[2] && jump_next &&
                 abs(material_units(p, 0) - material_units(p, 1)) > 6) /* two kings */
            stop = 1;
        else if (ply >= brk[1])
            stop = !jump_next;
        else if (ply >= brk[0])
            stop = !jump_next && !exchange_offer(e, p, moves, n);
        else
            stop = !jump_next && !last_jump && !exchange_offer(e, p, moves, n);
        if (stop) {
            int s;
            if (e->rote && rote_leaf(e, p, ply, &s))
                return s;
            s = leaf_eval(e, p, ply);
            /* Cut off with a jump pending: credit the side to move with a man. */
            if (jump_next)
                s += 100;
            return s;
        }
    }
    int best = -CKR_INF;
    for (int i = 0; i < n; i++) {
        e->line[ply] = &moves[i];
        ckr_make(p, &moves[i]);
        int v = -search_samuel(e, p, -beta, -alpha, ply + 1, jump_next);
        ckr_unmake(p, &moves[i]);
        if (e->aborted)
            return 0;
        if (raise_best(e, ply, &moves[i], v, &best, &alpha, beta))
            break;
    }
    return best;
}
