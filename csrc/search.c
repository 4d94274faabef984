/* search.c -- the three searchers on one core.
 *
 *  CKR_MODE_PVS       iterative-deepening principal-variation search with a
 *                     transposition table, hash-move/killer/history ordering,
 *                     late-move reductions and a forced-capture quiescence.
 *  CKR_MODE_SAMUEL    Samuel's 1959 ply rules (minimum ply, jump and exchange
 *                     conditions, break points 4/5/11/20), minimax by alpha-beta.
 *  CKR_MODE_SHANNON_A Shannon's type A: every line to a fixed depth, plain minimax.
 *
 * The search never prints: it reports through the engine's callback.  Scores
 * carry the distance to a win (CKR_WIN - ply), which is Samuel's direction
 * sense.  Node counts depend only on the position, the limits, the evaluator
 * and the TT contents, so a cleared engine repeats them exactly. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __linux__
#include <sys/mman.h>
#endif
#include "bitboard.h"
#include "eval_kind.h"

#define HIST_MAX 1024
#define BOUND_EXACT 0
#define BOUND_LOWER 1
#define BOUND_UPPER 2

/*
 * Transposition-table entry, 16 bytes:
 *   key    full Zobrist key (verifies the slot)
 *   score  int16, mate scores stored relative to the node
 *   depth  remaining depth, 0..127
 *   bound  BOUND_EXACT / LOWER / UPPER in bits 0-1, search generation in bits 2-7
 *   move   index of the best move in ckr_gen_moves order (255: none); the
 *          generator is deterministic, so an index names the move exactly
 */
typedef struct tt_entry {
    uint64_t key;
    int16_t score;
    int8_t depth;
    uint8_t bound;
    uint8_t move;
    uint8_t pad[3];
} tt_entry;

#define TT_BUCKET 4

/* The network's scores of recent leaves, by Zobrist key: leaves transpose
 * often, and a cached score is the same integer the network gives, so node
 * counts do not change.  An entry is the key's top 48 bits and the score's
 * low 16 (0: empty; no score needs more than 16 bits once clamped). */
#define EVAL_CACHE_BITS 15
#define EVAL_CACHE_SIZE (1u << EVAL_CACHE_BITS)

struct ckr_engine {
    tt_entry *tt;
    uint64_t tt_buckets;     /* power of two */
    uint8_t generation;
    ckr_eval eval;
    const ckr_eval_kind *kind; /* eval's row in the table of kinds, chosen when it is set */
    ckr_piecenet_fast *net;  /* eval packed for the search when it is a piece network (NULL: not) */
    uint64_t *net_cache;     /* EVAL_CACHE_SIZE entries, beside net */
    const ckr_rote *rote;    /* Samuel's rote memory, probed at the leaves (NULL: off) */
    const ckr_egdb *egdb;    /* the endgame database, probed after conversions (NULL: off) */
    int egdb_pieces;         /* the most pieces it holds */
    ckr_info_fn callback;
    void *userdata;
    /* Stopping (ckr_engine_arm, ckr_engine_stop): searches are numbered by
     * tickets 1, 2, ...; a search is stopped once `stopped` reaches its ticket.
     * These three may be touched from any thread; the rest only by the search. */
    _Atomic uint64_t ticket;    /* the latest ticket handed out */
    _Atomic uint64_t started;   /* the ticket of the latest search that began */
    _Atomic uint64_t stopped;   /* every search with a ticket <= this one is stopped */
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
};

/* prototypes */
static int64_t elapsed_us(const ckr_engine *e);
static int64_t elapsed_ms(const ckr_engine *e);
static int check_limits(ckr_engine *e);
static int pvs(ckr_engine *e, ckr_pos *p, int alpha, int beta, int depth, int ply, int irrev);
static int samuel(ckr_engine *e, ckr_pos *p, int alpha, int beta, int ply, int last_jump);
static int minimax(ckr_engine *e, ckr_pos *p, int depth, int ply);

