/*
 * ckr_piecenet.h -- a small learned network over piece-square inputs as an
 * evaluator kind (CKR_EVAL_PIECENET), cdef-clean like ckr_api.h.
 *
 * The network sees the board from the side to move's point of view (relative
 * squares: s for Black, 33-s for White), so a position and its colour-reversed
 * twin with the other side to move score the same.  Its 120 inputs are one-hot
 * piece squares:
 *     0..27   own man on relative square 1..28
 *    28..55   opponent's man on relative square 5..32
 *    56..87   own king on relative square 1..32
 *    88..119  opponent's king on relative square 1..32
 * (a man on its own crown row cannot stand and is left out).  Layers:
 *     h1 = clip(b1 + sum of W1's rows of the occupied inputs, 0, 1)   shared, H1
 *     h2 = clip(b2[p] + h1 W2[p], 0, 1)                               32
 *     y  = b3[p] + h2 W3[p]                                            men
 * where p is the phase, looked up from the number of pieces on the board.
 * The score is 100 y (centi-men, for the side to move).  The first layer's
 * width H1 is 64, 128 or 256 (the file says which).
 *
 * Every number is an integer in int16 range, fixed point with 8 fraction bits
 * (256 = 1.0), one to an int32 data word (the caller keeps them alive):
 *   data[0]      CKR_PIECENET_VERSION (3)
 *   data[1]      number of phases P (1..CKR_PIECENET_MAX_PHASES)
 *   data[2]      how many numbers follow the header (ckr_piecenet_size(P, H1))
 *   data[3]      the first layer's width H1 (64, 128 or 256)
 *   data[4..28]  the phase (0..P-1) of a position with 0..24 pieces
 *   then W1[120][H1] (input-major), b1[H1], and for each phase
 *   W2[H1][32] (first-layer node-major), b2[32], W3[32], b3.
 * Version 4 (CKR_PIECENET_VERSION_PATTERNS) adds region patterns to the first
 * layer: the board's nine overlapping 4x4 regions (rows and columns 0-3, 2-5,
 * 4-7; eight dark squares each), each read from the side to move's point of
 * view as a base-3 number (the i-th of its relative squares, ascending, is
 * the i-th digit: 0 empty, 1 a piece of the side to move, man or king, 2 the
 * opponent's), pick one row each of a table P[9 x 6561][H1] stored after b1
 * and added to the first layer's sums (engine/learners/piece_net.py trains it).
 * Version 1 had 32 first-layer nodes and version 2 always 64, neither with a
 * width word (their phase table began at data[3]); engine/piece_net_layout
 * .upgrade turns either into this layout at width 64 (version 1's 32 added
 * nodes are zero, so it scores the same).
 * In integers: h1 = clamp(acc, 0, 256); h2 = clamp((h1 . W2 >> 8) + b2, 0, 256);
 * score = (100 (h2 . W3 + 256 b3) + 32768) >> 16 (shifts round down).
 */

#define CKR_EVAL_PIECENET 10
#define CKR_PIECENET_VERSION 3
#define CKR_PIECENET_VERSION_PATTERNS 4 /* version 3 with the region patterns' table after b1 */
#define CKR_PIECENET_PATTERN_WINDOWS 9
#define CKR_PIECENET_PATTERN_ROWS 59049 /* 9 regions x 3^8 patterns */
#define CKR_PIECENET_INPUTS 120
#define CKR_PIECENET_H1 64      /* the usual first-layer width (and versions 1-2's after upgrade) */
#define CKR_PIECENET_H1_MAX 256 /* widths: 64, 128 or 256 */
#define CKR_PIECENET_H2 32
#define CKR_PIECENET_HEADER 29
#define CKR_PIECENET_MAX_PHASES 8
#define CKR_PIECENET_ONE 256

/* How many numbers follow the header for ``phases`` phases and a first layer
 * ``width`` wide (0 when either is out of range). */
int ckr_piecenet_size(int phases, int width);

/* 0 when data[0..ndata-1] is a network the evaluator can read, else a
 * negative code: -1 short or wrong version, -2 a phase count out of range,
 * -3 the wrong number of numbers, -4 a phase table entry out of range,
 * -5 a number outside int16, -6 a first-layer width other than 64, 128, 256. */
int ckr_piecenet_check(const int32_t *data, int64_t ndata);

/* The score (centi-men, side to move) of a checked network; not clamped. */
int ckr_piecenet_value(const ckr_eval *eval, const ckr_pos *pos);

/* Scores of n positions given as square sets (black men, black kings, white
 * men, white kings, side to move; 5 words each) into out.  Returns -1, or the
 * index of the first invalid position. */
int64_t ckr_piecenet_batch(const ckr_eval *eval, const uint32_t *sets, int64_t n, int32_t *out);

/* The same through the search's packed path (piece_net_fast.c), to check that
 * both give the same integers: -1, the index of the first invalid position,
 * or -2 when the network (or this build) cannot be packed. */
int64_t ckr_piecenet_batch_packed(const ckr_eval *eval, const uint32_t *sets, int64_t n, int32_t *out);

/* 1 when this build has the packed path (it needs AVX2), else 0. */
int ckr_piecenet_packed_build(void);

/* The accumulator's check (piece_net_acc.c): random walks of `plies` plies
 * from the position `start` (5 words as above), up to `branch` moves tried
 * at each node, depth first as a search goes, every node scored through the
 * accumulator (the first layer updated from the nearest board kept) and by
 * the reference; a quarter of the inner nodes are skipped so that updates
 * also span several moves.  counts[0..3] get: nodes compared, mismatches,
 * moves taking two pieces or more, crowning moves.  Returns 0, -1 for an
 * invalid start, or -2 when the network (or this build) cannot be packed. */
int ckr_piecenet_acc_check(const ckr_eval *eval, const uint32_t *start, int plies, int branch,
                           uint64_t seed, int64_t *counts);

/* How the search scores a piece network's leaves (for checks and timing;
 * every path gives the same integers): 0 the accumulator (the default),
 * 1 the packed first layer summed from scratch, 2 the reference evaluator.
 * Returns -1 for another mode, else the mode now in force (the path the
 * engine's network can take: without a packed form it is always 2). */
int ckr_engine_set_piecenet_path(ckr_engine *engine, int mode);
