/*
 * ckr_egdb.h -- the endgame database: win/loss/draw for every position of few
 * pieces, built by iterating to a fixpoint (csrc/egdb.c), cdef-clean like
 * ckr_api.h.
 *
 * A table is one material signature: bm black men, bk black kings, wm white
 * men, wk white kings (each side at least one piece) and the side to move.
 * Its index is near-perfect: black men ranked among squares 1..28 (a black man
 * on 29..32 would have been crowned), white men among 5..32, then black kings
 * among the squares the men leave free and white kings among those left:
 *   index = ((rank(bm) * C(28,wm) + rank(wm)) * C(f,bk) + rank(bk)) * C(f-bk,wk) + rank(wk)
 * with f = 32 - bm - wm.  Slots whose black and white men overlap hold no
 * position (CKR_EGDB_NONE).  Values take 2 bits, four to a byte, the slot with
 * the lowest index in the low bits; they are for the side to move.
 */

#define CKR_EGDB_DRAW 0
#define CKR_EGDB_WIN 1
#define CKR_EGDB_LOSS 2
#define CKR_EGDB_NONE 3
#define CKR_EGDB_MAX_SIDE 8
#define CKR_EGDB_MAX_THREADS 256

typedef struct ckr_egdb ckr_egdb;

ckr_egdb *ckr_egdb_new(void);
void ckr_egdb_free(ckr_egdb *db);

/* Slots of a signature's table (both sides to move have the same), or -1 when
 * a count is out of range (negative, more than CKR_EGDB_MAX_SIDE pieces a side,
 * or more men than squares). */
int64_t ckr_egdb_size(int bm, int bk, int wm, int wk);
/* The slot of a position in its signature's table (-1: a man on its crowning row). */
int64_t ckr_egdb_index(const ckr_pos *pos);
/* The position in a slot: 1, or 0 for a slot that holds none (men overlap). */
int ckr_egdb_position(int bm, int bk, int wm, int wk, int side, int64_t index, ckr_pos *out);

/* Solve a signature for both sides to move.  Every signature a capture or a
 * crowning leads to must be in db already.  Returns the number of passes, -1
 * when a needed signature is missing, -2 out of memory, -3 bad signature. */
int ckr_egdb_build(ckr_egdb *db, int bm, int bk, int wm, int wk);
/* The same on `threads` threads (the caller's and threads - 1 more; more than
 * CKR_EGDB_MAX_THREADS count as that many): the tables are the same for any
 * number, only the passes returned may differ.  -3 also when threads < 1. */
int ckr_egdb_build_threads(ckr_egdb *db, int bm, int bk, int wm, int wk, int threads);
/* Whether db holds the table for a signature and side. */
int ckr_egdb_has(const ckr_egdb *db, int bm, int bk, int wm, int wk, int side);
/* Copy a table's packed bytes out ((size + 3) / 4 of them); -1 when absent or nbytes is wrong. */
int ckr_egdb_get_data(const ckr_egdb *db, int bm, int bk, int wm, int wk, int side, uint8_t *out, int64_t nbytes);
/* Install a table from packed bytes (replacing any); 0, -2 out of memory, -3 bad signature or length. */
int ckr_egdb_put_data(ckr_egdb *db, int bm, int bk, int wm, int wk, int side, const uint8_t *data, int64_t nbytes);
/* The stored value of a slot (CKR_EGDB_*), or -1 when the table is absent. */
int ckr_egdb_value_at(const ckr_egdb *db, int bm, int bk, int wm, int wk, int side, int64_t index);

/* The value of a position for the side to move: CKR_EGDB_WIN/LOSS/DRAW, or -1
 * when db does not cover its signature.  A side to move without pieces has
 * lost (that needs no table). */
int ckr_egdb_probe(const ckr_egdb *db, const ckr_pos *pos);

/* Check a table against its successors: a win needs a successor lost for the
 * opponent, a loss needs every successor won by the opponent (or no move), a
 * draw neither.  counts[0..3] receive the slots valued draw, win, loss, none.
 * Returns the number of inconsistent positions, or -1 when a table it needs
 * is missing. */
