/* egdb.c -- the endgame database (see ckr_egdb.h for the index and values).
 *
 * A signature is solved for both sides to move at once by iterating to a
 * fixpoint: a position is won when some move leads to a position lost for the
 * opponent, lost when every move leads to one won by the opponent (or there is
 * no move), and whatever is still open when a pass changes nothing is a draw.
 * Captures and crownings leave the signature, so their values come from
 * tables built earlier; the first pass settles everything they decide and
 * remembers, for the positions still open, whether some move out of the
 * signature leads to a draw. */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "bitboard.h"
#include "ckr_egdb.h"

#define SIDE_N (CKR_EGDB_MAX_SIDE + 1)

struct ckr_egdb {
    uint8_t *tab[SIDE_N][SIDE_N][SIDE_N][SIDE_N][2];
    uint8_t *dist[SIDE_N][SIDE_N][SIDE_N][SIDE_N][2]; /* distance to conversion, a byte a slot (optional) */
    uint8_t view[SIDE_N][SIDE_N][SIDE_N][SIDE_N][2];  /* VIEW_*: the caller's memory (ckr_egdb_put_view), not ours */
};

#define VIEW_VALUES 1
#define VIEW_DIST 2

/* Install a table (values, or distances with VIEW_DIST), freeing the one it replaces unless
 * that was the caller's memory. */
static void install(ckr_egdb *db, int bm, int bk, int wm, int wk, int side, int which, uint8_t *data, int borrowed)
{
    uint8_t **slot = which == VIEW_DIST ? &db->dist[bm][bk][wm][wk][side] : &db->tab[bm][bk][wm][wk][side];
    uint8_t *view = &db->view[bm][bk][wm][wk][side];
    if (!(*view & which))
        free(*slot);
    *slot = data;
    *view = (uint8_t)(borrowed ? *view | which : *view & ~which);
}

static int64_t binom[33][33];

static void build_binom(void)
{
    for (int n = 0; n <= 32; n++) {
        binom[n][0] = 1;
        for (int k = 1; k <= n; k++)
            binom[n][k] = binom[n - 1][k - 1] + (k <= n - 1 ? binom[n - 1][k] : 0);
    }
}

/* pthread_once, as ckr_init: every caller waits for the table and sees it whole. */
static void egdb_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, build_binom);
}

/* Square sets (bit s-1 for square s) <-> board words (ghost bits 8, 17, 26). */
static inline uint32_t bb_to_set(ckr_bb b)
{
    return (uint32_t)((b & 0xFF) | ((b >> 1) & 0xFF00) | ((b >> 2) & 0xFF0000) | ((b >> 3) & 0xFF000000u));
}

static inline ckr_bb set_to_bb(uint32_t s)
{
    ckr_bb b = s;
    return (b & 0xFF) | ((b & 0xFF00) << 1) | ((b & 0xFF0000) << 2) | ((b & 0xFF000000u) << 3);
}

/* Colex rank of a set of k elements of 0..31: sum of C(p_i, i), i = 1..k. */
static inline int64_t colex_rank(uint32_t set)
{
    int64_t r = 0;
    for (int i = 1; set; i++) {
        int p = __builtin_ctz(set);
        set &= set - 1;
        r += binom[p][i];
    }
    return r;
}

static inline uint32_t colex_unrank(int64_t r, int k)
{
    uint32_t set = 0;
    int p = 31;
    for (int i = k; i >= 1; i--) {
        while (binom[p][i] > r)
            p--;
        r -= binom[p][i];
        set |= 1u << p;
        p--;
    }
    return set;
}

/* The bits of x at the positions of mask, packed low (pext), and back (pdep). */
static inline uint32_t pext32(uint32_t x, uint32_t mask)
{
    uint32_t r = 0;
    for (uint32_t bit = 1; mask; bit <<= 1) {
        uint32_t low = mask & -mask;
        if (x & low)
            r |= bit;
        mask &= mask - 1;
    }
    return r;
}

static inline uint32_t pdep32(uint32_t x, uint32_t mask)
{
    uint32_t r = 0;
    for (uint32_t bit = 1; mask; bit <<= 1) {
        uint32_t low = mask & -mask;
        if (x & bit)
            r |= low;
        mask &= mask - 1;
    }
    return r;
}

static int sig_ok(int bm, int bk, int wm, int wk)
{
    return bm >= 0 && bk >= 0 && wm >= 0 && wk >= 0 && bm + bk <= CKR_EGDB_MAX_SIDE &&
           wm + wk <= CKR_EGDB_MAX_SIDE && bm <= 28 && wm <= 28 && bm + wm + bk + wk <= 32;
}

int64_t ckr_egdb_size(int bm, int bk, int wm, int wk)
{
    egdb_init();
    if (!sig_ok(bm, bk, wm, wk))
        return -1;
    int f = 32 - bm - wm;
    return binom[28][bm] * binom[28][wm] * binom[f][bk] * binom[f - bk][wk];
}

