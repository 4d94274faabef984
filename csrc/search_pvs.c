/* search_pvs.c -- the modern search (CKR_MODE_PVS): principal-variation
 * search with the transposition table, hash-move/killer/history ordering,
 * late-move reductions, enhanced transposition cutoffs and a forced-capture
 * quiescence, a static-score cut and ProbCut near the leaves, driven from the
 * root by aspiration windows or MTD(f). */
#include "search.h"

/* Late-move reductions: one ply from the LMR_FIRST-th move (0-based), two from
 * the LMR_SECOND-th at depth >= 6.
 * Compile-time knobs for experiments: reducing from the third move and two
 * plies from the seventh halved the bench's nodes at depth 13 but gained
 * nothing in play (docs/engine.md, "Search changes measured"). */
#ifndef LMR_FIRST
#define LMR_FIRST 3
#endif
#ifndef LMR_SECOND
#define LMR_SECOND 8
#endif
#ifndef ETC_DEPTH
#define ETC_DEPTH 8
#endif

/* Candidates of docs/search-depth.md (issue 32), each a compile-time knob,
 * so that builds can be compared by Elo.  The defaults are the search of
 * 2026-11-28 except RFP_DEPTH, 5 since it measured +28 +- 38 Elo over 288
 * games at 0.1 s a move (-DRFP_DEPTH=0 builds the search before it), and
 * PROBCUT_DEPTH, 6 since 2026-11-29 (-DPROBCUT_DEPTH=0 builds it without).
 * A "quiet" node below is one where neither side has a capture pending (a
 * capture is mandatory, so no candidate ever skips one).
 *
 * LMR_SCHEME 1: reductions from a log table of depth and move index
 *   (ln d * ln i / LMR_DIV, from the third move), one ply more for a quiet
 *   move without history in a non-PV node, one less in a PV node, for a
 *   move that leaves the opponent a capture (a shot's sacrifice) and when
 *   the opponent threatens a capture here (a forcing line). */
#ifndef LMR_SCHEME
#define LMR_SCHEME 0
#endif
#ifndef LMR_DIV
#define LMR_DIV 2.0
#endif
/* LMP_DEPTH d: in quiet non-PV nodes of depth <= d, quiet moves after the
 * first LMP_BASE + depth * depth are skipped, unless they are the hash move,
 * a killer, a crowning, or leave the opponent a capture (0: off). */
#ifndef LMP_DEPTH
#define LMP_DEPTH 0
#endif
#ifndef LMP_BASE
#define LMP_BASE 3
#endif
/* RFP_DEPTH d: a quiet non-PV node of depth <= d whose static score beats
 * beta by RFP_MARGIN per ply of depth returns that score (0: off).  The
 * bench reads 62% fewer nodes at depth 13, and 1 s from the start reaches
 * depth 15 instead of 14 (docs/search-depth.md).  A margin of 35 measured
 * +62 Elo against the base where 50 gave +30 and 25 gave back the gain. */
#ifndef RFP_DEPTH
#define RFP_DEPTH 5
#endif
#ifndef RFP_MARGIN
#define RFP_MARGIN 35
#endif
/* QS_THREAT 1: a quiescence leaf without a capture of its own, whose
 * opponent threatens one, is searched one quiet ply further (its replies
 * then go on only by captures). */
#ifndef QS_THREAT
#define QS_THREAT 0
#endif
/* PVS_MTDF 1: MTD(f) drives every search, whatever the limits say (so that
 * a hub build plays with it). */
#ifndef PVS_MTDF
#define PVS_MTDF 0
#endif

/* HIST_MALUS 1: a quiet move's cutoff also lowers the history of the quiet
 * moves searched before it at that node (by the same depth squared), so
 * that ordering learns from failures as well as from cutoffs. */
#ifndef HIST_MALUS
#define HIST_MALUS 0
#endif
/* IIR_DEPTH d: a node of depth >= d that the table has never seen searches
 * one ply less (internal iterative reduction: without a hash move its
 * ordering is poor, and the next iteration finds it with a move).  Keyed on
 * no entry rather than no move: an all-node's entry holds no move, and
 * reducing those on every iteration cut the tree to half its depth. */
#ifndef IIR_DEPTH
#define IIR_DEPTH 0
#endif
/* RAZOR_DEPTH d: a quiet non-PV node of depth <= d whose static score is
 * RAZOR_MARGIN per ply of depth below alpha returns that score (the static
 * cut's mirror on the failing side; 0: off).  It shares the cut's test, so
 * it acts only up to RFP_DEPTH. */