static inline uint64_t move_key(const ckr_move *m)
{
    return ((uint64_t)m->caps << 16) | ((uint64_t)m->to << 8) | m->from;
}

/* ---- engine lifetime ---- */

/* The table is zeroed memory of its own mapping, and on Linux it asks for
 * huge pages: a probe lands on a random slot, and with 4 KB pages nearly every
 * probe also misses the TLB (perf put two fifths of the search's time on the
 * probe's load).  A fresh mapping is untouched zero pages, so clearing a 4 GB
 * table takes microseconds and gives its resident memory back, where memset
 * would take seconds and touch every page. */
static tt_entry *tt_alloc(uint64_t entries)
{
    size_t bytes = entries * sizeof(tt_entry);
#if defined(__linux__) && defined(MAP_ANONYMOUS)
    /* Map 2 MB more and trim both ends, so the table starts on a huge-page boundary. */
    const size_t huge = (size_t)2 << 20;
    char *raw = mmap(NULL, bytes + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    char *t = (char *)(((uintptr_t)raw + huge - 1) & ~(uintptr_t)(huge - 1));
    if (t > raw)
        munmap(raw, (size_t)(t - raw));
    munmap(t + bytes, (size_t)(raw + huge - t)); /* the tail: never empty, t < raw + huge */
#ifdef MADV_HUGEPAGE
    madvise(t, bytes, MADV_HUGEPAGE); /* advice only: without it the table still works */
#endif
    return (tt_entry *)t;
#else
    return calloc(entries, sizeof(tt_entry));
#endif
}

static void tt_free(tt_entry *t, uint64_t entries)
{
    if (!t)
        return;
#if defined(__linux__) && defined(MAP_ANONYMOUS)
    munmap(t, entries * sizeof(tt_entry));
#else
    (void)entries;
    free(t);
#endif
}

ckr_engine *ckr_engine_new(int hash_mb)
{
    ckr_init();
    ckr_engine *e = calloc(1, sizeof *e);
    if (!e)
        return 0;
    e->eval.kind = CKR_EVAL_DEFAULT;
    e->kind = ckr_eval_kind_of(CKR_EVAL_DEFAULT);
    atomic_init(&e->ticket, 0);
    atomic_init(&e->started, 0);
    atomic_init(&e->stopped, 0);
    if (ckr_engine_set_hash(e, hash_mb) != 0) {
        free(e);
        return 0;
    }
    return e;
}

void ckr_engine_free(ckr_engine *e)
{
    if (!e)
        return;
    ckr_piecenet_fast_free(e->net);
    free(e->net_cache);
    tt_free(e->tt, e->tt_buckets * TT_BUCKET);
    free(e);
}

int ckr_engine_set_hash(ckr_engine *e, int hash_mb)
{
    if (hash_mb < 1)
        hash_mb = 1;
    uint64_t bytes = (uint64_t)hash_mb << 20, buckets = 1;
    while (buckets * 2 * TT_BUCKET * sizeof(tt_entry) <= bytes)
        buckets *= 2;
    tt_entry *t = tt_alloc(buckets * TT_BUCKET);
    if (!t)
        return -1;
    tt_free(e->tt, e->tt_buckets * TT_BUCKET);
    e->tt = t;
    e->tt_buckets = buckets;
    return 0;
}

void ckr_engine_clear(ckr_engine *e)
{
    size_t n = e->tt_buckets * TT_BUCKET;
    tt_entry *t = tt_alloc(n); /* a fresh mapping, not memset (see tt_alloc) */
    if (t) {
        tt_free(e->tt, n);
        e->tt = t;
    } else {
        memset(e->tt, 0, n * sizeof(tt_entry));
    }
    memset(e->history, 0, sizeof e->history);
    memset(e->killers, 0, sizeof e->killers);
    e->generation = 0;
}

void ckr_engine_set_eval(ckr_engine *e, const ckr_eval *eval)
{
    e->eval = *eval;
    e->kind = ckr_eval_kind_of(eval->kind);
    ckr_piecenet_fast_free(e->net);
    free(e->net_cache);
    e->net_cache = NULL;
    e->net = e->kind->packed ? ckr_piecenet_fast_new(eval) : NULL;
    if (e->net) {
        e->net_cache = calloc(EVAL_CACHE_SIZE, sizeof *e->net_cache);
        if (!e->net_cache) { /* the network then runs uncached through the reference */
            ckr_piecenet_fast_free(e->net);
            e->net = NULL;
        }
    }
}

void ckr_engine_set_rote(ckr_engine *e, const ckr_rote *rote) { e->rote = rote; }

void ckr_engine_set_egdb(ckr_engine *e, const ckr_egdb *db, int max_pieces)
{
    e->egdb = max_pieces >= 2 ? db : NULL;
    e->egdb_pieces = db ? max_pieces : 0;
}

void ckr_engine_set_callback(ckr_engine *e, ckr_info_fn fn, void *userdata)
{
    e->callback = fn;
    e->userdata = userdata;
}

/* ---- stopping ----
 * A stop names a ticket and ends every search whose ticket is not above it,
 * so it reaches the search it was meant for even before that search began,
 * and never one armed after it.  `stopped` only grows (a late stop of an old
 * ticket cannot undo a newer one). */

static void stop_upto(ckr_engine *e, uint64_t t)
{
    uint64_t cur = atomic_load(&e->stopped);
    while (cur < t && !atomic_compare_exchange_weak(&e->stopped, &cur, t))
        ;
}

uint64_t ckr_engine_arm(ckr_engine *e)
{
    /* A ticket above `started` is still waiting for its search: hand it out
     * again.  Otherwise issue the next one. */
    uint64_t t = atomic_load(&e->ticket);
    while (t == atomic_load(&e->started))
        if (atomic_compare_exchange_weak(&e->ticket, &t, t + 1))
            return t + 1;
    return t;
}

void ckr_engine_stop(ckr_engine *e) { stop_upto(e, atomic_load(&e->ticket)); }

void ckr_engine_stop_search(ckr_engine *e, uint64_t ticket)
{
    if (ticket <= atomic_load(&e->ticket)) /* never a ticket not yet handed out */
        stop_upto(e, ticket);
}

/* Read at every node: a relaxed load is a plain one on the usual machines. */
static inline int stop_requested(ckr_engine *e)
{
    return atomic_load_explicit(&e->stopped, memory_order_relaxed) >= e->search_ticket;
}

/* ---- limits ---- */

static int64_t elapsed_us(const ckr_engine *e)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)(now.tv_sec - e->start.tv_sec) * 1000000 + (now.tv_nsec - e->start.tv_nsec) / 1000;
}