static int64_t index_sets(uint32_t bms, uint32_t bks, uint32_t wms, uint32_t wks, int bm, int bk, int wm, int wk)
{
    if ((bms & 0xF0000000u) || (wms & 0xF))
        return -1;
    int f = 32 - bm - wm;
    uint32_t free1 = ~(bms | wms), free2 = free1 & ~bks;
    int64_t i = colex_rank(bms) * binom[28][wm] + colex_rank(wms >> 4);
    i = i * binom[f][bk] + colex_rank(pext32(bks, free1));
    return i * binom[f - bk][wk] + colex_rank(pext32(wks, free2));
}

int64_t ckr_egdb_index(const ckr_pos *pos)
{
    egdb_init();
    uint32_t b = bb_to_set(pos->pieces[CKR_BLACK]), w = bb_to_set(pos->pieces[CKR_WHITE]);
    uint32_t k = bb_to_set(pos->kings);
    uint32_t bms = b & ~k, bks = b & k, wms = w & ~k, wks = w & k;
    return index_sets(bms, bks, wms, wks, __builtin_popcount(bms), __builtin_popcount(bks),
                      __builtin_popcount(wms), __builtin_popcount(wks));
}

int ckr_egdb_position(int bm, int bk, int wm, int wk, int side, int64_t index, ckr_pos *out)
{
    int64_t size = ckr_egdb_size(bm, bk, wm, wk);
    if (size < 0 || index < 0 || index >= size)
        return 0;
    int f = 32 - bm - wm;
    int64_t nwk = binom[f - bk][wk], nbk = binom[f][bk], nwm = binom[28][wm];
    int64_t rwk = index % nwk;
    index /= nwk;
    int64_t rbk = index % nbk;
    index /= nbk;
    int64_t rwm = index % nwm, rbm = index / nwm;
    uint32_t bms = colex_unrank(rbm, bm), wms = colex_unrank(rwm, wm) << 4;
    if (bms & wms)
        return 0;
    uint32_t free1 = ~(bms | wms);
    uint32_t bks = pdep32(colex_unrank(rbk, bk), free1);
    uint32_t wks = pdep32(colex_unrank(rwk, wk), free1 & ~bks);
    out->pieces[CKR_BLACK] = set_to_bb(bms | bks);
    out->pieces[CKR_WHITE] = set_to_bb(wms | wks);
    out->kings = set_to_bb(bks | wks);
    out->side = side ? CKR_WHITE : CKR_BLACK;
    out->reserved = 0;
    out->hash = 0;
    return 1;
}

ckr_egdb *ckr_egdb_new(void)
{
    egdb_init();
    ckr_init();
    return calloc(1, sizeof(ckr_egdb));
}

void ckr_egdb_free(ckr_egdb *db)
{
    if (!db)
        return;
    uint8_t **t = &db->tab[0][0][0][0][0], **d = &db->dist[0][0][0][0][0], *v = &db->view[0][0][0][0][0];
    for (size_t i = 0; i < sizeof db->tab / sizeof *t; i++) {
        if (!(v[i] & VIEW_VALUES))
            free(t[i]);
        if (!(v[i] & VIEW_DIST))
            free(d[i]);
    }
    free(db);
}

static inline int get2(const uint8_t *t, int64_t i) { return (t[i >> 2] >> ((i & 3) * 2)) & 3; }

int ckr_egdb_has(const ckr_egdb *db, int bm, int bk, int wm, int wk, int side)
{
    return sig_ok(bm, bk, wm, wk) && bm + bk <= CKR_EGDB_MAX_SIDE && db->tab[bm][bk][wm][wk][side & 1] != NULL;
}

int ckr_egdb_value_at(const ckr_egdb *db, int bm, int bk, int wm, int wk, int side, int64_t index)
{
    if (!ckr_egdb_has(db, bm, bk, wm, wk, side))
        return -1;
    if (index < 0 || index >= ckr_egdb_size(bm, bk, wm, wk))
        return -1;
    return get2(db->tab[bm][bk][wm][wk][side & 1], index);
}

int ckr_egdb_probe(const ckr_egdb *db, const ckr_pos *pos)
{
    int side = pos->side;
    if (!pos->pieces[side])
        return CKR_EGDB_LOSS;
    uint32_t b = bb_to_set(pos->pieces[CKR_BLACK]), w = bb_to_set(pos->pieces[CKR_WHITE]);
    uint32_t k = bb_to_set(pos->kings);
    uint32_t bms = b & ~k, bks = b & k, wms = w & ~k, wks = w & k;
    int bm = __builtin_popcount(bms), bk = __builtin_popcount(bks);
    int wm = __builtin_popcount(wms), wk = __builtin_popcount(wks);
    if (!sig_ok(bm, bk, wm, wk))
        return -1;
    const uint8_t *t = db->tab[bm][bk][wm][wk][side];
    if (!t)
        return -1;
    int64_t i = index_sets(bms, bks, wms, wks, bm, bk, wm, wk);
    if (i < 0)
        return -1;
    int v = get2(t, i);
    return v == CKR_EGDB_NONE ? -1 : v;
}

