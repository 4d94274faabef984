/* search.c -- the root driver (ckr_search): sets up a search, filters the
 * root moves through the endgame database, runs the mode's searcher one
 * iteration at a time and reports each completed one.  The searchers
 * themselves are in search_*.c (search.h lists them). */
#include "search.h"

static int64_t nps_of(const ckr_engine *e)
{
    int64_t us = elapsed_us(e);
    return us > 0 ? e->nodes * 1000000 / us : 0;
}

static void fill_info(ckr_engine *e, ckr_info *info, int depth, int score, const ckr_move *pv, int pvlen)
{
    info->depth = depth;
    info->seldepth = e->seldepth;
    info->score = score;
    info->bound = BOUND_EXACT;
    info->nodes = e->nodes;
    info->time_ms = elapsed_ms(e);
    info->nps = nps_of(e);
    info->tt_hits = e->tt_hits;
    info->tt_probes = e->tt_probes;
    info->cutoffs = e->cutoffs;
    info->first_cutoffs = e->first_cutoffs;
    info->rote_hits = e->rote_hits;
    info->egdb_hits = e->egdb_hits;
    info->egdb_root = e->egdb_root;
    info->pvs = e->pvs;
    /* The database knows better than an evaluation: its value stands unless
     * the search proved a result. */
    if (e->egdb_root >= 0 && abs(score) <= CKR_WIN_BOUND)
        info->score = e->egdb_root == CKR_EGDB_DRAW ? 0
                    : e->egdb_distance >= 0 ? (e->egdb_root == CKR_EGDB_WIN ? 1 : -1) * (CKR_DB_WIN - e->egdb_distance)
                    : e->egdb_root == CKR_EGDB_WIN ? (score > CKR_DB_BOUND ? score : CKR_DB_WIN)
                    : (score < -CKR_DB_BOUND ? score : -CKR_DB_WIN);
    info->pvlen = pvlen > CKR_MAX_PV ? CKR_MAX_PV : pvlen;
    if (pv != info->pv)
        memcpy(info->pv, pv, (size_t)info->pvlen * sizeof(ckr_move));
}

/* The effective ply of a score that came out of the rote memory: the deepest
 * stored position on the principal variation, its stored ply plus its
 * distance from the root (0 when the line's end was not in the memory). */
static void rote_pv_depth(const ckr_engine *e, const ckr_pos *root, ckr_info *info)
{
    info->rote_depth = 0;
    if (!e->rote)
        return;
    ckr_pos p = *root;
    for (int i = 0; i < info->pvlen; i++) {
        ckr_make(&p, &info->pv[i]);
        ckr_rote_key k;
        int s, d;
        ckr_rote_key_of(&p, &k);
        if (ckr_rote_get(e->rote, &k, &s, &d))
            info->rote_depth = d + i + 1;
    }
}

/* The root in the database: keep only the moves that hold its value (a won
 * position's winning moves, a drawn one's drawing moves; every move of a lost
 * one), and let the search choose among them as it likes (it keeps material
 * and plays naturally).  With distances to conversion, a won position also
 * keeps only the moves after which the next capture or crowning can still
 * come before the 40-move rule: entered within it, the win can never slip
 * into a draw however long it takes (every conversion takes a piece or
 * crowns a man, and the best move always brings the conversion one ply
 * nearer).  Returns the first move kept. */