int64_t ckr_egdb_check(const ckr_egdb *db, int bm, int bk, int wm, int wk, int side, int64_t *counts);
/* The same on `threads` threads (fewer than 1 count as 1). */
int64_t ckr_egdb_check_threads(const ckr_egdb *db, int bm, int bk, int wm, int wk, int side, int64_t *counts,
                               int threads);

/* ---- distance to conversion (optional) ----
 * For a won or lost position, the plies until the next capture or crowning
 * (by either side; the move out of the signature counts one ply), the winner
 * shortening them and the loser stretching them; 0 for draws
 * and empty slots, and for a lost position without a move.  Between two
 * conversions only king moves and non-crowning man moves are made, so a win
 * played along falling distances ends (every conversion takes a piece or
 * crowns a man) and no stretch of king moves lasts longer than its distance.
 * A byte a slot, in the order of the values. */
/* Solve the distances of a signature whose values (and those of the
 * signatures it leads to) are in db.  Returns the greatest distance, -1 when a
 * table is missing, -2 out of memory, -3 bad signature. */
int ckr_egdb_build_distance(ckr_egdb *db, int bm, int bk, int wm, int wk);
/* The same on `threads` threads; the distances and the value returned are the
 * same for any number.  -3 also when threads < 1. */
int ckr_egdb_build_distance_threads(ckr_egdb *db, int bm, int bk, int wm, int wk, int threads);
int ckr_egdb_has_distance(const ckr_egdb *db, int bm, int bk, int wm, int wk, int side);
/* Copy a distance table out (size bytes); -1 when absent or nbytes is wrong. */
int ckr_egdb_get_distance(const ckr_egdb *db, int bm, int bk, int wm, int wk, int side, uint8_t *out, int64_t nbytes);
/* Install a distance table (size bytes); 0, -2 out of memory, -3 bad signature or length. */
int ckr_egdb_put_distance(ckr_egdb *db, int bm, int bk, int wm, int wk, int side, const uint8_t *data, int64_t nbytes);
/* Use the caller's memory as a table (values, or distances when `distance`), without copying:
 * e.g. a file mapped read-only, which processes then share.  It must stay alive and
 * unchanged while db uses it; db never writes or frees it.  0, or -3 bad signature or length. */
int ckr_egdb_put_view(ckr_egdb *db, int bm, int bk, int wm, int wk, int side, int distance, const uint8_t *data,
                      int64_t nbytes);
/* The distance of a position, or -1 when db holds no distances for it. */
int ckr_egdb_distance(const ckr_egdb *db, const ckr_pos *pos);
/* Check a distance table against its successors (the rule above); the number
 * of positions that break it, or -1 when a table it needs is missing. */
int64_t ckr_egdb_check_distance(const ckr_egdb *db, int bm, int bk, int wm, int wk, int side);
int64_t ckr_egdb_check_distance_threads(const ckr_egdb *db, int bm, int bk, int wm, int wk, int side, int threads);

/* ---- the database in the search ----
 * The search (CKR_MODE_PVS) probes db, when set, in every position of at most
 * max_pieces pieces reached by a capture or a man move (the moves that can
 * change a position's value in the database; between them the search runs on
 * its evaluation and finds its own way to the next conversion).  A won
 * position scores CKR_DB_WIN, less its ply, plus the static score (clipped to
 * +/-CKR_DB_MARGIN) for the winner: sooner and bigger conversions first.  At
 * the root, a position the database holds has its moves cut to those that keep
 * its value (all of them when it is lost), and the reported score is the
 * database's: CKR_DB_WIN, 0 or -CKR_DB_WIN unless the search proved more.
 * db must outlive the searches; NULL turns probing off. */
#define CKR_DB_WIN 20000
#define CKR_DB_MARGIN 900
#define CKR_DB_BOUND 18972 /* CKR_DB_WIN - CKR_DB_MARGIN - CKR_MAX_PLY */
void ckr_engine_set_egdb(ckr_engine *engine, const ckr_egdb *db, int max_pieces);