int ckr_egdb_get_data(const ckr_egdb *db, int bm, int bk, int wm, int wk, int side, uint8_t *out, int64_t nbytes)
{
    if (!ckr_egdb_has(db, bm, bk, wm, wk, side) || nbytes != (ckr_egdb_size(bm, bk, wm, wk) + 3) / 4)
        return -1;
    memcpy(out, db->tab[bm][bk][wm][wk][side & 1], (size_t)nbytes);
    return 0;
}

int ckr_egdb_put_data(ckr_egdb *db, int bm, int bk, int wm, int wk, int side, const uint8_t *data, int64_t nbytes)
{
    if (!sig_ok(bm, bk, wm, wk) || nbytes != (ckr_egdb_size(bm, bk, wm, wk) + 3) / 4)
        return -3;
    uint8_t *t = malloc(nbytes ? (size_t)nbytes : 1);
    if (!t)
        return -2;
    memcpy(t, data, (size_t)nbytes);
    install(db, bm, bk, wm, wk, side & 1, VIEW_VALUES, t, 0);
    return 0;
}

/* Whether a move stays inside its signature (no capture, no crowning). */
static inline int internal_move(const ckr_move *m) { return !m->caps && !(m->flags & CKR_MOVE_CROWN); }

/* The value for the side to move after a move that leaves the signature (-1: table missing). */
static inline int external_value(const ckr_egdb *db, const ckr_pos *child) { return ckr_egdb_probe(db, child); }

/* Whether every signature a capture or crowning from this one leads to is present. */
static int deps_present(const ckr_egdb *db, int bm, int bk, int wm, int wk)
{
    int c[4] = {bm, bk, wm, wk};
    for (int side = 0; side < 2; side++) {
        int om = side ? 0 : 2, ok = om + 1, us = side ? 2 : 0; /* opponent's men/kings, our men */
        for (int crown = 0; crown <= (c[us] > 0); crown++)
            for (int cm = 0; cm <= c[om]; cm++)
                for (int ck = 0; ck <= c[ok]; ck++) {
                    if (!crown && !cm && !ck)
                        continue;
                    int d[4] = {c[0], c[1], c[2], c[3]};
                    d[om] -= cm;
                    d[ok] -= ck;
                    d[us] -= crown;
                    d[us + 1] += crown;
                    if (d[om] + d[ok] == 0)
                        continue; /* the opponent has no pieces: a loss without a table */
                    if (!ckr_egdb_has(db, d[0], d[1], d[2], d[3], side ^ 1))
                        return 0;
                }
    }
    return 1;
}

#define EXTDRAW 1 /* some move out of the signature leads to a draw */
#define DIRTY 2   /* a successor was settled since this position was last looked at */

static inline int64_t pos_index(const ckr_pos *p, int bm, int bk, int wm, int wk)
{
    return index_sets(bb_to_set(p->pieces[0] & ~p->kings), bb_to_set(p->pieces[0] & p->kings),
                      bb_to_set(p->pieces[1] & ~p->kings), bb_to_set(p->pieces[1] & p->kings), bm, bk, wm, wk);
}

/* ---- threads ----
 * A solve is a series of sweeps over both sides' slots (a pass of the values,
 * a layer of the distances, the packing).  A sweep hands out blocks of BLOCK
 * slots of one side from a shared counter, in order, to `threads` workers (the
 * caller and threads - 1 pthreads, joined before the next sweep).  BLOCK is a
 * multiple of 4, so no two blocks share a byte of packed values; a worker
 * writes the values of its own block's slots only.  The one write into
 * another block is marking a predecessor's flag, an atomic OR.  With one
 * thread the blocks run in slot order on the caller, plain loads and stores,
 * exactly as the single-threaded builder did. */

#define BLOCK 4096

typedef struct sweep sweep;
struct sweep {
    const ckr_egdb *db;
    int bm, bk, wm, wk, mt; /* mt: more than one thread, so shared bytes are read and written atomically */
    int64_t n, blocks;      /* slots a side; blocks a side */
    int64_t next;           /* the next block to hand out (atomic) */
    uint8_t *val[2], *ext[2], *packed[2], *dist[2];
    int k;                  /* the distance layer (for a check: the side checked) */
    void (*run)(sweep *s, int side, int64_t lo, int64_t hi, int *acc);
    int acc;                /* the workers' results, ORed */
    int64_t counts[5];      /* a check's slots of each value, and the inconsistent ones (atomic adds) */
};

static void *sweep_worker(void *arg)
{
    sweep *s = arg;
    int acc = 0;
    for (;;) {
        int64_t b = s->mt ? __atomic_fetch_add(&s->next, 1, __ATOMIC_RELAXED) : s->next++;
        if (b >= 2 * s->blocks)
            break;
        int side = (int)(b / s->blocks);
        int64_t lo = (b % s->blocks) * BLOCK, hi = lo + BLOCK < s->n ? lo + BLOCK : s->n;
        s->run(s, side, lo, hi, &acc);
    }
    if (s->mt)
        __atomic_fetch_or(&s->acc, acc, __ATOMIC_RELAXED);
    else
        s->acc |= acc;
    return NULL;
}

