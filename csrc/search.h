/* search.h -- the searchers' shared state and helpers (internal, not part
 * of the cdef).
 *
 * One engine (struct ckr_engine) holds the transposition table (tt.h), the
 * stop tickets (stop.h), the evaluator chosen from the table of kinds
 * (eval_kind.h), and the per-search state every searcher works on.  Each
 * searcher lives in its own file:
 *   search_pvs.c        CKR_MODE_PVS: iterative-deepening PVS with a table,
 *                       hash-move/killer/history ordering, late-move
 *                       reductions and a forced-capture quiescence, under
 *                       aspiration windows or MTD(f)
 *   search_samuel.c     CKR_MODE_SAMUEL: Samuel's 1959 ply rules
 *   search_shannon_a.c  CKR_MODE_SHANNON_A: every line to a fixed depth
 *   search_shannon_b.c  CKR_MODE_SHANNON_B: Shannon's selective type B
 *   search_fogel.c      CKR_MODE_FOGEL: Chellapilla and Fogel's search
 * search.c drives them from the root (ckr_search), engine.c owns the
 * engine's lifetime and labels.c searches batches of training positions.
 *
 * The search never prints: it reports through the engine's callback.  Scores
 * carry the distance to a win (CKR_WIN - ply), which is Samuel's direction
 * sense.  Node counts depend only on the position, the limits, the evaluator
 * and the TT contents, so a cleared engine repeats them exactly.  The helpers
 * below are inline: every searcher calls them at each node. */
#ifndef CKR_SEARCH_H
#define CKR_SEARCH_H

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bitboard.h"
#include "eval_kind.h"
#include "stop.h"
#include "tt.h"

#define HIST_MAX 1024

/* The network's scores of recent leaves, by Zobrist key: leaves transpose
 * often, and a cached score is the same integer the network gives, so node
 * counts do not change.  An entry is the key's top 48 bits and the score's
 * low 16 (0: empty; no score needs more than 16 bits once clamped). */
#define EVAL_CACHE_BITS 15
#define EVAL_CACHE_SIZE (1u << EVAL_CACHE_BITS)

struct ckr_engine {
    ckr_tt tt;
    ckr_eval eval;
    const ckr_eval_kind *kind; /* eval's row in the table of kinds, chosen when it is set */
    ckr_piecenet_fast *net;  /* eval packed for the search when it is a piece network (NULL: not) */
    uint64_t *net_cache;     /* EVAL_CACHE_SIZE entries, beside net */
    const ckr_rote *rote;    /* Samuel's rote memory, probed at the leaves (NULL: off) */
    const ckr_egdb *egdb;    /* the endgame database, probed after conversions (NULL: off) */
    int egdb_pieces;         /* the most pieces it holds */
    ckr_info_fn callback;
    void *userdata;
    ckr_stop stop;              /* stop tickets (stop.h): the one part any thread may touch */
    /* per-search state */
    uint64_t search_ticket;     /* the running search's ticket */
    ckr_limits limits;
    struct timespec start;
    int64_t last_report_ms;
    int64_t nodes;
    int64_t tt_hits;
    int64_t tt_probes;
    int64_t cutoffs;
    int64_t first_cutoffs;
    int64_t rote_hits;
    int64_t egdb_hits;
    int64_t etc_cutoffs;
    /* Issue 32, search depth: the modern search's re-search and table figures
     * (ckr_api.h), reset at its first iteration and copied into each report. */
    ckr_pvs_stats pvs;
    int egdb_root;              /* the root's value in the database (-1: not held) */
    int egdb_distance;          /* its distance to conversion (-1: not held) */
    int root_kept;              /* root moves left to search */
    int root_done;              /* a root move of this iteration was searched to the end and raised alpha */
    int root_score;             /* its score */
    uint8_t root_skip[CKR_MAX_MOVES]; /* root moves (generation order) that give the value away */
    int seldepth;
    int aborted;
    int samuel_min;
    int fogel_depth;
    uint64_t rep[HIST_MAX + CKR_MAX_PLY + 2];
    int rep_len;
    int rep_floor[CKR_MAX_PLY + 2];
    uint64_t killers[CKR_MAX_PLY][2];
    int32_t history[2][64][64];
    ckr_move moves[CKR_MAX_PLY + 1][CKR_MAX_MOVES];
    int scores[CKR_MAX_PLY + 1][CKR_MAX_MOVES];
    ckr_move pv[CKR_MAX_PLY + 1][CKR_MAX_PLY + 1];
    int pvlen[CKR_MAX_PLY + 1];
    const ckr_move *line[CKR_MAX_PLY + 1]; /* line[k]: the move made at ply k on the current path */
    /* ---- the piece network's leaf path (issue 32, piece_net_acc.c) ---- */
    int net_path;            /* 0: net's accumulator slots, 1: net's first layer from scratch, 2: the
                                reference (ckr_engine_set_piecenet_path; all give the same integers) */
};

