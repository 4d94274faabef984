/*
 * ckr_rote.h -- Samuel's rote memory as a C hash table the search probes at
 * its leaves, cdef-clean like ckr_api.h.  Implemented in rote.c.
 *
 * Standardization (Samuel 1959, "Cataloging and culling stored information"):
 * a position with White to move is turned 180 degrees and its colours swapped,
 * so every stored position has Black to move and its score is for the side to
 * move.  A position with kings only is also reflected about the two long
 * diagonals (and turned 180 degrees, their product), and the smallest of the
 * four variants is kept.  The key is the standardized position itself, three
 * square sets (bit s-1 for square s), so a lookup never confuses two positions.
 *
 * Sense of direction: a stored score met at a leaf ply k plies from the root
 * is moved CKR_ROTE_DECAY toward zero per ply, so between equal stored scores
 * the search prefers the nearer one when winning and the farther one when
 * losing.  A proven win (CKR_WIN - n) thereby becomes CKR_WIN - n - k, as the
 * search's own win scores do.
 *
 * Tables are written by one thread and published to engines afterwards; once
 * published a table is only read (apart from its per-entry "used" marks, set
 * with relaxed atomics).  Change the memory by cloning, editing the clone and
 * publishing it, never by editing a table a search may be reading.
 */

#define CKR_ROTE_DECAY 1
#define CKR_ROTE_MAX_PLY 255

typedef struct ckr_rote_key {
    uint32_t black; /* the side to move's pieces, after standardization */
    uint32_t white;
    uint32_t kings;
} ckr_rote_key;

typedef struct ckr_rote ckr_rote;

/* A table for at least capacity positions (it grows by itself when filled). */
ckr_rote *ckr_rote_new(int64_t capacity);
void ckr_rote_free(ckr_rote *rote);
/* A copy with room for at least capacity positions (0: the same room). */
ckr_rote *ckr_rote_clone(const ckr_rote *rote, int64_t capacity);
int64_t ckr_rote_count(const ckr_rote *rote);
int64_t ckr_rote_capacity(const ckr_rote *rote);
/* Bytes of memory held by the table. */
int64_t ckr_rote_bytes(const ckr_rote *rote);

/* The standardized key of a position; returns 1 when the colours were swapped. */
int ckr_rote_key_of(const ckr_pos *pos, ckr_rote_key *out);
/* The same from square sets (as ckr_pos_set takes them); -1 when they overlap. */
int ckr_rote_key_sets(uint32_t black_men, uint32_t black_kings, uint32_t white_men, uint32_t white_kings,
                      int side, ckr_rote_key *out);

/* Insert or replace.  score is for the side to move, ply the effective ply of
 * the backed-up score (clamped to 0..CKR_ROTE_MAX_PLY).  0, or -1 out of memory. */
int ckr_rote_put(ckr_rote *rote, const ckr_rote_key *key, int score, int ply);
/* Remove; 1 when it was there. */
int ckr_rote_del(ckr_rote *rote, const ckr_rote_key *key);
/* Look up a key; 1 and score/ply when stored, 0 otherwise.  Does not mark it used. */
int ckr_rote_get(const ckr_rote *rote, const ckr_rote_key *key, int *score, int *ply);
/* Mark a stored key used, as a search's look-up would (a search elsewhere, on the
 * 704, took its score); 1 when it is stored. */
int ckr_rote_mark(const ckr_rote *rote, const ckr_rote_key *key);
/* Look up a position (standardizing it first) and mark the entry used. */
int ckr_rote_probe(const ckr_rote *rote, const ckr_pos *pos, int *score, int *ply);
/* The score a stored score is worth after backing it up over plies plies. */
int ckr_rote_decay(int score, int plies);
/* Keys of the entries found by a search (ckr_rote_probe) since the table was
 * made; up to max of them into out.  Returns how many there are in all. */
int64_t ckr_rote_used(const ckr_rote *rote, ckr_rote_key *out, int64_t max);
/* Every entry, in table order: keys, scores and plies (each array n long, n
 * >= ckr_rote_count).  Returns the number written. */
int64_t ckr_rote_dump(const ckr_rote *rote, ckr_rote_key *keys, int32_t *scores, int32_t *plies, int64_t n);
/* Bulk insert: n keys with their scores and plies.  0, or -1 out of memory. */
int ckr_rote_put_many(ckr_rote *rote, const ckr_rote_key *keys, const int32_t *scores, const int32_t *plies,
                      int64_t n);
/* Benchmark: look up n keys, return how many were found. */
int64_t ckr_rote_lookup_many(const ckr_rote *rote, const ckr_rote_key *keys, int64_t n);

/* The engine probes the table at its search leaves (NULL: no rote memory).
 * The table must outlive every search that starts while it is set. */
void ckr_engine_set_rote(ckr_engine *engine, const ckr_rote *rote);