/* Run one sweep on `threads` threads; returns the workers' results ORed. */
static int run_sweep(sweep *s, int threads, void (*run)(sweep *, int, int64_t, int64_t, int *))
{
    pthread_t tid[CKR_EGDB_MAX_THREADS];
    int started = 0;
    s->run = run;
    s->next = 0;
    s->acc = 0;
    s->mt = threads > 1;
    /* A thread that cannot be started leaves its blocks to the others. */
    for (int t = 1; t < threads; t++)
        if (pthread_create(&tid[started], NULL, sweep_worker, s) == 0)
            started++;
    sweep_worker(s);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    return s->acc;
}

/* The flag and value bytes other threads may touch in the same sweep: atomic
 * with more than one thread (sequentially consistent where the order matters,
 * see below), plain with one. */
static inline uint8_t load_u8(const uint8_t *p, int mt) { return mt ? __atomic_load_n(p, __ATOMIC_SEQ_CST) : *p; }
static inline void store_u8(uint8_t *p, uint8_t v, int mt)
{
    if (mt)
        __atomic_store_n(p, v, __ATOMIC_SEQ_CST);
    else
        *p = v;
}
static inline void or_u8(uint8_t *p, uint8_t bits, int mt)
{
    if (mt)
        __atomic_fetch_or(p, bits, __ATOMIC_SEQ_CST);
    else
        *p |= bits;
}
static inline void clear_u8(uint8_t *p, uint8_t bits, int mt)
{
    if (mt)
        __atomic_fetch_and(p, (uint8_t)~bits, __ATOMIC_SEQ_CST);
    else
        *p &= (uint8_t)~bits;
}

/* Mark dirty every position inside the signature from which the side that
 * just moved (not x->side) reached x with a quiet move: one of its kings
 * stepped from any empty neighbour, or one of its men from an empty square
 * behind it.  (Predecessors that had a capture are settled already.) */
static void mark_predecessors(uint8_t *flags, const ckr_pos *x, int bm, int bk, int wm, int wk, uint8_t bit, int mt)
{
    int o = x->side ^ 1;
    ckr_bb empty = bb_empty(x), mine = x->pieces[o];
    while (mine) {
        ckr_bb at = mine & -mine;
        mine &= mine - 1;
        int king = (x->kings & at) != 0;
        for (int d = 0; d < 4; d++) {
            if (!king && (o == CKR_BLACK ? d < 2 : d >= 2))
                continue; /* a black man came from behind (-4/-5), a white one from +4/+5 */
            ckr_bb from = bb_step(at, d, 1) & empty;
            if (!from)
                continue;
            ckr_pos pred = *x;
            pred.pieces[o] ^= at | from;
            if (king)
                pred.kings ^= at | from;
            pred.side = o;
            or_u8(&flags[pos_index(&pred, bm, bk, wm, wk)], bit, mt);
        }
    }
}

/* Pass 1: every slot; moves out of the signature are probed once.  Reads only
 * other signatures' tables, writes only its own slots. */
static void pass_first(sweep *s, int side, int64_t lo, int64_t hi, int *acc)
{
    ckr_move moves[CKR_MAX_MOVES];
    ckr_pos pos;
    uint8_t *val = s->val[side], *ext = s->ext[side];
    for (int64_t i = lo; i < hi; i++) {
        if (!ckr_egdb_position(s->bm, s->bk, s->wm, s->wk, side, i, &pos)) {
            val[i] = CKR_EGDB_NONE;
            continue;
        }
        int nm = ckr_gen_moves(&pos, moves), win = 0, open = 0, extdraw = 0;
        for (int j = 0; j < nm && !win; j++) {
            if (internal_move(&moves[j])) {
                open = 1;
                continue;
            }
            ckr_make(&pos, &moves[j]);
            int v = external_value(s->db, &pos);
            ckr_unmake(&pos, &moves[j]);
            if (v == CKR_EGDB_LOSS)
                win = 1;
            else if (v != CKR_EGDB_WIN)
                extdraw = 1;
        }
        val[i] = win ? CKR_EGDB_WIN : (!open && !extdraw) ? CKR_EGDB_LOSS : CKR_EGDB_DRAW;
        /* Pass 2 looks at every position still open. */
        ext[i] = (uint8_t)((extdraw ? EXTDRAW : 0) | (val[i] == CKR_EGDB_DRAW ? DIRTY : 0));
    }
}

/* A later pass: only positions still open whose successors changed (all of
 * them in pass 2), only moves inside the signature.  A position settled marks
 * its predecessors (un-moves of the side that just moved) dirty.
 *
 * Why any number of threads gives the same values: a position is settled won
 * only from a successor read as lost, and lost only when every successor is
 * read as won (and no move out of the signature draws); a settled value never
 * changes, so every settlement is one the rules force, whatever the order
 * (the read of a successor settled a moment ago by another thread gives the
 * old "open" or the new value, and both leave the position right or open).
 * Nothing is missed: a settlement stores the value and then marks the
 * predecessors; a worker clears a position's mark and then reads its
 * successors.  All four are sequentially consistent, so either the worker
 * reads the new value or the mark comes after its clear and the position is
 * looked at again in the next pass.  The build stops after a pass that settles
 * nothing: then no value changed while it ran, every marked position was
 * looked at against final values, and no rule can settle anything more.  So
 * the result is the one fixpoint the rules reach from the first pass (the
 * least one), the same as one thread's; only the number of passes may differ. */