#define DB_RULE_MARGIN 4
static int egdb_root_filter(ckr_engine *e, ckr_pos *p, const ckr_move *root, int nroot)
{
    memset(e->root_skip, 0, sizeof e->root_skip);
    e->egdb_root = e->egdb_distance = -1;
    e->root_kept = nroot;
    if (!e->egdb || e->limits.mode != CKR_MODE_PVS ||
        bb_popcount(p->pieces[0] | p->pieces[1]) > e->egdb_pieces)
        return 0;
    int v = ckr_egdb_probe(e->egdb, p);
    if (v < 0)
        return 0;
    e->egdb_root = v;
    if (v == CKR_EGDB_LOSS)
        return 0;
    int dist = v == CKR_EGDB_WIN ? ckr_egdb_distance(e->egdb, p) : -1;
    e->egdb_distance = dist;
    int want = v == CKR_EGDB_WIN ? CKR_EGDB_LOSS : CKR_EGDB_DRAW, kept = 0, first = 0, nearest = -1;
    int quiet = e->rep_len, child_dist[CKR_MAX_MOVES];
    for (int i = 0; i < nroot; i++) {
        ckr_make(p, &root[i]);
        int c = ckr_egdb_probe(e->egdb, p);
        /* A capture or crowning is the conversion itself. */
        int converts = root[i].ncaps || (root[i].flags & CKR_MOVE_CROWN);
        child_dist[i] = dist < 0 ? -1 : converts ? 0 : ckr_egdb_distance(e->egdb, p);
        ckr_unmake(p, &root[i]);
        e->root_skip[i] = (uint8_t)(c >= 0 && c != want);
        if (child_dist[i] < 0 || e->root_skip[i])
            continue;
        if (nearest < 0 || child_dist[i] < child_dist[nearest])
            nearest = i;
        int quiet_after = irreversible(&root[i]) ? 0 : quiet + 1;
        if (child_dist[i] + quiet_after > FORTY_MOVE_PLIES - DB_RULE_MARGIN)
            e->root_skip[i] = 1; /* the conversion could come too late */
    }
    for (int i = 0; i < nroot; i++)
        if (!e->root_skip[i] && !kept++)
            first = i;
    if (!kept && nearest >= 0) { /* too late for all: the quickest, and hope */
        e->root_skip[nearest] = 0;
        kept = 1;
        first = nearest;
    }
    if (!kept) { /* a database that contradicts itself: trust the search */
        memset(e->root_skip, 0, sizeof e->root_skip);
        kept = nroot;
    }
    e->root_kept = kept;
    return first;
}

/* Reports are thinned to one per limits.info_ms, the first one too (counted from the
 * start): each one takes the GIL in the Python wrapper, which many concurrent searches
 * would otherwise fight over, and a search shorter than that gives its caller only its
 * result, which holds the last iteration anyway. */
static void report(ckr_engine *e, const ckr_info *info)
{
    if (!e->callback)
        return;
    int64_t now = elapsed_ms(e);
    if (e->limits.info_ms > 0 && now - e->last_report_ms < e->limits.info_ms)
        return;
    e->last_report_ms = now;
    e->callback(e->userdata, info);
}

/* The last completed iteration stands; the totals cover the whole search. */
static void finish_result(ckr_engine *e, ckr_info *result)
{
    result->nodes = e->nodes;
    result->rote_hits = e->rote_hits;
    result->egdb_hits = e->egdb_hits;
    result->egdb_root = e->egdb_root;
    result->time_ms = elapsed_ms(e);
    result->nps = nps_of(e);
}

/* The clock's view of the iterations so far (a clocked search only, limits.optimum_ms > 0):
 * how unsettled the best root move is, how the score moved, and how long the
 * iterations took, from which clock_says_stop decides whether to begin another. */
typedef struct {
    uint64_t best;        /* the last iteration's best root move (move_key) */
    double changes;       /* best-move changes, each iteration's count halved */
    int stable;           /* iterations since the best move last changed */
    int scores[3];        /* the last three iterations' scores (newest first) */
    int nscores;
    int64_t ends_us[3];   /* when the last three iterations ended (newest first) */
    int nends;
} clock_state;

/* Best-move changes are noise in the first plies. */
#define CLOCK_FIRST_DEPTH 4

static void clock_note(clock_state *c, int depth, const ckr_move *best, int score, int64_t now_us)
{
    uint64_t key = move_key(best);
    c->changes *= 0.5;
    if (c->nscores > 0 && key != c->best && depth > CLOCK_FIRST_DEPTH) {
        c->changes += 1.0;
        c->stable = 0;
    } else {
        c->stable++;
    }
    c->best = key;
    c->scores[2] = c->scores[1];
    c->scores[1] = c->scores[0];
    c->scores[0] = score;
    if (c->nscores < 3)
        c->nscores++;
    c->ends_us[2] = c->ends_us[1];
    c->ends_us[1] = c->ends_us[0];
    c->ends_us[0] = now_us;
    if (c->nends < 3)
        c->nends++;
}