static int64_t elapsed_ms(const ckr_engine *e) { return elapsed_us(e) / 1000; }

static int64_t nps_of(const ckr_engine *e)
{
    int64_t us = elapsed_us(e);
    return us > 0 ? e->nodes * 1000000 / us : 0;
}

static int check_limits(ckr_engine *e)
{
    if (e->aborted)
        return 1;
    if (stop_requested(e) || (e->limits.nodes > 0 && e->nodes >= e->limits.nodes))
        e->aborted = 1;
    else if ((e->nodes & 1023) == 0 && e->limits.hard_ms > 0 && elapsed_ms(e) >= e->limits.hard_ms)
        e->aborted = 1;
    return e->aborted;
}

/* ---- transposition table ---- */

static inline int score_to_tt(int s, int ply)
{
    return s > CKR_WIN_BOUND ? s + ply : s < -CKR_WIN_BOUND ? s - ply : s;
}

static inline int score_from_tt(int s, int ply)
{
    return s > CKR_WIN_BOUND ? s - ply : s < -CKR_WIN_BOUND ? s + ply : s;
}

static tt_entry *tt_probe(ckr_engine *e, uint64_t key)
{
    tt_entry *b = &e->tt[(key & (e->tt_buckets - 1)) * TT_BUCKET];
    for (int i = 0; i < TT_BUCKET; i++)
        if (b[i].key == key)
            return &b[i];
    return 0;
}