static void pass_later(sweep *s, int side, int64_t lo, int64_t hi, int *acc)
{
    ckr_move moves[CKR_MAX_MOVES];
    ckr_pos pos;
    int mt = s->mt;
    uint8_t *val = s->val[side], *ext = s->ext[side], *other = s->val[side ^ 1];
    for (int64_t i = lo; i < hi; i++) {
        /* val[i] is written only by this block's worker; ext[i] may gain DIRTY from any. */
        if (val[i] != CKR_EGDB_DRAW || !(load_u8(&ext[i], mt) & DIRTY))
            continue;
        clear_u8(&ext[i], DIRTY, mt);
        ckr_egdb_position(s->bm, s->bk, s->wm, s->wk, side, i, &pos);
        int nm = ckr_gen_moves(&pos, moves), win = 0, open = load_u8(&ext[i], mt) & EXTDRAW;
        for (int j = 0; j < nm && !win; j++) {
            if (!internal_move(&moves[j]))
                continue;
            ckr_make(&pos, &moves[j]);
            int v = load_u8(&other[pos_index(&pos, s->bm, s->bk, s->wm, s->wk)], mt);
            ckr_unmake(&pos, &moves[j]);
            if (v == CKR_EGDB_LOSS)
                win = 1;
            else if (v != CKR_EGDB_WIN)
                open = 1;
        }
        if (win || !open) {
            store_u8(&val[i], win ? CKR_EGDB_WIN : CKR_EGDB_LOSS, mt);
            *acc = 1;
            mark_predecessors(s->ext[side ^ 1], &pos, s->bm, s->bk, s->wm, s->wk, DIRTY, mt);
        }
    }
}

/* Four values a byte; a block starts on a byte, so blocks write disjoint bytes. */
static void pack_values(sweep *s, int side, int64_t lo, int64_t hi, int *acc)
{
    for (int64_t i = lo; i < hi; i++)
        s->packed[side][i >> 2] |= (uint8_t)(s->val[side][i] << ((i & 3) * 2));
}

static int clamp_threads(int threads)
{
    return threads < 1 ? 1 : threads > CKR_EGDB_MAX_THREADS ? CKR_EGDB_MAX_THREADS : threads;
}

int ckr_egdb_build_threads(ckr_egdb *db, int bm, int bk, int wm, int wk, int threads)
{
    if (!sig_ok(bm, bk, wm, wk) || bm + bk == 0 || wm + wk == 0 || threads < 1)
        return -3;
    if (!deps_present(db, bm, bk, wm, wk))
        return -1;
    threads = clamp_threads(threads);
    int64_t n = ckr_egdb_size(bm, bk, wm, wk);
    sweep s = {.db = db, .bm = bm, .bk = bk, .wm = wm, .wk = wk, .n = n, .blocks = (n + BLOCK - 1) / BLOCK};
    for (int side = 0; side < 2; side++) {
        s.val[side] = malloc((size_t)n + 1);
        s.ext[side] = calloc((size_t)n + 1, 1);
        s.packed[side] = calloc((size_t)(n + 3) / 4 + 1, 1);
    }
    if (!s.val[0] || !s.val[1] || !s.ext[0] || !s.ext[1] || !s.packed[0] || !s.packed[1]) {
        for (int side = 0; side < 2; side++)
            free(s.val[side]), free(s.ext[side]), free(s.packed[side]);
        return -2;
    }
    run_sweep(&s, threads, pass_first);
    int passes = 1;
    for (int changed = 1; changed;) {
        passes++;
        changed = run_sweep(&s, threads, pass_later);
    }
    run_sweep(&s, threads, pack_values);
    for (int side = 0; side < 2; side++) {
        install(db, bm, bk, wm, wk, side, VIEW_VALUES, s.packed[side], 0);
        free(s.val[side]);
        free(s.ext[side]);
    }
    return passes;
}

int ckr_egdb_build(ckr_egdb *db, int bm, int bk, int wm, int wk)
{
    return ckr_egdb_build_threads(db, bm, bk, wm, wk, 1);
}

/* A check sweep looks at one side's blocks (s->k) and adds what it counts. */
static void add_counts(sweep *s, const int64_t *c)
{
    for (int k = 0; k < 5; k++)
        if (c[k])
            __atomic_fetch_add(&s->counts[k], c[k], __ATOMIC_RELAXED);
}

