/*
 * ckr_api.h -- the public C API of the samuel checkers core.
 *
 * This file is read verbatim by cffi (csrc/build_ffi.py), so it holds only
 * typedefs, structs, integer #defines and prototypes: no #include, no #ifdef,
 * no function-like macros.  C files include "ckr.h", which wraps this one.
 *
 * Board layout (Samuel 1959, Appendix A, Fig. A-1)
 * ------------------------------------------------
 * A position is a set of 64-bit words.  Square s (1..32, standard numbering,
 * Black's men start on 1-12) lives at bit  b = (s-1) + (s-1)/8 .  Bits 8, 17
 * and 26 are "ghost" squares that never hold a piece, and bits 35..63 are
 * unused.  With the ghosts in place every diagonal step is a shift by 4 or 5:
 *
 *        (Black's side)                    bit indices
 *      .  1  .  2  .  3  .  4           .  0  .  1  .  2  .  3
 *      5  .  6  .  7  .  8  .           4  .  5  .  6  .  7  .
 *      .  9  . 10  . 11  . 12           .  9  . 10  . 11  . 12      (8 ghost)
 *     13  . 14  . 15  . 16  .          13  . 14  . 15  . 16  .
 *      . 17  . 18  . 19  . 20           . 18  . 19  . 20  . 21      (17 ghost)
 *     21  . 22  . 23  . 24  .          22  . 23  . 24  . 25  .
 *      . 25  . 26  . 27  . 28           . 27  . 28  . 29  . 30      (26 ghost)
 *     29  . 30  . 31  . 32  .          31  . 32  . 33  . 34  .
 *        (White's side)
 *
 * "Forward" (towards White's side, Black's direction of travel) is +4/+5;
 * "backward" is -4/-5.  A step from a real square lands on the diagonal
 * neighbour, on a ghost bit, or outside bits 0..34; masking with
 * CKR_BB_BOARD therefore removes every step that would leave the board.
 *
 * Colours: CKR_BLACK = 0 moves first and forward; CKR_WHITE = 1.
 */

typedef uint64_t ckr_bb;

#define CKR_BLACK 0
#define CKR_WHITE 1

#define CKR_BB_BOARD 0x7FBFDFEFF
#define CKR_BB_CROWN_BLACK 0x780000000
#define CKR_BB_CROWN_WHITE 0xF

#define CKR_MAX_MOVES 256
#define CKR_MAX_CAPS 12
#define CKR_MAX_PLY 128
#define CKR_MAX_PV 64

/* Score scale: 100 = one man.  Wins and losses are CKR_WIN - plies so that
 * the search prefers the quickest win and the slowest loss ("direction
 * sense").  Anything beyond CKR_WIN_BOUND in magnitude is a proven result. */
#define CKR_WIN 30000
#define CKR_WIN_BOUND 29000
#define CKR_INF 32000

/*
 * A move, 32 bytes.
 *   caps   opponent pieces removed (bits)
 *   kxor   XOR applied to the kings word: from^to when a king moves, +to
 *          when a man is crowned, plus every captured king
 *   from   bit index of the moving piece
 *   to     bit index where it stops (equal to from after a king's round trip)
 *   ncaps  number of jumps; path[0..ncaps-1] are the landing bit indices
 *   flags  CKR_MOVE_KING: the mover is a king; CKR_MOVE_CROWN: a man crowns
 * Applying and undoing a move are the same XORs, so unmake needs no saved state
 * apart from the hash.
 */
#define CKR_MOVE_KING 1
#define CKR_MOVE_CROWN 2

typedef struct ckr_move {
    ckr_bb caps;
    ckr_bb kxor;
    uint8_t from;
    uint8_t to;
    uint8_t ncaps;
    uint8_t flags;
    uint8_t path[12];
} ckr_move;

/* pieces[CKR_BLACK], pieces[CKR_WHITE]: all pieces of that colour; kings: the
 * kings of both colours; hash: Zobrist key including the side to move. */
typedef struct ckr_pos {
    ckr_bb pieces[2];
    ckr_bb kings;
    uint64_t hash;
    int side;
    int reserved;
} ckr_pos;

/* ---- position ----
 * ckr_init builds the core's tables (Zobrist keys, evaluation masks) once;
 * call it before anything else (ckr_pos_set and ckr_engine_new call it too).
 * It is safe to call from several threads at once. */