static void tt_store(ckr_engine *e, uint64_t key, int score, int depth, int bound, int move)
{
    tt_entry *b = &e->tt[(key & (e->tt_buckets - 1)) * TT_BUCKET], *slot = &b[0];
    int worst = 1 << 30;
    for (int i = 0; i < TT_BUCKET; i++) {
        if (b[i].key == key) {
            slot = &b[i];
            if (move == 255)
                move = b[i].move; /* keep the old best move on an upper bound */
            break;
        }
        /* Replace the shallowest entry, counting stale generations as shallower. */
        int age = (uint8_t)(e->generation - (b[i].bound >> 2)) & 63;
        int value = b[i].key ? b[i].depth - 8 * age : -1000;
        if (value < worst) {
            worst = value;
            slot = &b[i];
        }
    }
    slot->key = key;
    slot->score = (int16_t)score;
    slot->depth = (int8_t)(depth > 127 ? 127 : depth);
    slot->bound = (uint8_t)(bound | ((e->generation & 63) << 2));
    slot->move = (uint8_t)move;
}

/* ---- repetition ---- */

/* A repetition is any earlier position, same side to move, since the last
 * man move or capture.  In search one repetition already scores as a draw. */
static int is_repetition(const ckr_engine *e, uint64_t key, int floor)
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

static void update_pv(ckr_engine *e, int ply, const ckr_move *m)
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

/* The 40-move rule: 80 plies without a man move or capture draw.  The static
 * score shrinks as those plies pile up, so a side that is ahead makes
 * progress (trades, men forward) instead of shuffling kings. */
#define FORTY_MOVE_PLIES 80
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

/* The static score at a node.  An evaluator whose row in the table of kinds
 * (eval_kind.h) says it reads the position before the last move (Samuel's
 * terms are differences from it) gets it rebuilt from the current line, and
 * one that reads the game ply gets it; the others pay for neither. */