static void check_values(sweep *s, int side, int64_t lo, int64_t hi, int *acc)
{
    if (side != s->k)
        return;
    const uint8_t *t = s->db->tab[s->bm][s->bk][s->wm][s->wk][side];
    ckr_move moves[CKR_MAX_MOVES];
    ckr_pos pos;
    int64_t c[5] = {0};
    for (int64_t i = lo; i < hi; i++) {
        int stored = get2(t, i);
        c[stored]++;
        if (!ckr_egdb_position(s->bm, s->bk, s->wm, s->wk, side, i, &pos)) {
            c[4] += stored != CKR_EGDB_NONE;
            continue;
        }
        int nm = ckr_gen_moves(&pos, moves), win = 0, draw = 0;
        for (int j = 0; j < nm; j++) {
            ckr_make(&pos, &moves[j]);
            int v = ckr_egdb_probe(s->db, &pos);
            ckr_unmake(&pos, &moves[j]);
            if (v == CKR_EGDB_LOSS)
                win = 1;
            else if (v != CKR_EGDB_WIN)
                draw = 1;
        }
        int want = win ? CKR_EGDB_WIN : draw ? CKR_EGDB_DRAW : CKR_EGDB_LOSS;
        c[4] += stored != want;
    }
    add_counts(s, c);
}

int64_t ckr_egdb_check_threads(const ckr_egdb *db, int bm, int bk, int wm, int wk, int side, int64_t *counts,
                               int threads)
{
    side &= 1;
    if (!ckr_egdb_has(db, bm, bk, wm, wk, side) || !ckr_egdb_has(db, bm, bk, wm, wk, side ^ 1) ||
        !deps_present(db, bm, bk, wm, wk))
        return -1;
    int64_t n = ckr_egdb_size(bm, bk, wm, wk);
    sweep s = {.db = db, .bm = bm, .bk = bk, .wm = wm, .wk = wk, .n = n, .blocks = (n + BLOCK - 1) / BLOCK,
               .k = side};
    run_sweep(&s, clamp_threads(threads), check_values);
    for (int k = 0; k < 4; k++)
        counts[k] = s.counts[k];
    return s.counts[4];
}

int64_t ckr_egdb_check(const ckr_egdb *db, int bm, int bk, int wm, int wk, int side, int64_t *counts)
{
    return ckr_egdb_check_threads(db, bm, bk, wm, wk, side, counts, 1);
}

/* ---- distance to conversion ----
 * Solved by layers over the finished values: layer k settles the positions
 * whose distance is k, so every distance read in layer k is below k, and a
 * value stamped in the same layer (k itself) counts as not yet known.  A win
 * is 1 + the least distance of a losing successor, a loss 1 + the greatest
 * distance of its successors; a move out of the signature counts 1 (its
 * successor's distance is 0: the conversion is what is counted to).  Only
 * positions a settlement may have changed are looked at again, as in the
 * build.
 *
 * Threads cannot change the distances: within a layer a distance read from
 * another block is either final (below k, settled in an earlier layer, before
 * the sweep began) or counts as unknown (255, or k stamped a moment ago: the
 * same either way), so each position's outcome in layer k depends only on the
 * layers before it.  Which positions a layer looks at (NOW) is fixed before it
 * starts; the marks for the next (NEXT) are atomic ORs, read after the join. */

#define NOW 1
#define NEXT 2

/* The distance a position gets in layer k, or -1 while it is not settled. */
static int settle_distance(const ckr_egdb *db, ckr_pos *pos, int value, uint8_t *const dist[2],
                           int bm, int bk, int wm, int wk, int k, int mt)
{
    ckr_move moves[CKR_MAX_MOVES];
    int nm = ckr_gen_moves(pos, moves), best = value == CKR_EGDB_WIN ? 1 << 20 : -1;
    if (nm == 0)
        return 0;
    for (int j = 0; j < nm; j++) {
        int d;
        ckr_make(pos, &moves[j]);
        if (!internal_move(&moves[j])) {
            int v = ckr_egdb_probe(db, pos);
            d = (value == CKR_EGDB_WIN) == (v == CKR_EGDB_LOSS) ? 0 : -2; /* -2: of no use */
        } else {
            int64_t c = pos_index(pos, bm, bk, wm, wk);
            int v = get2(db->tab[bm][bk][wm][wk][pos->side], c);
            int dc = mt ? __atomic_load_n(&dist[pos->side][c], __ATOMIC_RELAXED) : dist[pos->side][c];
            if (value == CKR_EGDB_WIN)
                d = v == CKR_EGDB_LOSS ? (dc < k ? dc : -1) : -2;
            else
                d = dc < k ? dc : -1;
        }
        ckr_unmake(pos, &moves[j]);
        if (value == CKR_EGDB_WIN) {
            if (d >= 0 && d < best)
                best = d;
        } else {
            if (d == -1)
                return -1; /* a successor not settled yet */
            if (d > best)
                best = d;
        }
    }
    if (value == CKR_EGDB_WIN)
        return best < (1 << 20) ? best + 1 : -1;
    return best + 1;
}

/* Before layer 0: 255 (not settled) for wins and losses, 0 for draws and empty
 * slots (which keep it); the unsettled ones are looked at. */