void ckr_init(void);
int ckr_square_to_bit(int square);
int ckr_bit_to_square(int bit);
/* Square sets use bit s-1 for square s.  Returns 0, or -1 when sets overlap. */
int ckr_pos_set(ckr_pos *pos, uint32_t black_men, uint32_t black_kings,
                uint32_t white_men, uint32_t white_kings, int side);
void ckr_pos_get(const ckr_pos *pos, uint32_t *out4);
uint64_t ckr_pos_hash(const ckr_pos *pos);

/* ---- move generation ---- */
int ckr_gen_moves(const ckr_pos *pos, ckr_move *out);
int ckr_gen_captures(const ckr_pos *pos, ckr_move *out);
int ckr_has_capture(const ckr_pos *pos);
int ckr_count_moves(const ckr_pos *pos);
void ckr_make(ckr_pos *pos, const ckr_move *move);
void ckr_unmake(ckr_pos *pos, const ckr_move *move);
/* How many of n moves are legal one after another from pos.  Move k is given by its path of
 * squares (1..32, the start then every landing square): lens[k] of them, all moves' paths one
 * after another in squares.  A path names one move exactly (each jump's captured piece lies
 * between its two squares).  For checking a reported line without building every position. */
int ckr_legal_prefix(const ckr_pos *pos, const uint8_t *squares, const uint8_t *lens, int n);

/* ---- perft ---- */
uint64_t ckr_perft(const ckr_pos *pos, int depth, int bulk);

/* ---- evaluation ----
 * kind CKR_EVAL_MATERIAL: Samuel's piece advantage (kings 3 : men 2) with
 *     the trade-when-ahead term.
 * kind CKR_EVAL_DEFAULT: the hand-tuned modern evaluator.
 * kind CKR_EVAL_LINEAR: sum of weights[i] * feature_i / CKR_WEIGHT_ONE over
 *     the features of ckr_features() (weights from Python, e.g. a learner).
 * kind CKR_EVAL_TABLE: material plus piece-square tables man_table/king_table,
 *     indexed by square-1 from the mover's own point of view (square 1 is the
 *     mover's back rank), in score units.
 * Scores are from the side to move's point of view. */
#define CKR_EVAL_MATERIAL 0
#define CKR_EVAL_DEFAULT 1
#define CKR_EVAL_LINEAR 2
#define CKR_EVAL_TABLE 3
/* The learners' evaluators.  They may read the position before the last move
 * (Samuel's terms are differences from it) and the game ply (Griffith's move
 * phases); the table of kinds (csrc/eval_kind.h, ckr_eval_kind_flags) says
 * which of them each reads, and the search passes it through ckr_evaluate_ctx.
 *   CKR_EVAL_SAMUEL     Samuel's polynomial: weights[i] is the coefficient of
 *                       Samuel term i (csrc/ckr_terms.h); 0 leaves it out.
 *   CKR_EVAL_SIGNATURE  Samuel's 1967 signature-table hierarchy (data blob).
 *   CKR_EVAL_TABULATED  the refinement paper's 8 tables of 5 parameters.
 *   CKR_EVAL_PHASE      Griffith's move-phase tables.
 *   CKR_EVAL_HEURISTIC  Griffith's four-rule heuristic evaluator.
 * The table kinds keep their numbers in data[0..ndata-1], laid out as the
 * owning module documents (signature_tables.c, tabulated.c, phase_tables.c,
 * heuristic_eval.c); the caller keeps that buffer alive while the evaluator
 * is in use. */
#define CKR_EVAL_SAMUEL 4
#define CKR_EVAL_SIGNATURE 5
#define CKR_EVAL_TABULATED 6
#define CKR_EVAL_PHASE 7
#define CKR_EVAL_HEURISTIC 8
#define CKR_MAX_FEATURES 64
#define CKR_WEIGHT_ONE 256

typedef struct ckr_eval {
    int kind;
    int nweights;
    int32_t weights[64];
    int32_t man_table[32];
    int32_t king_table[32];
    const int32_t *data;
    int64_t ndata;
} ckr_eval;

int ckr_num_features(void);
const char *ckr_feature_name(int index);
int ckr_features(const ckr_pos *pos, int32_t *out);
/* The default evaluator's weights (in 1/CKR_WEIGHT_ONE of a centi-man), one per
 * feature: CKR_EVAL_LINEAR with these equals CKR_EVAL_DEFAULT.  Returns the count. */
