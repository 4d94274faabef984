/*
 * ckr_terms.h -- Samuel's 1959 evaluation terms (Appendix C), cdef-clean like
 * ckr_api.h (read verbatim by cffi: no #include, no #ifdef, no macros with
 * arguments).  Implemented in samuel_terms.c; docs/learners/terms.md has the
 * definitions, the decisions on ambiguous ones, the signs and the scaling.
 *
 * Parameters (index: name), "active" = side to move, "passive" = the other:
 *   0 ADV  1 APEX  2 BACK  3 CENT  4 CNTR  5 CORN  6 CRAMP  7 DENY  8 DIA
 *   9 DIAV (in halves)  10 DYKE  11 EXCH  12 EXPOS  13 FORK  14 GAP  15 GUARD
 *   16 HOLE  17 KCENT  18 MOB  19 MOBIL  20 MOVE  21 NODE  22 OREO  23 POLE
 *   24 RECAP  25 THRET
 * Terms: 0 PADV, 1 + p for parameter p, then the connectives 27 DEMO 28 DEMMO
 *   29 DDEMO 30 DDMM 31 MODE1 .. 34 MODE4 35 MOC1 36 MOC3 37 MOC2 38 MOC4.
 * Every term is from the point of view of the side to move at pos:
 *   term(simple p) = param_p(parent) - param_p(pos), the negation of Samuel's
 *   value (which is credited to the side that just moved), and a connective is
 *   minus Samuel's 0/1 value, i.e. 0 or -1.  parent NULL: the same board with
 *   the other side to move stands in for it.
 * ckr_samuel_eval: (sum_i weights[i] * term_i) >> CKR_SAMUEL_SHIFT, plus
 *   Samuel's trade-down bonus when weights[0] (PADV) is non-zero.
 */

#define CKR_SAMUEL_NPARAMS 26
#define CKR_SAMUEL_NTERMS 39
#define CKR_SAMUEL_SHIFT 13
/* weights[0] giving 50 centi-men per material unit: a man (2 units) is 100. */
#define CKR_SAMUEL_PADV_WEIGHT 409600

const char *ckr_samuel_param_name(int i);
const char *ckr_samuel_term_name(int i);

/* The 26 parameters of pos (side to move = active) into out[0..25]. */
int ckr_samuel_params(const ckr_pos *pos, int32_t *out);

/* The 39 terms of pos given the position before the last move (or NULL). */
int ckr_samuel_terms(const ckr_pos *pos, const ckr_pos *parent, int32_t *out);

/* Batch form for many positions given as square sets: sets[10*i .. 10*i+9] =
 * black men, black kings, white men, white kings, side, then the same five
 * for the parent; a parent side other than 0 or 1 means "no parent".
 * Writes n * CKR_SAMUEL_NTERMS terms to out; returns the index of the first
 * malformed position (overlapping sets) or -1 when all were fine. */
int64_t ckr_samuel_terms_batch(const uint32_t *sets, int64_t n, int32_t *out);

/* The polynomial of CKR_EVAL_SAMUEL; parent NULL: see above. */
int ckr_samuel_eval(const ckr_eval *eval, const ckr_pos *pos, const ckr_pos *parent);