static void dist_start(sweep *s, int side, int64_t lo, int64_t hi, int *acc)
{
    const uint8_t *t = s->db->tab[s->bm][s->bk][s->wm][s->wk][side];
    for (int64_t i = lo; i < hi; i++) {
        int v = get2(t, i);
        s->dist[side][i] = v == CKR_EGDB_WIN || v == CKR_EGDB_LOSS ? 255 : 0;
        s->ext[side][i] = s->dist[side][i] ? NOW : 0;
    }
}

/* Layer k: the positions marked NOW; acc gets 1 when one settled at k. */
static void dist_layer(sweep *s, int side, int64_t lo, int64_t hi, int *acc)
{
    ckr_pos pos;
    int mt = s->mt, k = s->k;
    uint8_t *flags = s->ext[side], *dist = s->dist[side];
    const uint8_t *t = s->db->tab[s->bm][s->bk][s->wm][s->wk][side];
    for (int64_t i = lo; i < hi; i++) {
        if (!(load_u8(&flags[i], mt) & NOW))
            continue;
        clear_u8(&flags[i], NOW, mt);
        if (dist[i] != 255) /* dist[i] is written by this block's worker only */
            continue;
        ckr_egdb_position(s->bm, s->bk, s->wm, s->wk, side, i, &pos);
        int d = settle_distance(s->db, &pos, get2(t, i), s->dist, s->bm, s->bk, s->wm, s->wk, k, mt);
        if (d != k)
            continue; /* settled in a later layer (d > k cannot happen: it is looked at again) */
        if (mt)
            __atomic_store_n(&dist[i], (uint8_t)k, __ATOMIC_RELAXED);
        else
            dist[i] = (uint8_t)k;
        *acc = 1;
        mark_predecessors(s->ext[side ^ 1], &pos, s->bm, s->bk, s->wm, s->wk, NEXT, mt);
    }
}

/* Between layers (no other thread runs a layer now): the marked positions are
 * looked at next; acc gets 1 when there is one.  After layer 0 every
 * unsettled position is (its moves out of the signature count 1). */
static void dist_next(sweep *s, int side, int64_t lo, int64_t hi, int *acc)
{
    uint8_t *flags = s->ext[side];
    for (int64_t i = lo; i < hi; i++) {
        if (flags[i] & NEXT || (s->k == 0 && s->dist[side][i] == 255)) {
            flags[i] = NOW;
            *acc = 1;
        }
    }
}

static void dist_finish(sweep *s, int side, int64_t lo, int64_t hi, int *acc)
{
    for (int64_t i = lo; i < hi; i++)
        if (s->dist[side][i] == 255)
            s->dist[side][i] = 0; /* beyond 254 plies (none in 2-5 pieces) */
}

int ckr_egdb_build_distance_threads(ckr_egdb *db, int bm, int bk, int wm, int wk, int threads)
{
    if (!sig_ok(bm, bk, wm, wk) || bm + bk == 0 || wm + wk == 0 || threads < 1)
        return -3;
    if (!db->tab[bm][bk][wm][wk][0] || !db->tab[bm][bk][wm][wk][1] || !deps_present(db, bm, bk, wm, wk))
        return -1;
    threads = clamp_threads(threads);
    int64_t n = ckr_egdb_size(bm, bk, wm, wk);
    sweep s = {.db = db, .bm = bm, .bk = bk, .wm = wm, .wk = wk, .n = n, .blocks = (n + BLOCK - 1) / BLOCK};
    for (int side = 0; side < 2; side++) {
        s.dist[side] = malloc((size_t)n + 1);
        s.ext[side] = calloc((size_t)n + 1, 1);
    }
    if (!s.dist[0] || !s.dist[1] || !s.ext[0] || !s.ext[1]) {
        for (int side = 0; side < 2; side++)
            free(s.dist[side]), free(s.ext[side]);
        return -2;
    }
    run_sweep(&s, threads, dist_start);
    int most = 0;
    for (int k = 0, open = 1; open && k < 255; k++) {
        s.k = k;
        if (run_sweep(&s, threads, dist_layer))
            most = k;
        open = run_sweep(&s, threads, dist_next) || k == 0;
    }
    run_sweep(&s, threads, dist_finish);
    for (int side = 0; side < 2; side++) {
        install(db, bm, bk, wm, wk, side, VIEW_DIST, s.dist[side], 0);
        free(s.ext[side]);
    }
    return most;
}

int ckr_egdb_build_distance(ckr_egdb *db, int bm, int bk, int wm, int wk)
{
    return ckr_egdb_build_distance_threads(db, bm, bk, wm, wk, 1);
}

int ckr_egdb_has_distance(const ckr_egdb *db, int bm, int bk, int wm, int wk, int side)
{
    return ckr_egdb_has(db, bm, bk, wm, wk, side) && db->dist[bm][bk][wm][wk][side & 1] != NULL;
}

int ckr_egdb_get_distance(const ckr_egdb *db, int bm, int bk, int wm, int wk, int side, uint8_t *out, int64_t nbytes)
{
    if (!ckr_egdb_has_distance(db, bm, bk, wm, wk, side) || nbytes != ckr_egdb_size(bm, bk, wm, wk))
        return -1;
    memcpy(out, db->dist[bm][bk][wm][wk][side & 1], (size_t)nbytes);
    return 0;
}

