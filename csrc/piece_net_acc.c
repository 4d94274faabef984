/* piece_net_acc.c -- the piece network's first layer kept as an accumulator
 * (as NNUE engines keep one), so that a leaf pays for the rows that differ
 * from a board already summed instead of all of them.
 *
 * The packed network (piece_net_fast.h) holds one slot per ply and side: the
 * first-layer sums seen from that side and the board they belong to.
 * Nothing happens on make or unmake (the searchers are not told): at a leaf,
 * the slot of its ply and mover is brought up to date from the nearest board
 * kept for that side, its own (the last leaf scored at that ply, most often
 * a sibling: the two moves' changes) or those two plies above and below, by
 * the rows that differ between the boards, square set by square set, so
 * captures of several pieces and crowning are the same case as any move.  A
 * slot's sums are always exactly those of its board (int16 adds wrap, but
 * the sums of real boards fit: packing checked that), so the scores are the
 * reference's integers and node counts do not change.  Nothing near (a new
 * search), or more rows differ than there are pieces: summed from scratch.
 *
 * Why not walk the line back to the nearest ancestor kept, as the search
 * could tell it (e->line)?  That was tried first: in this search most
 * parents of leaves score no leaf of their own, so a leaf paid 2.2-2.6
 * updates of both points of view (undoing the line to find them), which cost
 * more than the 20-odd rows summed from scratch (docs/piece-net.md). */
#include "search.h"
#include "piece_net_fast.h"

#ifdef CKR_PIECENET_HAVE_FAST

#define INLINE static inline __attribute__((always_inline))
#define MAX_CHANGES 32 /* piece rows one step may add or remove before a fresh sum is cheaper */
#define MAX_ROWS (MAX_CHANGES + CKR_PIECENET_PATTERN_WINDOWS) /* with the regions' rows */

/* A board as the accumulator sees it: no hash, no side to move. */
typedef struct pn_board {
    ckr_bb pieces[2];
    ckr_bb kings;
} pn_board;

static inline int holds(const pn_slot *s, const pn_board *b)
{
    return s->valid && s->pieces[0] == b->pieces[0] && s->pieces[1] == b->pieces[1] && s->kings == b->kings;
}

static inline void tag(pn_slot *s, const pn_board *b)
{
    s->pieces[0] = b->pieces[0];
    s->pieces[1] = b->pieces[1];
    s->kings = b->kings;
    s->valid = 1;
}

static void refresh(const ckr_piecenet_fast *f, pn_slot *s, const pn_board *b, int side)
{
    ckr_pos p = {.pieces = {b->pieces[0], b->pieces[1]}, .kings = b->kings};
    pn_first_layer(f, &p, side, s->acc);
    if (f->patterns)
        for (int w = 0; w < CKR_PIECENET_PATTERN_WINDOWS; w++)
            s->rows[w] = ckr_piecenet_pattern_row(b->pieces[side], b->pieces[side ^ 1], side, w);
    tag(s, b);
}

static inline __m256i load(const void *p) { return _mm256_load_si256((const __m256i *)p); }

INLINE void apply_w(const ckr_piecenet_fast *f, const int16_t *src, int16_t *dst, const int *gone, int ngone,
                    const int *came, int ncame, const int h1)
{
    /* row by row over the whole width in registers, as pn_first_layer sums */
    __m256i a[CKR_PIECENET_H1_MAX / 16];
    for (int v = 0; v < h1 / 16; v++)
        a[v] = load(src + 16 * v);
    for (int i = 0; i < ngone; i++) {
        const int16_t *row = f->w1 + (size_t)gone[i] * h1;
        for (int v = 0; v < h1 / 16; v++)
            a[v] = _mm256_sub_epi16(a[v], load(row + 16 * v));
    }
    for (int i = 0; i < ncame; i++) {
        const int16_t *row = f->w1 + (size_t)came[i] * h1;
        for (int v = 0; v < h1 / 16; v++)
            a[v] = _mm256_add_epi16(a[v], load(row + 16 * v));
    }
    for (int v = 0; v < h1 / 16; v++)
        _mm256_store_si256((__m256i *)(dst + 16 * v), a[v]);
}