#ifndef RAZOR_DEPTH
#define RAZOR_DEPTH 0
#endif
#ifndef RAZOR_MARGIN
#define RAZOR_MARGIN 50
#endif

/* PROBCUT_DEPTH d: a non-PV node of depth >= d first searches itself
 * PROBCUT_R plies shallower against a bound PROBCUT_MARGIN above beta, and
 * returns when that search clears it (ProbCut, Buro 1995, in its one-search
 * form; 0: off).  On since 2026-11-29 at depth 6, margin 100: +18.1 +- 17.0
 * Elo over 288 games at 0.1 s a move (docs/search-depth.md). */
#ifndef PROBCUT_DEPTH
#define PROBCUT_DEPTH 6
#endif
#ifndef PROBCUT_R
#define PROBCUT_R 4
#endif
#ifndef PROBCUT_MARGIN
#define PROBCUT_MARGIN 100
#endif

/* ASP_DELTA: the aspiration window's first half-width (widened threefold
 * on each failure). */
#ifndef ASP_DELTA
#define ASP_DELTA 30
#endif

/* Whether the opponent of the side to move has a capture pending. */
static inline int opponent_threat(const ckr_pos *p)
{
    ckr_pos q = *p;
    q.side ^= 1;
    return ckr_has_capture(&q);
}

#if LMR_SCHEME == 1
#include <math.h>
static int8_t lmr_table[64][64];

/* Built once as the library loads, before any search can read it. */
__attribute__((constructor)) static void lmr_table_init(void)
{
    for (int d = 1; d < 64; d++)
        for (int i = 1; i < 64; i++)
            lmr_table[d][i] = (int8_t)(0.5 + log((double)d) * log((double)i) / LMR_DIV);
}
#endif

/* prototypes */
static int pvs(ckr_engine *e, ckr_pos *p, int alpha, int beta, int depth, int ply, int floor);

/* ---- move ordering ---- */

static void score_moves(ckr_engine *e, const ckr_pos *p, ckr_move *m, int *sc, int n, int ply, int hash_idx)
{
    for (int i = 0; i < n; i++) {
        int s;
        if (i == hash_idx)
            s = 1 << 30;
        else if (m[i].ncaps)
            s = (1 << 28) + 1000 * m[i].ncaps + (bb_popcount(m[i].caps & m[i].kxor) * 100);
        else if (ply < CKR_MAX_PLY && move_key(&m[i]) == e->killers[ply][0])
            s = (1 << 27);
        else if (ply < CKR_MAX_PLY && move_key(&m[i]) == e->killers[ply][1])
            s = (1 << 27) - 1;
        else
            s = e->history[p->side][m[i].from][m[i].to] + ((m[i].flags & CKR_MOVE_CROWN) ? (1 << 26) : 0);
        sc[i] = s;
    }
}

static inline int eval_quiet(ckr_engine *e, const ckr_pos *p, int quiet, int ply)
{
    int s = leaf_eval(e, p, ply);
    if (quiet > 10)
        s = s * (90 - quiet) / 80;
    return s;
}

/* The database's score of a position, when it holds it (see ckr_egdb.h). */
static int egdb_leaf(ckr_engine *e, const ckr_pos *p, int ply, int *score)
{
    if (bb_popcount(p->pieces[0] | p->pieces[1]) > e->egdb_pieces)
        return 0;
    int v = ckr_egdb_probe(e->egdb, p);
    if (v < 0)
        return 0;
    e->egdb_hits++;
    if (v == CKR_EGDB_DRAW) {
        *score = draw_score(e, ply);
        return 1;
    }
    int s = leaf_eval(e, p, ply);
    if (v == CKR_EGDB_LOSS)
        s = -s;
    s = s > CKR_DB_MARGIN ? CKR_DB_MARGIN : s < -CKR_DB_MARGIN ? -CKR_DB_MARGIN : s;
    s += CKR_DB_WIN - ply;
    *score = v == CKR_EGDB_WIN ? s : -s;
    return 1;
}