/* The 40-move rule: 80 plies without a man move or capture draw.  The static
 * score shrinks as those plies pile up, so a side that is ahead makes
 * progress (trades, men forward) instead of shuffling kings. */
#define FORTY_MOVE_PLIES 80

/* prototypes: one searcher per file; each returns the score for the side to
 * move at p and leaves its principal variation in e->pv[0] */
/* search_pvs.c: one iteration at `depth` from the root, with the driver the
 * limits name (aspiration windows around `score`, or MTD(f) from it). */
int search_pvs_root(ckr_engine *e, ckr_pos *p, int depth, int score);
/* search_samuel.c: from ply 0 with minimum ply e->samuel_min. */
int search_samuel(ckr_engine *e, ckr_pos *p, int alpha, int beta, int ply, int last_jump);
/* search_shannon_a.c */
int search_shannon_a(ckr_engine *e, ckr_pos *p, int depth, int ply);
/* search_shannon_b.c: full width for `base` plies, selective after. */
int search_shannon_b(ckr_engine *e, ckr_pos *p, int alpha, int beta, int ply, int base);
/* search_fogel.c: to depth e->fogel_depth plus the extensions. */
int search_fogel(ckr_engine *e, ckr_pos *p, int alpha, int beta, int ply, int forced, int active, int root_side,
                 int floor);

/* ---- small helpers ---- */

static inline uint64_t move_key(const ckr_move *m)
{
    return ((uint64_t)m->caps << 16) | ((uint64_t)m->to << 8) | m->from;
}

/* ---- limits ---- */

static inline int64_t elapsed_us(const ckr_engine *e)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)(now.tv_sec - e->start.tv_sec) * 1000000 + (now.tv_nsec - e->start.tv_nsec) / 1000;
}

static inline int64_t elapsed_ms(const ckr_engine *e) { return elapsed_us(e) / 1000; }

static inline int check_limits(ckr_engine *e)
{
    if (e->aborted)
        return 1;
    if (stop_hit(&e->stop, e->search_ticket) || (e->limits.nodes > 0 && e->nodes >= e->limits.nodes))
        e->aborted = 1;
    else if ((e->nodes & 1023) == 0 && e->limits.hard_ms > 0 && elapsed_ms(e) >= e->limits.hard_ms)
        e->aborted = 1;
    return e->aborted;
}

/* ---- repetition ---- */

/* A repetition is any earlier position, same side to move, since the last
 * man move or capture.  In search one repetition already scores as a draw. */
static inline int is_repetition(const ckr_engine *e, uint64_t key, int floor)
{
    for (int i = e->rep_len - 2; i >= floor; i -= 2)
        if (e->rep[i] == key)
            return 1;
    return 0;
}

static inline int irreversible(const ckr_move *m)
{
    return m->ncaps || !(m->flags & CKR_MOVE_KING);
}

/* ---- nodes ---- */

static inline void update_pv(ckr_engine *e, int ply, const ckr_move *m)
{
    e->pv[ply][0] = *m;
    int n = e->pvlen[ply + 1];
    if (n > CKR_MAX_PLY - 1)
        n = CKR_MAX_PLY - 1;
    memcpy(&e->pv[ply][1], e->pv[ply + 1], (size_t)n * sizeof(ckr_move));
    e->pvlen[ply] = n + 1;
}

/* ---- PVS ---- */

