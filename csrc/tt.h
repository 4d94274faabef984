/* tt.h -- the search's transposition table (internal, not part of the cdef).
 *
 * A table is buckets of TT_BUCKET entries, its size a power of two; a key's
 * bucket is its low bits.  The hot probe and store are inline here so the
 * searches that use them (search_pvs.c) compile them in. */
#ifndef CKR_TT_H
#define CKR_TT_H

#include "ckr.h"

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

typedef struct ckr_tt {
    tt_entry *slots;
    uint64_t buckets;   /* power of two */
    uint8_t generation; /* one more each search; older entries are replaced first */
} ckr_tt;

/* prototypes (tt.c) */
/* A table of the largest power-of-two size within hash_mb (at least 1 MB):
 * 0, or -1 when the memory is refused (the old table then stays). */
int tt_resize(ckr_tt *t, int hash_mb);
/* Empty every entry and restart the generations. */
void tt_clear(ckr_tt *t);
void tt_prepare(ckr_tt *t);
void tt_release(ckr_tt *t);

/* Mate scores are stored relative to the node, so they stay right at another ply. */
static inline int score_to_tt(int s, int ply)
{
    return s > CKR_WIN_BOUND ? s + ply : s < -CKR_WIN_BOUND ? s - ply : s;
}

static inline int score_from_tt(int s, int ply)
{
    return s > CKR_WIN_BOUND ? s - ply : s < -CKR_WIN_BOUND ? s + ply : s;
}

static inline tt_entry *tt_bucket(const ckr_tt *t, uint64_t key)
{
    return &t->slots[(key & (t->buckets - 1)) * TT_BUCKET];
}

/* Start loading a key's bucket before it is probed. */
static inline void tt_prefetch(const ckr_tt *t, uint64_t key) { __builtin_prefetch(tt_bucket(t, key)); }

static inline tt_entry *tt_probe(const ckr_tt *t, uint64_t key)
{
    tt_entry *b = tt_bucket(t, key);
    for (int i = 0; i < TT_BUCKET; i++)
        if (b[i].key == key)
            return &b[i];
    return 0;
}

/* Replacement schemes (a compile-time knob, docs/search-depth.md):
 *   0  the shallowest of the bucket's four, stale generations counting as
 *      8 plies shallower per search (today's)
 *   1  three depth-preferred slots, replaced that way only when the new entry
 *      is at least as deep as the shallowest of them, and one always-replace
 *      slot that takes the rest */
#ifndef TT_SCHEME
#define TT_SCHEME 0
#endif

/* What a store did (counted by the search): filled an empty slot or its own,
 * or evicted another position's entry, one of this search as deep or deeper
 * than the new one. */
enum { TT_STORED = 0, TT_EVICTED = 1, TT_EVICTED_DEEP = 2 };

static inline int tt_age(const ckr_tt *t, const tt_entry *x)
{
    return (uint8_t)(t->generation - (x->bound >> 2)) & 63;
}

static inline int tt_store(ckr_tt *t, uint64_t key, int score, int depth, int bound, int move)
{
    tt_entry *b = tt_bucket(t, key), *slot = &b[0];
    int worst = 1 << 30, own = 0;
    for (int i = 0; i < (TT_SCHEME == 1 ? TT_BUCKET - 1 : TT_BUCKET); i++) {
        if (b[i].key == key) {
            slot = &b[i];
            own = 1;
            break;
        }
        /* Replace the shallowest entry, counting stale generations as shallower. */
        int value = b[i].key ? b[i].depth - 8 * tt_age(t, &b[i]) : -1000;
        if (value < worst) {
            worst = value;
            slot = &b[i];
        }
    }
#if TT_SCHEME == 1
    if (!own && b[TT_BUCKET - 1].key == key) {
        slot = &b[TT_BUCKET - 1];
        own = 1;
    } else if (!own && worst > depth) {
        slot = &b[TT_BUCKET - 1]; /* every depth-preferred slot holds more work */
    }
#endif
    int done = TT_STORED;
    if (own) {
        if (move == 255)
            move = slot->move; /* keep the old best move on an upper bound */
    } else if (slot->key) {
        done = tt_age(t, slot) == 0 && slot->depth >= depth ? TT_EVICTED_DEEP : TT_EVICTED;
    }
    slot->key = key;
    slot->score = (int16_t)score;
    slot->depth = (int8_t)(depth > 127 ? 127 : depth);
    slot->bound = (uint8_t)(bound | ((t->generation & 63) << 2));
    slot->move = (uint8_t)move;
    return done;
}

#endif