static int pvs(ckr_engine *e, ckr_pos *p, int alpha, int beta, int depth, int ply, int floor)
{
    if (enter_node(e, ply))
        return 0;
    int is_pv = beta - alpha > 1;
    int quiet = e->rep_len - floor; /* reversible plies since the last man move or capture */
    if (ply > 0) {
        if (quiet >= FORTY_MOVE_PLIES || is_repetition(e, p->hash, floor))
            return draw_score(e, ply);
        /* Mate-distance pruning: no line can beat a win found nearer the root. */
        int mate_lo = -CKR_WIN + ply, mate_hi = CKR_WIN - ply - 1;
        if (alpha < mate_lo)
            alpha = mate_lo;
        if (beta > mate_hi)
            beta = mate_hi;
        if (alpha >= beta)
            return alpha;
        /* A conversion (capture or man move) may land in the database. */
        int db;
        if (e->egdb && quiet == 0 && egdb_leaf(e, p, ply, &db))
            return db;
    }
    if (ply >= CKR_MAX_PLY - 1)
        return eval_quiet(e, p, quiet, ply);

    /* Quiescence: without depth left, only a forced capture is searched on;
     * a quiet position is scored as it stands (or lost, with no move at all). */
    int threat_ext = 0;
    if (depth <= 0) {
        if (!ckr_has_capture(p)) {
            if (!bb_has_quiet(p))
                return -CKR_WIN + ply;
            if (QS_THREAT && depth == 0 && opponent_threat(p)) {
                threat_ext = 1; /* one quiet ply more, its replies at depth -1 */
                e->pvs.qs_threats++;
            } else {
                int rs;
                if (e->rote && rote_leaf(e, p, ply, &rs))
                    return rs;
                return eval_quiet(e, p, quiet, ply);
            }
        }
        depth = 0;
    }

    e->tt_probes++;
    tt_entry *t = tt_probe(&e->tt, p->hash);
    int tt_move = 255;
    if (t) {
        e->tt_hits++;
        tt_move = t->move;
        int ts = score_from_tt(t->score, ply);
        int bound = t->bound & 3;
        if (!is_pv && ply > 0 && t->depth >= depth &&
            (bound == BOUND_EXACT || (bound == BOUND_LOWER && ts >= beta) ||
             (bound == BOUND_UPPER && ts <= alpha)))
            return ts;
    }

    /* Whether the node is quiet (no capture pending for either side), asked
     * only by the candidates that need it. */
    int quiet_node = 0, threat = 0;
    if (IIR_DEPTH && ply > 0 && depth >= IIR_DEPTH && !t)
        depth--;
    if ((LMP_DEPTH || RFP_DEPTH || LMR_SCHEME || RAZOR_DEPTH) && depth > 0 && !ckr_has_capture(p)) {
        threat = opponent_threat(p);
        quiet_node = !threat && bb_has_quiet(p); /* a side with no move at all has lost: no static cut */
    }
    if (RFP_DEPTH && quiet_node && !is_pv && ply > 0 && depth <= RFP_DEPTH && abs(beta) < CKR_DB_BOUND) {
        int s = eval_quiet(e, p, quiet, ply);
        if (s - RFP_MARGIN * depth >= beta) {
            e->pvs.pruned++;
            return s;
        }
        if (RAZOR_DEPTH && depth <= RAZOR_DEPTH && s + RAZOR_MARGIN * depth <= alpha) {
            e->pvs.pruned++;
            return s;
        }
    }

    if (PROBCUT_DEPTH && !is_pv && ply > 0 && depth >= PROBCUT_DEPTH && abs(beta) < CKR_DB_BOUND - 2 * PROBCUT_MARGIN) {
        /* The moves at this ply are not generated yet, so the shallow search
         * may use this ply's move list. */
        int rb = beta + PROBCUT_MARGIN;
        int v = pvs(e, p, rb - 1, rb, depth - PROBCUT_R, ply, floor);
        if (e->aborted)
            return 0;
        if (v >= rb) {
            e->pvs.pruned++;
            return v;
        }
    }

    ckr_move *moves = e->moves[ply];
    int n = ckr_gen_moves(p, moves);
    if (n == 0)
        return -CKR_WIN + ply;
    int capture = moves[0].ncaps > 0;
    int lmp_from = LMP_DEPTH && quiet_node && !is_pv && ply > 0 && depth <= LMP_DEPTH ? LMP_BASE + depth * depth
                                                                                    : CKR_MAX_MOVES;
    int hash_idx = tt_move < n ? tt_move : -1;
#ifndef CKR_NO_ETC
    /* Enhanced transposition cutoff: a successor the table already proves
     * bad enough for the opponent cuts here without a search. */
    if (!is_pv && ply > 0 && depth >= ETC_DEPTH) {
        int nd = depth - 1 + ((n == 1 || capture) ? 1 : 0);
        for (int i = 0; i < n; i++) {
            ckr_make(p, &moves[i]);
            tt_entry *c = tt_probe(&e->tt, p->hash);
            int rep = 0; /* a successor that repeats the line is a draw, whatever the table says */
            if (c && !irreversible(&moves[i]))
                for (int j = e->rep_len - 1; j >= floor && !rep; j -= 2)
                    rep = e->rep[j] == p->hash;
            ckr_unmake(p, &moves[i]);
            if (!c || rep || c->depth < nd)
                continue;
            int cb = c->bound & 3, v = -score_from_tt(c->score, ply + 1);
            if ((cb == BOUND_UPPER || cb == BOUND_EXACT) && v >= beta) {
                e->etc_cutoffs++;
                return v;
            }
        }
    }
#endif

    e->rep[e->rep_len++] = p->hash;
    int *sc = e->scores[ply];
    score_moves(e, p, moves, sc, n, ply, hash_idx);
    /* Remember generation order so the TT can name the best move by index. */
    int order[CKR_MAX_MOVES];
    for (int i = 0; i < n; i++)
        order[i] = i;

    int best = -CKR_INF, best_idx = 255, orig_alpha = alpha, tried = 0;
    for (int i = 0; i < n; i++) {
        /* selection sort carrying the original index */
        int bi = i;
        for (int j = i + 1; j < n; j++)
            if (sc[j] > sc[bi])
                bi = j;
        if (bi != i) {
            ckr_move tm = moves[i];
            moves[i] = moves[bi];
            moves[bi] = tm;
            int ts = sc[i];
            sc[i] = sc[bi];
            sc[bi] = ts;
            int to = order[i];
            order[i] = order[bi];
            order[bi] = to;
        }
        if (ply == 0 && e->root_skip[order[i]])
            continue; /* it gives away the database's value */
        ckr_move *m = &moves[i];
        /* A forced single reply, or any capture, costs no depth. */
        int ext = (n == 1 || capture) ? 1 : 0;
        int child_floor = irreversible(m) ? e->rep_len : floor;
        int nd = threat_ext ? -1 : depth - 1 + ext;
        e->line[ply] = m;
        ckr_make(p, m);
        /* The child's first probe would wait on memory; start the load now,
         * while it checks repetitions and the database. */
        tt_prefetch(&e->tt, p->hash);
        int plain = !capture && !(m->flags & CKR_MOVE_CROWN) && sc[i] < (1 << 27);
        if (i >= lmp_from && plain && tried && best > -CKR_WIN_BOUND && !ckr_has_capture(p)) {
            ckr_unmake(p, m); /* late-move pruning: not a sacrifice, so skipped */
            e->pvs.pruned++;
            continue;
        }
        int v;
        if (tried++ == 0) {
            v = -pvs(e, p, -beta, -alpha, nd, ply + 1, child_floor);
        } else {
            int r = 0;
#if LMR_SCHEME == 1
            if (depth >= 3 && i >= 2 && plain) {
                r = lmr_table[depth < 63 ? depth : 63][i < 63 ? i : 63];
                r += !is_pv && sc[i] <= 0;
                r -= is_pv + threat + ckr_has_capture(p);
                r = r < 0 ? 0 : r > nd - 1 ? nd - 1 : r;
            }
#else
            if (depth >= 3 && i >= LMR_FIRST && plain)
                r = 1 + (depth >= 6 && i >= LMR_SECOND);
#endif
            e->pvs.zw_searches++;
            e->pvs.lmr_searches += r > 0;
            v = -pvs(e, p, -alpha - 1, -alpha, nd - r, ply + 1, child_floor);
            if (v > alpha && r) {
                e->pvs.lmr_researches++;
                v = -pvs(e, p, -alpha - 1, -alpha, nd, ply + 1, child_floor);
            }
            if (v > alpha && v < beta) {
                e->pvs.zw_researches++;
                v = -pvs(e, p, -beta, -alpha, nd, ply + 1, child_floor);
            }
        }
        ckr_unmake(p, m);
        if (e->aborted) {
            e->rep_len--;
            return 0;
        }
        if (v > best) {
            best = v;
            best_idx = order[i];
            if (v > alpha) {
                alpha = v;
                update_pv(e, ply, m);
                if (ply == 0) {
                    e->root_score = v;
                    e->root_done = 1;
                }
                if (v >= beta) {
                    e->cutoffs++;
                    e->first_cutoffs += i == 0;
                    if (!m->ncaps && ply < CKR_MAX_PLY) {
                        uint64_t k = move_key(m);
                        if (e->killers[ply][0] != k) {
                            e->killers[ply][1] = e->killers[ply][0];
                            e->killers[ply][0] = k;
                        }
                        int32_t *h = &e->history[p->side][m->from][m->to];
                        *h += depth * depth;
                        int worst = *h;
                        if (HIST_MALUS)
                            for (int j = 0; j < i; j++)
                                if (!moves[j].ncaps) {
                                    int32_t *f = &e->history[p->side][moves[j].from][moves[j].to];
                                    *f -= depth * depth;
                                    worst = -*f > worst ? -*f : worst;
                                }
                        if (worst > (1 << 24))
                            for (int a = 0; a < 2; a++)
                                for (int b = 0; b < 64; b++)
                                    for (int c = 0; c < 64; c++)
                                        e->history[a][b][c] /= 2;
                    }
                    break;
                }
            }
        }
    }
    e->rep_len--;
    int bound = best >= beta ? BOUND_LOWER : best > orig_alpha ? BOUND_EXACT : BOUND_UPPER;
    int stored = tt_store(&e->tt, p->hash, score_to_tt(best, ply), depth, bound, bound == BOUND_UPPER ? 255 : best_idx);
    e->pvs.tt_stores++;
    e->pvs.tt_evictions += stored != TT_STORED;
    e->pvs.tt_evict_deep += stored == TT_EVICTED_DEEP;
    return best;
}