static void apply(const ckr_piecenet_fast *f, const int16_t *src, int16_t *dst, const int *gone, int ngone,
                  const int *came, int ncame)
{
    switch (f->h1) {
    case 64: apply_w(f, src, dst, gone, ngone, came, ncame, 64); break;
    case 128: apply_w(f, src, dst, gone, ngone, came, ncame, 128); break;
    default: apply_w(f, src, dst, gone, ngone, came, ncame, 256); break;
    }
}

/* Slot `to` for board b from slot `from`, which holds board a, both seen
 * from `side`; summed afresh when that is less work. */
static void step(const ckr_piecenet_fast *f, const pn_slot *from, pn_slot *to, const pn_board *a,
                 const pn_board *b, int side)
{
    /* square sets by colour and kind: class bit 0 the colour, bit 1 a king */
    const ckr_bb was[4] = {a->pieces[0] & ~a->kings, a->pieces[1] & ~a->kings,
                           a->pieces[0] & a->kings, a->pieces[1] & a->kings};
    const ckr_bb is[4] = {b->pieces[0] & ~b->kings, b->pieces[1] & ~b->kings,
                          b->pieces[0] & b->kings, b->pieces[1] & b->kings};
    int changed = 0;
    for (int c = 0; c < 4; c++)
        changed += bb_popcount(was[c] ^ is[c]);
    if (changed >= bb_popcount(b->pieces[0] | b->pieces[1]) || changed > MAX_CHANGES) {
        refresh(f, to, b, side);
        return;
    }
    int gone[MAX_ROWS], came[MAX_ROWS], ngone = 0, ncame = 0;
    for (int c = 0; c < 4; c++) {
        /* the network's class of this colour and kind seen from `side` */
        const short *input = ckr_piecenet_input_of[side][((c & 1) != side) + 2 * (c >> 1)];
        for (ckr_bb x = was[c] & ~is[c]; x; x &= x - 1) {
            int idx = input[bb_lsb(x)];
            if (idx >= 0)
                gone[ngone++] = idx;
        }
        for (ckr_bb x = is[c] & ~was[c]; x; x &= x - 1) {
            int idx = input[bb_lsb(x)];
            if (idx >= 0)
                came[ncame++] = idx;
        }
    }
    if (f->patterns) {
        /* A region's pattern counts pieces, not kings: each square whose
         * occupant came, went or changed colour moves the rows of its
         * regions by (new digit - old digit) x its weight. */
        const ckr_bb own_a = a->pieces[side], opp_a = a->pieces[side ^ 1];
        const ckr_bb own_b = b->pieces[side], opp_b = b->pieces[side ^ 1];
        int32_t rows[CKR_PIECENET_PATTERN_WINDOWS];
        for (int w = 0; w < CKR_PIECENET_PATTERN_WINDOWS; w++)
            rows[w] = from->rows[w];
        unsigned touched = 0;
        for (ckr_bb x = (own_a ^ own_b) | (opp_a ^ opp_b); x; x &= x - 1) {
            int bit = bb_lsb(x);
            int digit = (int)((own_b >> bit) & 1) + 2 * (int)((opp_b >> bit) & 1)
                        - (int)((own_a >> bit) & 1) - 2 * (int)((opp_a >> bit) & 1);
            for (int k = 0; k < ckr_piecenet_nterms[side][bit]; k++) {
                const ckr_region_term *t = &ckr_piecenet_terms[side][bit][k];
                rows[t->region] += digit * t->weight;
                touched |= 1u << t->region;
            }
        }
        for (; touched; touched &= touched - 1) {
            int w = __builtin_ctz(touched);
            if (rows[w] != from->rows[w]) {
                gone[ngone++] = CKR_PIECENET_INPUTS + from->rows[w];
                came[ncame++] = CKR_PIECENET_INPUTS + rows[w];
            }
        }
        for (int w = 0; w < CKR_PIECENET_PATTERN_WINDOWS; w++)
            to->rows[w] = rows[w];
    }
    apply(f, from->acc, to->acc, gone, ngone, came, ncame);
    tag(to, b);
}

/* About how many rows differ between slot s's board and b (an estimate to
 * pick the nearest slot by); large when s is empty. */
static inline int distance(const pn_slot *s, const pn_board *b)
{
    if (!s->valid)
        return 1 << 20;
    ckr_bb k = s->kings ^ b->kings;
    return bb_popcount((s->pieces[0] ^ b->pieces[0]) | k) + bb_popcount((s->pieces[1] ^ b->pieces[1]) | k);
}