int ckr_default_weights(int32_t *out);
/* Features of n positions given as square sets (black men, black kings, white
 * men, white kings, side to move; 5 words each) into out (n * features).
 * Returns -1, or the index of the first invalid position. */
int64_t ckr_features_batch(const uint32_t *sets, int64_t n, int32_t *out);
int ckr_evaluate(const ckr_eval *eval, const ckr_pos *pos);
/* parent: the position before the last move, or NULL when unknown (the
 * evaluator then falls back as its module documents); game_ply: plies played
 * in the game before pos (0 at the start). */
int ckr_evaluate_ctx(const ckr_eval *eval, const ckr_pos *pos, const ckr_pos *parent, int game_ply);
/* What an evaluator kind reads, from the one table of kinds (csrc/eval_kind.h),
 * as these bits, or -1 for an unknown kind:
 *   CKR_EVAL_NEEDS_PARENT  the position before the last move
 *   CKR_EVAL_NEEDS_PLY     the game ply
 *   CKR_EVAL_PACKED        the search scores it through a packed form, cached
 *   CKR_EVAL_ONE_SIDED     not antisymmetric: scored for a given side (Fogel's search asks for the root's) */
#define CKR_EVAL_NEEDS_PARENT 1
#define CKR_EVAL_NEEDS_PLY 2
#define CKR_EVAL_PACKED 4
#define CKR_EVAL_ONE_SIDED 8
int ckr_eval_kind_flags(int kind);

/* ---- search ----
 * Modes: CKR_MODE_PVS, the modern engine (iterative deepening PVS);
 * CKR_MODE_SAMUEL, Samuel's 1959 ply rules (depth = minimum ply, default 3,
 * break points in samuel_breaks[4] = {4, 5, 11, 20} unless set);
 * CKR_MODE_SHANNON_A, Shannon's type A: full-width minimax to a fixed depth;
 * CKR_MODE_FOGEL, Chellapilla and Fogel's (1999): fail-soft alpha-beta to the
 * depth, two plies more for every two forced moves (one legal move) along the
 * branch, and two more while the leaf has a jump pending; leaves are scored
 * from the root side's point of view (their network is not antisymmetric).
 * CKR_MODE_SHANNON_B, Shannon's type B: full width to the depth (the base),
 * then every capture but only the few most plausible forceful (offers,
 * crownings, attacks) and quiet moves, fewer each ply, to ply 20; a static
 * score only at stable positions (nothing en prise); docs/shannon-b.md.
 * Time limits are in milliseconds; 0 or negative means "none".  soft_ms is
 * the budget after which no new iteration starts; hard_ms aborts the search. */
#define CKR_MODE_PVS 0
#define CKR_MODE_SAMUEL 1
#define CKR_MODE_SHANNON_A 2
#define CKR_MODE_FOGEL 3
#define CKR_MODE_SHANNON_B 4

/* Root driver of CKR_MODE_PVS: aspiration-window PVS (the default, and the
 * faster on the bench) or MTD(f), a series of zero-window searches. */
#define CKR_DRIVER_PVS 0
#define CKR_DRIVER_MTDF 1

typedef struct ckr_limits {
    int mode;
    int depth;
    int64_t nodes;
    int64_t soft_ms;
    int64_t hard_ms;
    int samuel_breaks[4];
    int driver;
    int64_t info_ms;  /* least time between two reports to the callback; 0: every iteration */
    int game_ply;     /* plies played in the game before the root (for move-phase evaluators) */
    int has_parent;   /* 1: parent holds the position before the root's last move */
    ckr_pos parent;
    int contempt;     /* centi-men a draw (repetition, 40-move rule, database) costs the root's side */
    int fogel_draws;  /* CKR_MODE_FOGEL: 1 scores a repetition or the 40-move rule as a draw (0: blind, as theirs) */
    /* A clocked search (CKR_MODE_PVS): no new iteration after optimum_ms times a
     * factor that grows when the best root move changes or the score falls and
     * shrinks when the best move is stable, never past maximum_ms; nor one whose
     * time, estimated from the last iterations' growth, would overrun maximum_ms.
     * 0: unused (soft_ms/hard_ms alone rule, as at a fixed time a move). */
    int64_t optimum_ms;
    int64_t maximum_ms;
} ckr_limits;

/* How the modern search (CKR_MODE_PVS) spent its re-searches and its table
 * stores, over the whole search (all 0 in the other modes); samuel bench
 * prints them (docs/search-depth.md). */
