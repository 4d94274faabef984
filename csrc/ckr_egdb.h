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