/* The optimum's factor: up to x1.8 per recent change of the best move (halving each
 * iteration), up to x1.6 for a score that fell half a man below the previous
 * iterations' (their mean: checkers scores swing between odd and even depths), and
 * down to x0.6 for a best move that has held for several iterations. */
static double clock_factor(const clock_state *c, int newest)
{
    double f = 1.0 + 0.8 * c->changes;
    if (c->nscores >= 2) {
        int before = c->nscores >= 3 ? (c->scores[1] + c->scores[2]) / 2 : c->scores[1];
        int fall = before - newest;
        if (fall > 0 && abs(newest) < CKR_WIN_BOUND && abs(before) < CKR_WIN_BOUND)
            f *= 1.0 + 0.6 * (fall > 50 ? 50 : fall) / 50.0;
        else if (c->stable >= 7)
            f *= 0.6;
        else if (c->stable >= 4)
            f *= 0.8;
    }
    return f;
}

/* Stop before the next iteration: past the optimum times the factor (never past
 * the maximum), or when the next iteration, estimated from the growth of the last
 * ones, could not finish before the maximum (its time would be thrown away). */
static int clock_says_stop(const ckr_engine *e, const clock_state *c, int score, int64_t now_us)
{
    double optimum = (double)e->limits.optimum_ms * 1000.0;
    double maximum = e->limits.maximum_ms > 0 ? (double)e->limits.maximum_ms * 1000.0 : 1e18;
    double target = optimum * clock_factor(c, score);
    if (target > maximum)
        target = maximum;
    if ((double)now_us >= target)
        return 1;
    if (c->nends >= 2) {
        double last = (double)(c->ends_us[0] - c->ends_us[1]);
        double before = c->nends >= 3 ? (double)(c->ends_us[1] - c->ends_us[2]) : 0.0;
        double growth = before > 200.0 ? last / before : 2.0;
        growth = growth < 1.3 ? 1.3 : growth > 4.0 ? 4.0 : growth;
        if ((double)now_us + last * growth > maximum)
            return 1;
    }
    return 0;
}

