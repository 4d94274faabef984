/* piece_net_acc.c -- the piece network's first layer kept as an accumulator
 * (as NNUE engines keep one), so that a leaf pays for the rows its last move
 * changed instead of all of them.
 *
 * The packed network (piece_net_fast.h) holds one slot per ply: the
 * first-layer sums of both points of view and the board they belong to.
 * Nothing happens on make or unmake (the searchers are not told): at a leaf
 * the slot of its ply is brought up to date lazily, by undoing the line's
 * moves (e->line) back to the nearest ply whose slot holds that ply's board,
 * then applying the boards' differences forward, filling the slots between
 * (so the leaf's siblings start from their parent's slot).  A difference is
 * taken between whole boards, square set by square set, not read off the
 * move, so captures of several pieces, crowning, and any board a stale line
 * might rebuild are all the same case: every slot's sums are always exactly
 * those of its board (int16 adds wrap, but the sums of the real boards the
 * scores are taken from fit: packing checked that), so the scores are the
 * reference's integers and node counts do not change.  Nothing valid found
 * (the first leaf of a search, a new root): the walk's oldest board is summed
 * from scratch. */
#include "search.h"
#include "piece_net_fast.h"

#ifdef CKR_PIECENET_HAVE_FAST

#define INLINE static inline __attribute__((always_inline))
#define MAX_CHANGES 32 /* rows one step may add or remove before a fresh sum is cheaper */

static inline int holds(const pn_slot *s, const ckr_pos *p)
{
    return s->valid && s->pieces[0] == p->pieces[0] && s->pieces[1] == p->pieces[1] && s->kings == p->kings;
}

static inline void tag(pn_slot *s, const ckr_pos *p)
{
    s->pieces[0] = p->pieces[0];
    s->pieces[1] = p->pieces[1];
    s->kings = p->kings;
    s->valid = 1;
}

static void refresh(const ckr_piecenet_fast *f, pn_slot *s, const ckr_pos *p)
{
    pn_first_layer(f, p, 0, s->acc[0]);
    pn_first_layer(f, p, 1, s->acc[1]);
    tag(s, p);
}

static inline __m256i load(const void *p) { return _mm256_load_si256((const __m256i *)p); }

INLINE void apply_w(const ckr_piecenet_fast *f, const int16_t *src, int16_t *dst, const int *gone, int ngone,
                    const int *came, int ncame, const int h1)
{
    for (int v = 0; v < h1 / 16; v++) {
        __m256i a = load(src + 16 * v);
        for (int i = 0; i < ngone; i++)
            a = _mm256_sub_epi16(a, load(f->w1 + gone[i] * h1 + 16 * v));
        for (int i = 0; i < ncame; i++)
            a = _mm256_add_epi16(a, load(f->w1 + came[i] * h1 + 16 * v));
        _mm256_store_si256((__m256i *)(dst + 16 * v), a);
    }
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

/* Slot `to` for board b from slot `from`, which holds board a. */
static void step(const ckr_piecenet_fast *f, const pn_slot *from, pn_slot *to, const ckr_pos *a, const ckr_pos *b)
{
    /* square sets by colour and kind: class bit 0 the colour, bit 1 a king */
    const ckr_bb was[4] = {a->pieces[0] & ~a->kings, a->pieces[1] & ~a->kings,
                           a->pieces[0] & a->kings, a->pieces[1] & a->kings};
    const ckr_bb is[4] = {b->pieces[0] & ~b->kings, b->pieces[1] & ~b->kings,
                          b->pieces[0] & b->kings, b->pieces[1] & b->kings};
    for (int side = 0; side < 2; side++) {
        int gone[MAX_CHANGES], came[MAX_CHANGES], ngone = 0, ncame = 0, many = 0;
        for (int c = 0; c < 4 && !many; c++) {
            /* the network's class of this colour and kind seen from `side` */
            const short *input = ckr_piecenet_input_of[side][((c & 1) != side) + 2 * (c >> 1)];
            for (ckr_bb x = was[c] & ~is[c]; x && !many; x &= x - 1) {
                int idx = input[bb_lsb(x)];
                if (idx >= 0 && !(many = ngone == MAX_CHANGES))
                    gone[ngone++] = idx;
            }
            for (ckr_bb x = is[c] & ~was[c]; x && !many; x &= x - 1) {
                int idx = input[bb_lsb(x)];
                if (idx >= 0 && !(many = ncame == MAX_CHANGES))
                    came[ncame++] = idx;
            }
        }
        if (many)
            pn_first_layer(f, b, side, to->acc[side]);
        else
            apply(f, from->acc[side], to->acc[side], gone, ngone, came, ncame);
    }
    tag(to, b);
}

int ckr_piecenet_acc_value(ckr_piecenet_fast *f, const ckr_pos *p, const ckr_move *const *line, int ply)
{
    if (ply < 0 || ply >= PN_SLOTS)
        return ckr_piecenet_fast_value(f, p);
    pn_slot *slot = f->slot;
    if (!holds(&slot[ply], p)) {
        ckr_pos path[PN_SLOTS]; /* path[k]: the board at ply k, rebuilt from the leaf */
        path[ply] = *p;
        int k = ply;
        while (k > 0 && line[k - 1]) {
            path[k - 1] = path[k];
            ckr_unmake(&path[k - 1], line[k - 1]);
            k--;
            if (holds(&slot[k], &path[k]))
                break;
        }
        if (!holds(&slot[k], &path[k]))
            refresh(f, &slot[k], &path[k]);
        for (; k < ply; k++)
            step(f, &slot[k], &slot[k + 1], &path[k], &path[k + 1]);
    }
    return pn_output(f, slot[ply].acc[p->side], bb_popcount(p->pieces[0] | p->pieces[1]));
}

/* ---- the check (ckr_piecenet_acc_check) ---- */

typedef struct acc_walk {
    const ckr_eval *eval;
    ckr_piecenet_fast *f;
    uint64_t rng;
    int plies, branch;
    int64_t *counts;
    const ckr_move *line[CKR_MAX_PLY + 1];
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
        int got = ckr_piecenet_acc_value(w->f, p, w->line, ply);
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
        w->line[ply] = m;
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

int ckr_piecenet_acc_value(ckr_piecenet_fast *f, const ckr_pos *p, const ckr_move *const *line, int ply)
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