/* Every searcher's node entry: count it, clear its PV, and say whether to abort. */
static inline int enter_node(ckr_engine *e, int ply)
{
    if (e->aborted) /* a re-search asked for after the stop: not a node */
        return 1;
    e->pvlen[ply] = 0;
    e->nodes++;
    if (ply > e->seldepth)
        e->seldepth = ply;
    return check_limits(e);
}

/* The opening every searcher but PVS shares: enter the node, generate its
 * moves, and score a side with none as lost.  Returns 1 when that settles the
 * node (*score: 0 on an abort, else the loss), or 0 with its *n moves in
 * e->moves[ply]. */
static inline int open_node(ckr_engine *e, ckr_pos *p, int ply, int *n, int *score)
{
    if (enter_node(e, ply)) {
        *score = 0;
        return 1;
    }
    *n = ckr_gen_moves(p, e->moves[ply]);
    if (*n == 0) {
        *score = -CKR_WIN + ply;
        return 1;
    }
    return 0;
}

/* Fail-soft alpha-beta after a child's value v: the best value even outside
 * the window, a new alpha and line when v raises it; 1 when v >= beta cuts. */
static inline int raise_best(ckr_engine *e, int ply, const ckr_move *m, int v, int *best, int *alpha,
                             int beta)
{
    if (v <= *best)
        return 0;
    *best = v;
    if (v <= *alpha)
        return 0;
    *alpha = v;
    update_pv(e, ply, m);
    return v >= beta;
}

/* The static score at a node.  An evaluator whose row in the table of kinds
 * (eval_kind.h) says it reads the position before the last move (Samuel's
 * terms are differences from it) gets it rebuilt from the current line, and
 * one that reads the game ply gets it; the others pay for neither. */
static inline int leaf_eval(ckr_engine *e, const ckr_pos *p, int ply)
{
    if (e->net) { /* clamped as ckr_evaluate clamps */
        uint64_t *slot = &e->net_cache[p->hash & (EVAL_CACHE_SIZE - 1)];
        uint64_t entry = *slot;
        if (entry && !((entry ^ p->hash) >> 16))
            return (int16_t)(entry & 0xFFFF);
        /* the first layer updated from a nearby leaf's (piece_net_acc.c),
         * unless a check asked for another path */
        int v = e->net_path == 0   ? ckr_piecenet_acc_value(e->net, p, ply)
                : e->net_path == 1 ? ckr_piecenet_fast_value(e->net, p)
                                   : ckr_piecenet_value(&e->eval, p);
        int s = ckr_eval_clamp(v);
        *slot = (p->hash & ~(uint64_t)0xFFFF) | (uint16_t)(int16_t)s;
        return s;
    }
    const ckr_eval_kind *k = e->kind;
    int game_ply = k->needs_ply ? e->limits.game_ply + ply : 0;
    if (!k->needs_parent)
        return ckr_eval_clamp(k->value(&e->eval, p, NULL, game_ply));
    ckr_pos parent;
    const ckr_pos *pp = NULL;
    if (ply > 0) {
        parent = *p;
        ckr_unmake(&parent, e->line[ply - 1]);
        pp = &parent;
    } else if (e->limits.has_parent) {
        pp = &e->limits.parent;
    }
    return ckr_eval_clamp(k->value(&e->eval, p, pp, game_ply));
}

/* Samuel's rote learning at a leaf: a stored position's score replaces the
 * static one.  It was backed up over its stored ply already and is backed up
 * over ply more on the way to the root, so it counts for their sum (Fig. 3);
 * it shrinks CKR_ROTE_DECAY per ply on the way (the sense of direction). */
static inline int rote_leaf(ckr_engine *e, const ckr_pos *p, int ply, int *score)
{
    int s, stored_ply;
    if (!ckr_rote_probe(e->rote, p, &s, &stored_ply))
        return 0;
    e->rote_hits++;
    *score = ckr_rote_decay(s, ply);
    return 1;
}

/* A draw's score for the side to move: the root's side (even plies) counts it
 * contempt below 0, so it plays on in a level position; its opponent above. */
static inline int draw_score(const ckr_engine *e, int ply)
{
    return (ply & 1) ? e->limits.contempt : -e->limits.contempt;
}

#endif
