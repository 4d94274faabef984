/* rote.c -- Samuel's rote memory: standardized positions -> (score, ply).
 *
 * An open-addressing hash table with linear probing, at most half full.  Each
 * slot holds the whole standardized position (three 32-bit square sets), so
 * a hit is exact, plus the score, the ply it was backed up over, and a "used"
 * mark the search sets when it takes the score at a leaf (the learner reads
 * the marks to refresh the ages of those positions, Samuel's "refreshing").
 * The ages themselves live in the store (engine/learners/rote_store.py): the
 * search needs only the score and the ply.
 *
 * A slot is empty when its black and white sets are both 0 (no stored
 * position is empty).  Deletion shifts later entries of the same run back, so
 * no tombstones are needed and a table never slows down with churn. */
#include <stdlib.h>
#include <string.h>
#include "bitboard.h"

typedef struct rote_slot {
    uint32_t black, white, kings;
    int16_t score;
    uint8_t ply;
    uint8_t used; /* written by searches with relaxed atomics */
} rote_slot;

struct ckr_rote {
    rote_slot *slots;
    uint64_t mask; /* number of slots - 1, a power of two minus one */
    int64_t count;
};

/* ---- square-set transforms ---- */

/* Square s (1..32) sits at bit s-1 of a square set; in ckr_pos words it sits
 * at bit (s-1) + (s-1)/8 (three ghost bits).  These move between the two. */
static inline uint32_t squares_of(ckr_bb b)
{
    return (uint32_t)((b & 0xFF) | ((b >> 1) & 0xFF00) | ((b >> 2) & 0xFF0000) | ((b >> 3) & 0xFF000000));
}

/* Turning the board 180 degrees maps square s to 33 - s: a 32-bit reversal. */
static inline uint32_t rot180(uint32_t x)
{
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
    x = ((x >> 8) & 0x00FF00FFu) | ((x & 0x00FF00FFu) << 8);
    return (x >> 16) | (x << 16);
}

/* Reflections that keep the dark squares dark, as square index -> index.
 * With rows r (0 = Black's back rank) and columns c (square 1 is r0 c1):
 *   TRANSPOSE  (r, c) -> (c, r), about the axis of the double-corner diagonals;
 *   ANTI       (r, c) -> (7-c, 7-r), about the long diagonal 4-29. */
static const uint8_t TRANSPOSE[32] = {4,  12, 20, 28, 0, 8,  16, 24, 5,  13, 21, 29, 1, 9,  17, 25,
                                      6,  14, 22, 30, 2, 10, 18, 26, 7,  15, 23, 31, 3, 11, 19, 27};
static const uint8_t ANTI[32] = {27, 19, 11, 3, 31, 23, 15, 7, 26, 18, 10, 2, 30, 22, 14, 6,
                                 25, 17, 9,  1, 29, 21, 13, 5, 24, 16, 8,  0, 28, 20, 12, 4};

static uint32_t permute(uint32_t x, const uint8_t *perm)
{
    uint32_t out = 0;
    while (x) {
        int i = __builtin_ctz(x);
        x &= x - 1;
        out |= 1u << perm[i];
    }
    return out;
}

static inline int key_less(uint32_t b1, uint32_t w1, uint32_t b2, uint32_t w2)
{
    return b1 < b2 || (b1 == b2 && w1 < w2);
}

/* Standardize square sets: mover = side to move's pieces, other = the rest. */
static int standardize(uint32_t mover, uint32_t other, uint32_t kings, int side, ckr_rote_key *out)
{
    uint32_t b, w, k;
    if (side == CKR_WHITE) {
        b = rot180(mover);
        w = rot180(other);
        k = rot180(kings);
    } else {
        b = mover;
        w = other;
        k = kings;
    }
    if (k == (b | w) && k) {
        /* Kings only: the four symmetries of the king game; keep the least. */
        uint32_t bb[3] = {permute(b, TRANSPOSE), permute(b, ANTI), rot180(b)};
        uint32_t ww[3] = {permute(w, TRANSPOSE), permute(w, ANTI), rot180(w)};
        for (int i = 0; i < 3; i++)
            if (key_less(bb[i], ww[i], b, w)) {
                b = bb[i];
                w = ww[i];
            }
        k = b | w;
    }
    out->black = b;
    out->white = w;
    out->kings = k;
    return side == CKR_WHITE;
}

int ckr_rote_key_of(const ckr_pos *pos, ckr_rote_key *out)
{
    int s = pos->side;
    return standardize(squares_of(pos->pieces[s]), squares_of(pos->pieces[s ^ 1]), squares_of(pos->kings), s,
                       out);
}