/* ---- root drivers ---- */

/* Aspiration window around the last score; widened on failure. */
static int aspiration(ckr_engine *e, ckr_pos *p, int depth, int score)
{
    int delta = ASP_DELTA, alpha = -CKR_INF, beta = CKR_INF, v;
    if (depth >= 4 && abs(score) < CKR_WIN_BOUND) {
        alpha = score - delta;
        beta = score + delta;
    }
    for (;;) {
        int windowed = alpha > -CKR_INF || beta < CKR_INF;
        e->pvs.asp_searches += windowed;
        v = pvs(e, p, alpha, beta, depth, 0, 0);
        if (e->aborted)
            return v;
        e->pvs.asp_fails += windowed && (v <= alpha || v >= beta);
        if (v <= alpha) {
            alpha = alpha - delta < -CKR_INF ? -CKR_INF : alpha - delta;
            delta *= 3;
        } else if (v >= beta) {
            beta = beta + delta > CKR_INF ? CKR_INF : beta + delta;
            delta *= 3;
        } else {
            return v;
        }
    }
}

/* Zero-window searches keep no PV beyond the first move, so the rest of the
 * line is read back from the transposition table's best moves. */
static void tt_pv(ckr_engine *e, ckr_pos *root, const ckr_move *first)
{
    ckr_pos p = *root;
    ckr_move buf[CKR_MAX_MOVES];
    uint64_t seen[CKR_MAX_PV];
    int n = 0;
    e->pv[0][n++] = *first;
    ckr_make(&p, first);
    while (n < CKR_MAX_PV) {
        for (int i = 0; i < n - 1; i++)
            if (seen[i] == p.hash)
                goto done; /* a cycle in the table: stop before repeating */
        seen[n - 1] = p.hash;
        tt_entry *t = tt_probe(&e->tt, p.hash);
        if (!t || t->move == 255)
            break;
        int cnt = ckr_gen_moves(&p, buf);
        if (t->move >= cnt)
            break;
        e->pv[0][n++] = buf[t->move];
        ckr_make(&p, &buf[t->move]);
    }
done:
    e->pvlen[0] = n;
}

/* MTD(f): zero-window searches that close in on the score from a first guess.
 * The PV is the one of the last pass that failed high (it found the move). */
static int mtdf(ckr_engine *e, ckr_pos *p, int depth, int guess)
{
    int lower = -CKR_INF, upper = CKR_INF, g = guess;
    ckr_move best_pv[CKR_MAX_PLY + 1];
    int best_len = 0;
    while (lower < upper) {
        int beta = g == lower ? g + 1 : g;
        g = pvs(e, p, beta - 1, beta, depth, 0, 0);
        if (e->aborted)
            return g;
        if (g < beta) {
            upper = g;
        } else {
            lower = g;
            best_len = e->pvlen[0];
            memcpy(best_pv, e->pv[0], (size_t)best_len * sizeof(ckr_move));
        }
    }
    if (best_len)
        tt_pv(e, p, &best_pv[0]);
    return g;
}

int search_pvs_root(ckr_engine *e, ckr_pos *p, int depth, int score)
{
    return e->limits.driver == CKR_DRIVER_MTDF || PVS_MTDF ? mtdf(e, p, depth, score) : aspiration(e, p, depth, score);
}
