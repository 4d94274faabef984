/*
 * ckr_book.h -- evaluators trained from book games (signature tables, the
 * tabulated function, move-phase tables, Griffith's heuristic), cdef-clean
 * like ckr_api.h.  Implemented in book_eval.c.
 */

/* CKR_EVAL_SIGNATURE, CKR_EVAL_TABULATED, CKR_EVAL_PHASE, CKR_EVAL_HEURISTIC. */
int ckr_book_eval(const ckr_eval *eval, const ckr_pos *pos, const ckr_pos *parent, int game_ply);