int ckr_search(ckr_engine *e, const ckr_pos *pos, const uint64_t *history, int nhistory,
               const ckr_limits *limits, ckr_info *result)
{
    /* Take the armed ticket (or arm one now): stops from here on end this search. */
    e->search_ticket = stop_begin(&e->stop);
    ckr_pos p = *pos;
    ckr_move root[CKR_MAX_MOVES];
    int nroot = ckr_gen_moves(&p, root);
    e->limits = *limits;
    for (int i = 0; i < 4; i++)
        if (e->limits.samuel_breaks[i] <= 0)
            e->limits.samuel_breaks[i] = (int[]){4, 5, 11, 20}[i];
    clock_gettime(CLOCK_MONOTONIC, &e->start);
    e->last_report_ms = 0;
    e->nodes = e->tt_hits = e->tt_probes = e->cutoffs = e->first_cutoffs = e->rote_hits = e->egdb_hits = 0;
    memset(&e->pvs, 0, sizeof e->pvs);
    e->seldepth = 0;
    e->aborted = 0;
    e->tt.generation++;
    memset(result, 0, sizeof *result);
    result->egdb_root = e->egdb_root = -1;
    if (nhistory > HIST_MAX) {
        history += nhistory - HIST_MAX;
        nhistory = HIST_MAX;
    }
    e->rep_len = 0;
    for (int i = 0; i < nhistory; i++)
        e->rep[e->rep_len++] = history[i];
    if (nroot == 0)
        return 0;
    result->pv[0] = root[egdb_root_filter(e, &p, root, nroot)];
    result->pvlen = 1;
    result->egdb_root = e->egdb_root;

    int mode = e->limits.mode, maxdepth = e->limits.depth > 0 ? e->limits.depth : CKR_MAX_PLY - 4;
    if (maxdepth > CKR_MAX_PLY - 4)
        maxdepth = CKR_MAX_PLY - 4;

    if (mode == CKR_MODE_SAMUEL || mode == CKR_MODE_SHANNON_A || mode == CKR_MODE_FOGEL ||
        mode == CKR_MODE_SHANNON_B) {
        /* A fixed depth gives one pass, as the originals played; with only a
         * clock or node budget the pass is repeated one ply deeper each time. */
        int fixed = e->limits.depth > 0;
        int first = fixed ? e->limits.depth : (mode == CKR_MODE_SAMUEL ? 3 : 4);
        int last = fixed ? first : maxdepth;
        if (first > CKR_MAX_PLY - 4)
            first = last = CKR_MAX_PLY - 4;
        int user_break = e->limits.samuel_breaks[3];
        for (int depth = first; depth <= last; depth++) {
            e->samuel_min = depth;
            e->fogel_depth = depth;
            e->limits.samuel_breaks[3] = user_break < depth ? depth : user_break;
            e->seldepth = 0;
            int v = mode == CKR_MODE_SAMUEL ? search_samuel(e, &p, -CKR_INF, CKR_INF, 0, 0)
                  : mode == CKR_MODE_FOGEL ? search_fogel(e, &p, -CKR_INF, CKR_INF, 0, 0, 0, p.side, 0)
                  : mode == CKR_MODE_SHANNON_B ? search_shannon_b(e, &p, -CKR_INF, CKR_INF, 0, depth)
                  : search_shannon_a(e, &p, depth, 0);
            if (e->aborted || e->pvlen[0] == 0)
                break;
            fill_info(e, result, depth, v, e->pv[0], e->pvlen[0]);
            rote_pv_depth(e, &p, result);
            report(e, result);
            if (abs(v) > CKR_WIN_BOUND || (nroot == 1 && e->limits.soft_ms > 0))
                break;
            if (e->limits.soft_ms > 0 && elapsed_ms(e) >= e->limits.soft_ms)
                break;
        }
        finish_result(e, result);
        return nroot;
    }

    int score = 0;
    int clocked = e->limits.optimum_ms > 0;
    clock_state clock;
    memset(&clock, 0, sizeof clock);
    for (int depth = 1; depth <= maxdepth; depth++) {
        e->seldepth = 0;
        int v;
        e->root_done = 0;
        v = search_pvs_root(e, &p, depth, score);
        if (e->aborted) {
            /* The unfinished iteration's best so far, when some root move was
             * searched to the end and beat the window: a deeper look than the
             * last whole iteration (the PV root move is searched first, so it
             * is either that move, confirmed, or one found better). */
            if (e->limits.driver != CKR_DRIVER_MTDF && e->root_done && e->pvlen[0] > 0 && depth > 1) {
                fill_info(e, result, depth - 1, e->root_score, e->pv[0], e->pvlen[0]);
                rote_pv_depth(e, &p, result);
            }
            break;
        }
        score = v;
        fill_info(e, result, depth, score, e->pv[0], e->pvlen[0]);
        rote_pv_depth(e, &p, result);
        report(e, result);
        /* A proven result needs no deeper look; nor does a single legal move
         * when the clock is running. */
        if (abs(score) > CKR_WIN_BOUND && depth > CKR_WIN - abs(score) + 2)
            break;
        if ((nroot == 1 || e->root_kept == 1) && (e->limits.soft_ms > 0 || clocked))
            break;
        if (clocked) {
            int64_t now = elapsed_us(e);
            clock_note(&clock, depth, &result->pv[0], score, now);
            if (clock_says_stop(e, &clock, score, now))
                break;
        } else if (e->limits.soft_ms > 0 && elapsed_ms(e) >= e->limits.soft_ms) {
            break;
        }
    }
    finish_result(e, result);
    return nroot;
}