typedef struct ckr_pvs_stats {
    int64_t zw_searches;    /* zero-window searches of the moves after the first */
    int64_t zw_researches;  /* of them: failed high inside the window, searched again with it */
    int64_t lmr_searches;   /* reduced searches (a subset of zw_searches) */
    int64_t lmr_researches; /* of them: failed high, searched again at full depth */
    int64_t asp_searches;   /* root searches inside an aspiration window */
    int64_t asp_fails;      /* of them: failed low or high, searched again wider */
    int64_t tt_stores;      /* table stores */
    int64_t tt_evictions;   /* of them: replaced another position's entry */
    int64_t tt_evict_deep;  /* of those: an entry of this search as deep as the new one or deeper */
    int64_t pruned;         /* moves skipped and nodes cut by the candidate prunings (0 by default) */
    int64_t qs_threats;     /* quiescence nodes looked one quiet ply further for a threat */
} ckr_pvs_stats;

typedef struct ckr_info {
    int depth;
    int seldepth;
    int score;
    int bound;
    int64_t nodes;
    int64_t nps;
    int64_t time_ms;
    int64_t tt_hits;
    /* Search statistics of the modern search (CKR_MODE_PVS; 0 in the other modes):
     * table probes, beta cutoffs, and the cutoffs made by the first move tried
     * (their share measures move ordering). */
    int64_t tt_probes;
    int64_t cutoffs;
    int64_t first_cutoffs;
    int pvlen;
    ckr_move pv[64];
    /* Rote memory (ckr_engine_set_rote): leaves scored from the memory, and
     * the effective ply of the PV's stored position (its stored ply plus its
     * distance from the root; 0 when the PV does not end in the memory). */
    int64_t rote_hits;
    int rote_depth;
    /* Endgame database (ckr_engine_set_egdb): positions scored from it, and
     * the root's value in it (CKR_EGDB_WIN/DRAW/LOSS, -1 when not held). */
    int64_t egdb_hits;
    int egdb_root;
    ckr_pvs_stats pvs; /* re-search and table figures of the modern search (above) */
} ckr_info;

typedef void (*ckr_info_fn)(void *userdata, const ckr_info *info);

typedef struct ckr_engine ckr_engine;

ckr_engine *ckr_engine_new(int hash_mb);
void ckr_engine_free(ckr_engine *engine);
int ckr_engine_set_hash(ckr_engine *engine, int hash_mb);
void ckr_engine_clear(ckr_engine *engine);
void ckr_engine_prepare(ckr_engine *engine); /* fault the table in before the clock starts */
void ckr_engine_set_eval(ckr_engine *engine, const ckr_eval *eval);
void ckr_engine_set_callback(ckr_engine *engine, ckr_info_fn fn, void *userdata);
/* Stopping.  Every search runs under a ticket (1, 2, ...).  ckr_engine_arm
 * hands out the ticket of the engine's next search (the same one again until
 * that search begins); ckr_search takes the armed ticket, or arms one itself.
 * ckr_engine_stop stops the running search and the armed one, even when it
 * arrives before ckr_search has begun: that search then returns at once with
 * the first legal move.  A stop sent while nothing is running or armed is
 * stale: it never ends a later search.  ckr_engine_stop_search stops only the
 * search with that ticket (and older ones), so a late stop cannot end a
 * search armed after it.  Stops may come from any thread; one host arms and
 * runs the searches of an engine, one at a time. */
uint64_t ckr_engine_arm(ckr_engine *engine);
void ckr_engine_stop(ckr_engine *engine);
void ckr_engine_stop_search(ckr_engine *engine, uint64_t ticket);
/* history: hashes of earlier positions of the game, oldest first, back to
 * the last irreversible move; used for repetition detection.
 * Returns the number of legal moves at the root (0: game over, no move). */
int ckr_search(ckr_engine *engine, const ckr_pos *pos, const uint64_t *history,
               int nhistory, const ckr_limits *limits, ckr_info *result);
/* Training labels: n positions as square sets (black men, black kings, white
 * men, white kings, side to move; 5 words each), each searched by CKR_MODE_PVS
 * to depth with no game history; scores for the side to move, clipped to
 * +-2000, into out.  The engine's table is cleared first and carries over
 * between positions.  Returns -1, or the index of the first invalid position. */
int64_t ckr_search_scores(ckr_engine *engine, const uint32_t *sets, int64_t n, int depth, int32_t *out);