int ckr_egdb_put_distance(ckr_egdb *db, int bm, int bk, int wm, int wk, int side, const uint8_t *data, int64_t nbytes)
{
    if (!sig_ok(bm, bk, wm, wk) || nbytes != ckr_egdb_size(bm, bk, wm, wk))
        return -3;
    uint8_t *t = malloc(nbytes ? (size_t)nbytes : 1);
    if (!t)
        return -2;
    memcpy(t, data, (size_t)nbytes);
    install(db, bm, bk, wm, wk, side & 1, VIEW_DIST, t, 0);
    return 0;
}

int ckr_egdb_put_view(ckr_egdb *db, int bm, int bk, int wm, int wk, int side, int distance, const uint8_t *data,
                      int64_t nbytes)
{
    int64_t size = ckr_egdb_size(bm, bk, wm, wk);
    if (!sig_ok(bm, bk, wm, wk) || !data || nbytes != (distance ? size : (size + 3) / 4))
        return -3;
    /* Only read, never written or freed here: the caller keeps it alive and unchanged. */
    install(db, bm, bk, wm, wk, side & 1, distance ? VIEW_DIST : VIEW_VALUES, (uint8_t *)(uintptr_t)data, 1);
    return 0;
}

int ckr_egdb_distance(const ckr_egdb *db, const ckr_pos *pos)
{
    int side = pos->side;
    if (!pos->pieces[side])
        return 0;
    uint32_t b = bb_to_set(pos->pieces[CKR_BLACK]), w = bb_to_set(pos->pieces[CKR_WHITE]);
    uint32_t k = bb_to_set(pos->kings);
    uint32_t bms = b & ~k, bks = b & k, wms = w & ~k, wks = w & k;
    int bm = __builtin_popcount(bms), bk = __builtin_popcount(bks);
    int wm = __builtin_popcount(wms), wk = __builtin_popcount(wks);
    if (!sig_ok(bm, bk, wm, wk) || !db->dist[bm][bk][wm][wk][side])
        return -1;
    int64_t i = index_sets(bms, bks, wms, wks, bm, bk, wm, wk);
    return i < 0 ? -1 : db->dist[bm][bk][wm][wk][side][i];
}

/* counts[4]: positions that break the rule; counts[0]: 1 when a distance needed is not held. */
static void check_distances(sweep *s, int side, int64_t lo, int64_t hi, int *acc)
{
    if (side != s->k)
        return;
    const uint8_t *t = s->db->tab[s->bm][s->bk][s->wm][s->wk][side], *dist = s->db->dist[s->bm][s->bk][s->wm][s->wk][side];
    ckr_move moves[CKR_MAX_MOVES];
    ckr_pos pos;
    int64_t c[5] = {0};
    for (int64_t i = lo; i < hi; i++) {
        int v = get2(t, i);
        if (v != CKR_EGDB_WIN && v != CKR_EGDB_LOSS) {
            c[4] += dist[i] != 0;
            continue;
        }
        ckr_egdb_position(s->bm, s->bk, s->wm, s->wk, side, i, &pos);
        int nm = ckr_gen_moves(&pos, moves), want = v == CKR_EGDB_WIN ? 1 << 20 : -1;
        for (int j = 0; j < nm; j++) {
            ckr_make(&pos, &moves[j]);
            int cv = ckr_egdb_probe(s->db, &pos);
            int d = internal_move(&moves[j]) ? ckr_egdb_distance(s->db, &pos) : 0;
            ckr_unmake(&pos, &moves[j]);
            if (d < 0) {
                c[0] = 1;
                add_counts(s, c);
                return;
            }
            if (v == CKR_EGDB_WIN && cv == CKR_EGDB_LOSS && d < want)
                want = d;
            if (v == CKR_EGDB_LOSS && d > want)
                want = d;
        }
        want = nm == 0 ? 0 : want + 1;
        c[4] += want != dist[i];
    }
    add_counts(s, c);
}

int64_t ckr_egdb_check_distance_threads(const ckr_egdb *db, int bm, int bk, int wm, int wk, int side, int threads)
{
    side &= 1;
    if (!ckr_egdb_has_distance(db, bm, bk, wm, wk, side) || !deps_present(db, bm, bk, wm, wk))
        return -1;
    int64_t n = ckr_egdb_size(bm, bk, wm, wk);
    sweep s = {.db = db, .bm = bm, .bk = bk, .wm = wm, .wk = wk, .n = n, .blocks = (n + BLOCK - 1) / BLOCK,
               .k = side};
    run_sweep(&s, clamp_threads(threads), check_distances);
    return s.counts[0] ? -1 : s.counts[4];
}

int64_t ckr_egdb_check_distance(const ckr_egdb *db, int bm, int bk, int wm, int wk, int side)
{
    return ckr_egdb_check_distance_threads(db, bm, bk, wm, wk, side, 1);
}
