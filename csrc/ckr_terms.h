/*
 * ckr_terms.h -- Samuel's 1959 evaluation terms (Appendix C), cdef-clean like
 * ckr_api.h (read verbatim by cffi: no #include, no #ifdef, no macros with
 * arguments).  Implemented in samuel_terms.c.
 */

/* The polynomial of CKR_EVAL_SAMUEL; parent NULL: see samuel_terms.c. */
int ckr_samuel_eval(const ckr_eval *eval, const ckr_pos *pos, const ckr_pos *parent);