int ckr_rote_key_sets(uint32_t black_men, uint32_t black_kings, uint32_t white_men, uint32_t white_kings,
                      int side, ckr_rote_key *out)
{
    uint32_t bl = black_men | black_kings, wh = white_men | white_kings;
    if ((black_men & black_kings) || (white_men & white_kings) || (bl & wh))
        return -1;
    uint32_t kings = black_kings | white_kings;
    return side == CKR_WHITE ? standardize(wh, bl, kings, side, out) : standardize(bl, wh, kings, side, out);
}

/* ---- the table ---- */

static inline uint64_t key_hash(uint32_t b, uint32_t w, uint32_t k)
{
    uint64_t h = ((uint64_t)w << 32 | b) ^ ((uint64_t)k * 0x9E3779B97F4A7C15ull);
    h ^= h >> 30;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 27;
    h *= 0x94D049BB133111EBull;
    return h ^ (h >> 31);
}

static inline int slot_empty(const rote_slot *s) { return (s->black | s->white) == 0; }

static inline int slot_is(const rote_slot *s, const ckr_rote_key *k)
{
    return s->black == k->black && s->white == k->white && s->kings == k->kings;
}

static uint64_t slots_for(int64_t capacity)
{
    uint64_t n = 16;
    while ((int64_t)(n / 2) < capacity)
        n *= 2;
    return n;
}

ckr_rote *ckr_rote_new(int64_t capacity)
{
    ckr_rote *r = calloc(1, sizeof *r);
    if (!r)
        return 0;
    uint64_t n = slots_for(capacity);
    r->slots = calloc(n, sizeof(rote_slot));
    if (!r->slots) {
        free(r);
        return 0;
    }
    r->mask = n - 1;
    return r;
}

void ckr_rote_free(ckr_rote *r)
{
    if (!r)
        return;
    free(r->slots);
    free(r);
}

int64_t ckr_rote_count(const ckr_rote *r) { return r->count; }
int64_t ckr_rote_capacity(const ckr_rote *r) { return (int64_t)((r->mask + 1) / 2); }
int64_t ckr_rote_bytes(const ckr_rote *r) { return (int64_t)((r->mask + 1) * sizeof(rote_slot) + sizeof *r); }

static rote_slot *find(const ckr_rote *r, const ckr_rote_key *k)
{
    uint64_t i = key_hash(k->black, k->white, k->kings) & r->mask;
    for (;;) {
        rote_slot *s = &r->slots[i];
        if (slot_empty(s))
            return 0;
        if (slot_is(s, k))
            return s;
        i = (i + 1) & r->mask;
    }
}

/* Place a slot known to be absent into a table with room. */
static void place(ckr_rote *r, const rote_slot *src)
{
    uint64_t i = key_hash(src->black, src->white, src->kings) & r->mask;
    while (!slot_empty(&r->slots[i]))
        i = (i + 1) & r->mask;
    r->slots[i] = *src;
    r->count++;
}

static int rehash(ckr_rote *r, int64_t capacity)
{
    uint64_t n = slots_for(capacity);
    rote_slot *old = r->slots;
    uint64_t oldn = r->mask + 1;
    rote_slot *fresh = calloc(n, sizeof(rote_slot));
    if (!fresh)
        return -1;
    r->slots = fresh;
    r->mask = n - 1;
    r->count = 0;
    for (uint64_t i = 0; i < oldn; i++)
        if (!slot_empty(&old[i]))
            place(r, &old[i]);
    free(old);
    return 0;
}

ckr_rote *ckr_rote_clone(const ckr_rote *r, int64_t capacity)
{
    if (capacity < r->count)
        capacity = r->count;
    if (capacity <= 0 || slots_for(capacity) == r->mask + 1) {
        ckr_rote *c = calloc(1, sizeof *c);
        if (!c)
            return 0;
        c->slots = malloc((r->mask + 1) * sizeof(rote_slot));
        if (!c->slots) {
            free(c);
            return 0;
        }
        memcpy(c->slots, r->slots, (r->mask + 1) * sizeof(rote_slot));
        for (uint64_t i = 0; i <= r->mask; i++)
            c->slots[i].used = 0; /* a fresh table starts with no marks */
        c->mask = r->mask;
        c->count = r->count;
        return c;
    }
    ckr_rote *c = ckr_rote_new(capacity);
    if (!c)
        return 0;
    for (uint64_t i = 0; i <= r->mask; i++)
        if (!slot_empty(&r->slots[i])) {
            rote_slot s = r->slots[i];
            s.used = 0;
            place(c, &s);
        }
    return c;
}

static inline int clamp_score(int score)
{
    return score > CKR_WIN ? CKR_WIN : score < -CKR_WIN ? -CKR_WIN : score;
}

