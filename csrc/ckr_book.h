/*
 * ckr_book.h -- evaluators trained from book games, cdef-clean like ckr_api.h
 * (read verbatim by cffi: no #include, no #ifdef, no macros with arguments).
 * Each kind has its own file; the table of kinds (evaluate.c) dispatches.
 */

/* signature_tables.c */
int ckr_signature_eval(const ckr_eval *eval, const ckr_pos *pos, const ckr_pos *parent);
/* tabulated.c */
int ckr_tabulated_eval(const ckr_eval *eval, const ckr_pos *pos, const ckr_pos *parent);
/* phase_tables.c */
int ckr_phase_eval(const ckr_eval *eval, const ckr_pos *pos, const ckr_pos *parent, int game_ply);
/* heuristic_eval.c */
int ckr_heuristic_eval(const ckr_eval *eval, const ckr_pos *pos, const ckr_pos *parent);
