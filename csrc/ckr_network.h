/*
 * ckr_network.h -- Chellapilla and Fogel's evolved network as an evaluator
 * kind (CKR_EVAL_NETWORK), cdef-clean like ckr_api.h.
 *
 * The data words (int32, the caller keeps them alive) are a header and the
 * network's numbers as float32 bit patterns:
 *   data[0] CKR_NETWORK_VERSION
 *   data[1] preset: CKR_NETWORK_BLONDIE (32-40-10-1, 1,741 numbers) or
 *           CKR_NETWORK_SPATIAL (the 91 sub-squares first, 5,046 numbers),
 *           plus CKR_NETWORK_EXACT for exact scores (below)
 *   data[2] how many numbers follow the header (must match the preset)
 *   data[3] K, the value of a king (float32 bits)
 *   data[4..] the numbers, in the order network_eval.c documents.
 * The inputs are the 32 squares in order 1..32: +1 an own man, +K an own king,
 * -1 and -K the other side's, 0 empty ("own" is the side the value is for).
 * The output, tanh of the last node, is in [-1, 1]; the score is
 * CKR_NETWORK_SCALE times it, rounded.  That saturates: from about five men
 * ahead tanh rounds to 1000 for every move.  With CKR_NETWORK_EXACT the score
 * is CKR_NETWORK_SCALE times the last node's sum before its tanh (held inside
 * the win bound): tanh is increasing and odd, so the search then chooses as
 * it would over the exact float outputs, and nothing saturates.
 */

#define CKR_EVAL_NETWORK 9
#define CKR_NETWORK_VERSION 1
#define CKR_NETWORK_BLONDIE 1
#define CKR_NETWORK_SPATIAL 2
#define CKR_NETWORK_HEADER 4
#define CKR_NETWORK_SCALE 1000
#define CKR_NETWORK_EXACT 256

/* How many numbers a preset has (0 for an unknown preset). */
int ckr_network_size(int preset);

/* 0 when data[0..ndata-1] is a network the evaluator can read, else a
 * negative code: -1 short or wrong version, -2 unknown preset, -3 wrong
 * count, -4 a number that is not finite, -5 K outside [1, 3]. */
int ckr_network_check(const int32_t *data, int64_t ndata);

/* The network's output for side ``side`` (0 Black, 1 White) of ``pos``, as
 * a double in [-1, 1], the last node's sum before its tanh, and the integer
 * score the search uses. */
double ckr_network_output(const ckr_eval *eval, const ckr_pos *pos, int side);
double ckr_network_sum(const ckr_eval *eval, const ckr_pos *pos, int side);
int ckr_network_value(const ckr_eval *eval, const ckr_pos *pos, int side);

/* Evaluates each of ``n`` positions ``rounds`` times for the side to move and
 * returns the sum of the scores (the bench's loop: no Python per call). */
int64_t ckr_network_bench(const ckr_eval *eval, const ckr_pos *positions, int n, int rounds);