int ckr_rote_put(ckr_rote *r, const ckr_rote_key *k, int score, int ply)
{
    if ((k->black | k->white) == 0)
        return 0; /* an empty board is never a position */
    rote_slot *s = find(r, k);
    if (!s) {
        if ((uint64_t)(r->count + 1) * 2 > r->mask + 1 && rehash(r, (r->count + 1) * 2) != 0)
            return -1;
        rote_slot fresh = {k->black, k->white, k->kings, 0, 0, 0};
        place(r, &fresh);
        s = find(r, k);
    }
    s->score = (int16_t)clamp_score(score);
    s->ply = (uint8_t)(ply < 0 ? 0 : ply > CKR_ROTE_MAX_PLY ? CKR_ROTE_MAX_PLY : ply);
    return 0;
}

int ckr_rote_put_many(ckr_rote *r, const ckr_rote_key *keys, const int32_t *scores, const int32_t *plies, int64_t n)
{
    if (r->count + n > ckr_rote_capacity(r) && rehash(r, r->count + n) != 0)
        return -1;
    for (int64_t i = 0; i < n; i++)
        if (ckr_rote_put(r, &keys[i], scores[i], plies[i]) != 0)
            return -1;
    return 0;
}

int ckr_rote_del(ckr_rote *r, const ckr_rote_key *k)
{
    rote_slot *s = find(r, k);
    if (!s)
        return 0;
    /* Backward-shift deletion: move later members of the run into the hole
     * when their home slot does not lie (cyclically) between hole and them. */
    uint64_t hole = (uint64_t)(s - r->slots), j = hole;
    for (;;) {
        j = (j + 1) & r->mask;
        rote_slot *t = &r->slots[j];
        if (slot_empty(t))
            break;
        uint64_t home = key_hash(t->black, t->white, t->kings) & r->mask;
        int stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (!stays) {
            r->slots[hole] = *t;
            hole = j;
        }
    }
    memset(&r->slots[hole], 0, sizeof(rote_slot));
    r->count--;
    return 1;
}

int ckr_rote_get(const ckr_rote *r, const ckr_rote_key *k, int *score, int *ply)
{
    const rote_slot *s = find(r, k);
    if (!s)
        return 0;
    *score = s->score;
    *ply = s->ply;
    return 1;
}

int ckr_rote_mark(const ckr_rote *r, const ckr_rote_key *k)
{
    rote_slot *s = find(r, k);
    if (!s)
        return 0;
    if (!__atomic_load_n(&s->used, __ATOMIC_RELAXED))
        __atomic_store_n(&s->used, 1, __ATOMIC_RELAXED);
    return 1;
}

int ckr_rote_probe(const ckr_rote *r, const ckr_pos *pos, int *score, int *ply)
{
    ckr_rote_key k;
    ckr_rote_key_of(pos, &k);
    rote_slot *s = find(r, &k);
    if (!s)
        return 0;
    *score = s->score;
    *ply = s->ply;
    /* Several searches may share the table: mark with relaxed atomics, and
     * only once, so a hot entry's cache line is not written over and over. */
    if (!__atomic_load_n(&s->used, __ATOMIC_RELAXED))
        __atomic_store_n(&s->used, 1, __ATOMIC_RELAXED);
    return 1;
}

int ckr_rote_decay(int score, int plies)
{
    int d = CKR_ROTE_DECAY * (plies > 0 ? plies : 0);
    if (score > 0)
        return score > d ? score - d : 0;
    if (score < 0)
        return -score > d ? score + d : 0;
    return 0;
}

int64_t ckr_rote_used(const ckr_rote *r, ckr_rote_key *out, int64_t max)
{
    int64_t n = 0;
    for (uint64_t i = 0; i <= r->mask; i++) {
        const rote_slot *s = &r->slots[i];
        if (slot_empty(s) || !__atomic_load_n(&s->used, __ATOMIC_RELAXED))
            continue;
        if (n < max && out) {
            out[n].black = s->black;
            out[n].white = s->white;
            out[n].kings = s->kings;
        }
        n++;
    }
    return n;
}

int64_t ckr_rote_dump(const ckr_rote *r, ckr_rote_key *keys, int32_t *scores, int32_t *plies, int64_t n)
{
    int64_t k = 0;
    for (uint64_t i = 0; i <= r->mask && k < n; i++) {
        const rote_slot *s = &r->slots[i];
        if (slot_empty(s))
            continue;
        keys[k].black = s->black;
        keys[k].white = s->white;
        keys[k].kings = s->kings;
        scores[k] = s->score;
        plies[k] = s->ply;
        k++;
    }
    return k;
}

int64_t ckr_rote_lookup_many(const ckr_rote *r, const ckr_rote_key *keys, int64_t n)
{
    int64_t found = 0;
    for (int64_t i = 0; i < n; i++)
        found += find(r, &keys[i]) != 0;
    return found;
}