static int leaf_eval(ckr_engine *e, const ckr_pos *p, int ply)
{
    if (e->net) { /* clamped as ckr_evaluate clamps */
        uint64_t *slot = &e->net_cache[p->hash & (EVAL_CACHE_SIZE - 1)];
        uint64_t entry = *slot;
        if (entry && !((entry ^ p->hash) >> 16))
            return (int16_t)(entry & 0xFFFF);
        int s = ckr_eval_clamp(ckr_piecenet_fast_value(e->net, p));
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
static int rote_leaf(ckr_engine *e, const ckr_pos *p, int ply, int *score)
{
    int s, stored_ply;
    if (!ckr_rote_probe(e->rote, p, &s, &stored_ply))
        return 0;
    e->rote_hits++;
    *score = ckr_rote_decay(s, ply);
    return 1;
}

static inline int eval_quiet(ckr_engine *e, const ckr_pos *p, int quiet, int ply)
{
    int s = leaf_eval(e, p, ply);
    if (quiet > 10)
        s = s * (90 - quiet) / 80;
    return s;
}

/* A draw's score for the side to move: the root's side (even plies) counts it
 * contempt below 0, so it plays on in a level position; its opponent above. */
static inline int draw_score(const ckr_engine *e, int ply)
{
    return (ply & 1) ? e->limits.contempt : -e->limits.contempt;
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
    if (depth <= 0) {
        if (!ckr_has_capture(p)) {
            if (!bb_has_quiet(p))
                return -CKR_WIN + ply;
            int rs;
            if (e->rote && rote_leaf(e, p, ply, &rs))
                return rs;
            return eval_quiet(e, p, quiet, ply);
        }
        depth = 0;
    }

    e->tt_probes++;
    tt_entry *t = tt_probe(e, p->hash);
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

    ckr_move *moves = e->moves[ply];
    int n = ckr_gen_moves(p, moves);
    if (n == 0)
        return -CKR_WIN + ply;
    int capture = moves[0].ncaps > 0;
    int hash_idx = tt_move < n ? tt_move : -1;
#ifndef CKR_NO_ETC
    /* Enhanced transposition cutoff: a successor the table already proves
     * bad enough for the opponent cuts here without a search. */
    if (!is_pv && ply > 0 && depth >= ETC_DEPTH) {
        int nd = depth - 1 + ((n == 1 || capture) ? 1 : 0);
        for (int i = 0; i < n; i++) {
            ckr_make(p, &moves[i]);
            tt_entry *c = tt_probe(e, p->hash);
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
        int nd = depth - 1 + ext;
        e->line[ply] = m;
        ckr_make(p, m);
        /* The child's first probe would wait on memory; start the load now,
         * while it checks repetitions and the database. */
        __builtin_prefetch(&e->tt[(p->hash & (e->tt_buckets - 1)) * TT_BUCKET]);
        int v;
        if (tried++ == 0) {
            v = -pvs(e, p, -beta, -alpha, nd, ply + 1, child_floor);
        } else {
            int r = 0;
            if (depth >= 3 && i >= LMR_FIRST && !capture && !(m->flags & CKR_MOVE_CROWN) && sc[i] < (1 << 27))
                r = 1 + (depth >= 6 && i >= LMR_SECOND);
            v = -pvs(e, p, -alpha - 1, -alpha, nd - r, ply + 1, child_floor);
            if (v > alpha && r)
                v = -pvs(e, p, -alpha - 1, -alpha, nd, ply + 1, child_floor);
            if (v > alpha && v < beta)
                v = -pvs(e, p, -beta, -alpha, nd, ply + 1, child_floor);
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
                        if (*h > (1 << 24))
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
    tt_store(e, p->hash, score_to_tt(best, ply), depth, bound, bound == BOUND_UPPER ? 255 : best_idx);
    return best;
}

/* ---- Samuel's ply rules ---- */

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

static int samuel(ckr_engine *e, ckr_pos *p, int alpha, int beta, int ply, int last_jump)
{
    if (enter_node(e, ply))
        return 0;
    ckr_move *moves = e->moves[ply];
    int n = ckr_gen_moves(p, moves);
    if (n == 0)
        return -CKR_WIN + ply;
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
        int v = -samuel(e, p, -beta, -alpha, ply + 1, jump_next);
        ckr_unmake(p, &moves[i]);
        if (e->aborted)
            return 0;
        if (v > best) {
            best = v;
            if (v > alpha) {
                alpha = v;
                update_pv(e, ply, &moves[i]);
                if (v >= beta)
                    break;
            }
        }
    }
    return best;
}

/* ---- Shannon type A ---- */

static int minimax(ckr_engine *e, ckr_pos *p, int depth, int ply)
{
    if (enter_node(e, ply))
        return 0;
    ckr_move *moves = e->moves[ply];
    int n = ckr_gen_moves(p, moves);
    if (n == 0)
        return -CKR_WIN + ply;
    if (depth <= 0 || ply >= CKR_MAX_PLY - 1)
        return leaf_eval(e, p, ply);
    int best = -CKR_INF;
    for (int i = 0; i < n; i++) {
        e->line[ply] = &moves[i];
        ckr_make(p, &moves[i]);
        int v = -minimax(e, p, depth - 1, ply + 1);
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

/* ---- Shannon type B (its own file) ---- */

#include "search_shannon_b.h"

/* ---- Chellapilla and Fogel ---- */

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
#define FOGEL_MAX_EXTENSION 4
static int fogel(ckr_engine *e, ckr_pos *p, int alpha, int beta, int ply, int forced, int active,
                 int root_side)
{
    if (enter_node(e, ply))
        return 0;
    ckr_move *moves = e->moves[ply];
    int n = ckr_gen_moves(p, moves);
    if (n == 0)
        return -CKR_WIN + ply;
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
    for (int i = 0; i < n; i++) {
        e->line[ply] = &moves[i];
        ckr_make(p, &moves[i]);
        int v = -fogel(e, p, -beta, -alpha, ply + 1, forced, active, root_side);
        ckr_unmake(p, &moves[i]);
        if (e->aborted)
            return 0;
        if (v > best) {  /* fail-soft: the best value, even outside the window */
            best = v;
            if (v > alpha) {
                alpha = v;
                update_pv(e, ply, &moves[i]);
                if (v >= beta)
                    break;
            }
        }
    }
    return best;
}

/* ---- root drivers ---- */

/* Aspiration window around the last score; widened on failure. */
static int aspiration(ckr_engine *e, ckr_pos *p, int depth, int score)
{
    int delta = 30, alpha = -CKR_INF, beta = CKR_INF, v;
    if (depth >= 4 && abs(score) < CKR_WIN_BOUND) {
        alpha = score - delta;
        beta = score + delta;
    }
    for (;;) {
        v = pvs(e, p, alpha, beta, depth, 0, 0);
        if (e->aborted)
            return v;
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
        tt_entry *t = tt_probe(e, p.hash);
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

/* ---- driver ---- */

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

int ckr_search(ckr_engine *e, const ckr_pos *pos, const uint64_t *history, int nhistory,
               const ckr_limits *limits, ckr_info *result)
{
    /* Take the armed ticket (or arm one now): stops from here on end this search. */
    e->search_ticket = ckr_engine_arm(e);
    atomic_store(&e->started, e->search_ticket);
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
    e->seldepth = 0;
    e->aborted = 0;
    e->generation++;
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
            int v = mode == CKR_MODE_SAMUEL ? samuel(e, &p, -CKR_INF, CKR_INF, 0, 0)
                  : mode == CKR_MODE_FOGEL ? fogel(e, &p, -CKR_INF, CKR_INF, 0, 0, 0, p.side)
                  : mode == CKR_MODE_SHANNON_B ? shannon_b(e, &p, -CKR_INF, CKR_INF, 0, depth)
                  : minimax(e, &p, depth, 0);
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
    for (int depth = 1; depth <= maxdepth; depth++) {
        e->seldepth = 0;
        int v;
        e->root_done = 0;
        if (e->limits.driver == CKR_DRIVER_MTDF)
            v = mtdf(e, &p, depth, score);
        else
            v = aspiration(e, &p, depth, score);
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
        if ((nroot == 1 || e->root_kept == 1) && e->limits.soft_ms > 0)
            break;
        if (e->limits.soft_ms > 0 && elapsed_ms(e) >= e->limits.soft_ms)
            break;
    }
    finish_result(e, result);
    return nroot;
}

/* Training labels: each position searched by the modern search to `depth`
 * (no game history), its score for the side to move into out, clipped to
 * +-2000 centi-men (twenty men: a proven result's score means nothing more
 * to a sigmoid).  The table carries over from one
 * position to the next, as in a game, so the same call repeats its scores. */
int64_t ckr_search_scores(ckr_engine *e, const uint32_t *sets, int64_t n, int depth, int32_t *out)
{
    ckr_limits limits;
    memset(&limits, 0, sizeof limits);
    limits.mode = CKR_MODE_PVS;
    limits.depth = depth;
    ckr_engine_clear(e);
    for (int64_t i = 0; i < n; i++) {
        const uint32_t *s = sets + 5 * i;
        ckr_pos pos;
        if (s[4] > 1 || ckr_pos_set(&pos, s[0], s[1], s[2], s[3], (int)s[4]) != 0)
            return i;
        ckr_info info;
        int score = ckr_search(e, &pos, NULL, 0, &limits, &info) ? info.score : -CKR_WIN;
        const int cap = 2000;
        out[i] = score > cap ? cap : score < -cap ? -cap : score;
    }
    return -1;
}