int ckr_piecenet_acc_value(ckr_piecenet_fast *f, const ckr_pos *p, int ply)
{
    int side = p->side;
    if (ply < 0 || ply >= PN_SLOTS)
        return ckr_piecenet_fast_value(f, p);
    pn_slot *to = &f->slot[ply][side];
    pn_board b = {{p->pieces[0], p->pieces[1]}, p->kings};
    if (!holds(to, &b)) {
        /* The nearest board kept for this side: the slot's own (the last
         * leaf at this ply, most often a sibling), or those two plies above
         * and below (the side to move's plies alternate). */
        pn_slot *from = to;
        int d = distance(to, &b);
        for (int k = ply - 2; k <= ply + 2; k += 4)
            if (k >= 0 && k < PN_SLOTS && distance(&f->slot[k][side], &b) < d) {
                from = &f->slot[k][side];
                d = distance(from, &b);
            }
        if (!from->valid) {
            refresh(f, to, &b, side);
        } else {
            pn_board a = {{from->pieces[0], from->pieces[1]}, from->kings};
            step(f, from, to, &a, &b, side);
        }
    }
    return pn_output(f, to->acc, bb_popcount(p->pieces[0] | p->pieces[1]));
}

/* ---- the check (ckr_piecenet_acc_check) ---- */

typedef struct acc_walk {
    const ckr_eval *eval;
    ckr_piecenet_fast *f;
    uint64_t rng;
    int plies, branch;
    int64_t *counts;
    ckr_move moves[CKR_MAX_PLY + 1][CKR_MAX_MOVES];
} acc_walk;

static uint64_t next_random(acc_walk *w)
{
    w->rng ^= w->rng << 13;
    w->rng ^= w->rng >> 7;
    w->rng ^= w->rng << 17;
    return w->rng;
}

static void walk(acc_walk *w, ckr_pos *p, int ply)
{
    /* Leave a quarter of the inner nodes unscored: their children then
     * bring the slots up to date over two moves or more. */
    if (ply == w->plies || next_random(w) % 4) {
        int got = ckr_piecenet_acc_value(w->f, p, ply);
        w->counts[0]++;
        w->counts[1] += got != ckr_piecenet_value(w->eval, p);
    }
    if (ply == w->plies)
        return;
    int n = ckr_gen_moves(p, w->moves[ply]);
    for (int t = 0; t < w->branch && t < n; t++) {
        const ckr_move *m = &w->moves[ply][next_random(w) % (uint64_t)n];
        w->counts[2] += m->ncaps >= 2;
        w->counts[3] += (m->flags & CKR_MOVE_CROWN) != 0;
        ckr_make(p, m);
        walk(w, p, ply + 1);
        ckr_unmake(p, m);
    }
}

int ckr_piecenet_acc_check(const ckr_eval *eval, const uint32_t *start, int plies, int branch, uint64_t seed,
                           int64_t *counts)
{
    ckr_pos pos;
    if (start[4] > 1 || ckr_pos_set(&pos, start[0], start[1], start[2], start[3], (int)start[4]) != 0 ||
        plies < 0 || plies > CKR_MAX_PLY || branch < 1)
        return -1;
    acc_walk *w = calloc(1, sizeof *w);
    if (!w)
        return -2;
    w->f = ckr_piecenet_fast_new(eval);
    if (!w->f) {
        free(w);
        return -2;
    }
    w->eval = eval;
    w->rng = seed | 1;
    w->plies = plies;
    w->branch = branch;
    w->counts = counts;
    for (int i = 0; i < 4; i++)
        counts[i] = 0;
    walk(w, &pos, 0);
    ckr_piecenet_fast_free(w->f);
    free(w);
    return 0;
}

#else /* no AVX2: no packed network, so no accumulator */

int ckr_piecenet_acc_value(ckr_piecenet_fast *f, const ckr_pos *p, int ply)
{
    return ckr_piecenet_fast_value(f, p);
}

int ckr_piecenet_acc_check(const ckr_eval *eval, const uint32_t *start, int plies, int branch, uint64_t seed,
                           int64_t *counts)
{
    return -2;
}

#endif

int ckr_engine_set_piecenet_path(ckr_engine *e, int mode)
{
    if (mode < 0 || mode > 2)
        return -1;
    e->net_path = mode;
    return e->net ? mode : 2;
}
