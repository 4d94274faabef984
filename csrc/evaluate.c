/* evaluate.c -- static evaluation.
 *
 * Every evaluator reads the same feature terms (ckr_features), each a
 * difference "side to move minus opponent", so a learner's weights, the
 * default evaluator and the tests all agree on what a term means.  Terms are
 * computed from each colour's own point of view: a colour's "relative square"
 * is s for Black and 33-s for White (a 180-degree turn, which is the bit
 * reversal of the 35-bit layout), so relative square 1..4 is its back rank. */
#include <stdlib.h>
#include "bitboard.h"
#include "eval_kind.h"

enum {
    F_MEN, F_KINGS, F_BACK_GUARD, F_CENTER_MEN, F_CENTER_KINGS, F_ADVANCE_END,
    F_MOBILITY, F_RUNAWAY, F_KING_EDGE, F_TRADE, F_KING_CHASE, F_DOUBLE_CORNER,
    F_TEMPO, F_COUNT
};

static const char *feature_names[F_COUNT] = {
    "men", "kings", "back_guard", "center_men", "center_kings", "advance_end",
    "mobility", "runaway", "king_edge", "trade", "king_chase", "double_corner", "tempo",
};

/* Default weights, in 1/CKR_WEIGHT_ONE of a centi-man: fitted to OCA's game
 * results by Texel's method (samuel learn tune, docs/tuning.md; +126 Elo at
 * 0.1 s a move over the hand-set weights, which stay as the evaluator
 * default-2026-11). */
static const int32_t default_weights[F_COUNT] = {
    26093, 34989, 3879, 1033, 5158, 4279,
    674, 2035, -4498, 888, 1653, 1150, -5645,
};

/* Built once by ckr_evaluate_init (from ckr_init), read-only afterwards. */
static int rel_sq[2][64];     /* [colour][bit] -> relative square 1..32, 0 for ghosts */
static int bit_row[64], bit_col[64];
static ckr_bb cone[2][64];    /* squares a man on bit must pass or could be stopped from */

/* prototypes */
static void init_masks(void);
static int mobility(const ckr_pos *p, int colour);

void ckr_evaluate_init(void)
{
    for (int b = 0; b < 64; b++) {
        int s = b <= 34 ? ckr_bit_to_square(b) : -1;
        rel_sq[0][b] = s > 0 ? s : 0;
        rel_sq[1][b] = s > 0 ? 33 - s : 0;
        if (s > 0) {
            bit_row[b] = (s - 1) / 4;
            bit_col[b] = 2 * ((s - 1) % 4) + (bit_row[b] % 2 == 0 ? 1 : 0);
        }
    }
    for (int b = 0; b <= 34; b++) {
        if (rel_sq[0][b] == 0)
            continue;
        for (int c = 0; c < 2; c++) {
            ckr_bb m = 0;
            for (int t = 0; t <= 34; t++) {
                if (rel_sq[0][t] == 0)
                    continue;
                int dr = c == CKR_BLACK ? bit_row[t] - bit_row[b] : bit_row[b] - bit_row[t];
                int dc = abs(bit_col[t] - bit_col[b]);
                /* An opponent inside this widened cone can reach the man's path in time. */
                if (dr > 0 && dc <= dr + 1)
                    m |= bb_bit(t);
            }
            cone[c][b] = m;
        }
    }
    init_masks();
}

static int mobility(const ckr_pos *p, int colour)
{
    ckr_bb us = p->pieces[colour], empty = bb_empty(p);
    ckr_bb f = colour == CKR_BLACK ? us : us & p->kings;
    ckr_bb b = colour == CKR_WHITE ? us : us & p->kings;
    return bb_popcount((f << 4) & empty) + bb_popcount((f << 5) & empty) +
           bb_popcount((b >> 4) & empty) + bb_popcount((b >> 5) & empty);
}

static inline int king_distance(int a, int b)
{
    int dr = abs(bit_row[a] - bit_row[b]), dc = abs(bit_col[a] - bit_col[b]);
    return dr > dc ? dr : dc;
}

/* Square masks (bits) built from square lists; the centre, edge and corner
 * sets are symmetric under the half turn, so one mask serves both colours. */
static ckr_bb m_center_inner, m_center_outer, m_edge, m_dcorner;
static ckr_bb m_row[2][8];      /* [colour][relative row] */
static ckr_bb m_bridge[2];      /* relative squares 1 and 3 */

static ckr_bb mask_of(const int *squares, int n)
{
    ckr_bb m = 0;
    for (int i = 0; i < n; i++)
        m |= bb_bit(ckr_square_to_bit(squares[i]));
    return m;
}

static void init_masks(void)
{
    static const int inner[] = {14, 15, 18, 19}, outer[] = {10, 11, 22, 23};
    static const int edge[] = {1, 2, 3, 4, 5, 12, 13, 20, 21, 28, 29, 30, 31, 32};
    static const int dcorner[] = {1, 5, 28, 32};
    m_center_inner = mask_of(inner, 4);
    m_center_outer = mask_of(outer, 4);
    m_edge = mask_of(edge, 14);
    m_dcorner = mask_of(dcorner, 4);
    for (int b = 0; b <= 34; b++) {
        if (!rel_sq[0][b])
            continue;
        for (int c = 0; c < 2; c++) {
            int rs = rel_sq[c][b];
            m_row[c][(rs - 1) / 4] |= bb_bit(b);
            if (rs == 1 || rs == 3)
                m_bridge[c] |= bb_bit(b);
        }
    }
}

/* Terms for one colour, from its own point of view. */
static void colour_terms(const ckr_pos *p, int c, int total, int32_t *t)
{
    ckr_bb own = p->pieces[c], opp = p->pieces[c ^ 1];
    ckr_bb men = own & ~p->kings, kings = own & p->kings;
    t[F_MEN] = bb_popcount(men);
    t[F_KINGS] = bb_popcount(kings);
    /* Squares 1 and 3 form the bridge that stops the opponent crowning. */
    t[F_BACK_GUARD] = (opp & ~p->kings) ? bb_popcount(men & m_row[c][0]) + bb_popcount(men & m_bridge[c]) : 0;
    t[F_CENTER_MEN] = 2 * bb_popcount(men & m_center_inner) + bb_popcount(men & m_center_outer);
    t[F_CENTER_KINGS] = 2 * bb_popcount(kings & m_center_inner) + bb_popcount(kings & m_center_outer);
    int rows = 0;
    for (int r = 1; r < 7; r++)
        rows += r * bb_popcount(men & m_row[c][r]);
    t[F_ADVANCE_END] = rows * (24 - total) / 12;
    t[F_TEMPO] = rows;
    t[F_MOBILITY] = mobility(p, c);
    int run = 0;
    ckr_bb adv = men & (m_row[c][3] | m_row[c][4] | m_row[c][5] | m_row[c][6]);
    while (adv) {
        int bit = bb_lsb(adv);
        adv &= adv - 1;
        if (!(cone[c][bit] & opp))
            run += (rel_sq[c][bit] - 1) / 4; /* nearer the crown is worth more */
    }
    t[F_RUNAWAY] = run;
    t[F_KING_EDGE] = bb_popcount(kings & m_edge);
    /* Double corners (squares 1/5 and 28/32) are where a weaker side holds out. */
    t[F_DOUBLE_CORNER] = bb_popcount(kings & m_dcorner);
}

int ckr_num_features(void) { return F_COUNT; }

const char *ckr_feature_name(int index)
{
    return index >= 0 && index < F_COUNT ? feature_names[index] : "";
}

int ckr_features(const ckr_pos *p, int32_t *out)
{
    int us = p->side, them = us ^ 1;
    int total = bb_popcount(p->pieces[0] | p->pieces[1]);
    int32_t a[F_COUNT] = {0}, b[F_COUNT] = {0};
    colour_terms(p, us, total, a);
    colour_terms(p, them, total, b);
    for (int i = 0; i < F_COUNT; i++)
        out[i] = a[i] - b[i];
    int mat_us = 100 * a[F_MEN] + 140 * a[F_KINGS], mat_them = 100 * b[F_MEN] + 140 * b[F_KINGS];
    /* Trading when ahead: the same lead is worth more with fewer pieces left. */
    out[F_TRADE] = mat_us + mat_them ? 200 * (mat_us - mat_them) / (mat_us + mat_them) : 0;
    /* The stronger side's kings close in on the weaker side's pieces. */
    int chase = 0;
    if (mat_us != mat_them && total <= 10) {
        int strong = mat_us > mat_them ? us : them;
        ckr_bb hunters = p->pieces[strong] & p->kings, prey = p->pieces[strong ^ 1];
        while (hunters && prey) {
            int h = bb_lsb(hunters);
            hunters &= hunters - 1;
            int best = 8;
            for (ckr_bb q = prey; q; q &= q - 1) {
                int d = king_distance(h, bb_lsb(q));
                if (d < best)
                    best = d;
            }
            chase += 7 - best;
        }
        if (strong != us)
            chase = -chase;
    }
    out[F_KING_CHASE] = chase;
    /* Only the weaker side's double-corner kings matter: they draw. */
    if (mat_us >= mat_them)
        out[F_DOUBLE_CORNER] = -b[F_DOUBLE_CORNER] * (mat_us > mat_them);
    else
        out[F_DOUBLE_CORNER] = a[F_DOUBLE_CORNER];
    return F_COUNT;
}

int ckr_default_weights(int32_t *out)
{
    for (int i = 0; i < F_COUNT; i++)
        out[i] = default_weights[i];
    return F_COUNT;
}

int64_t ckr_features_batch(const uint32_t *sets, int64_t n, int32_t *out)
{
    for (int64_t i = 0; i < n; i++) {
        const uint32_t *s = sets + 5 * i;
        ckr_pos pos;
        if (s[4] > 1 || ckr_pos_set(&pos, s[0], s[1], s[2], s[3], (int)s[4]) != 0)
            return i;
        ckr_features(&pos, out + (int64_t)F_COUNT * i);
    }
    return -1;
}

static int material_eval(const ckr_pos *p)
{
    int us = p->side, them = us ^ 1;
    int mu = 2 * bb_popcount(p->pieces[us] & ~p->kings) + 3 * bb_popcount(p->pieces[us] & p->kings);
    int mt = 2 * bb_popcount(p->pieces[them] & ~p->kings) + 3 * bb_popcount(p->pieces[them] & p->kings);
    /* Samuel's piece advantage (kings 3 : men 2, 50 points a unit) and his
     * preference for trading down when ahead. */
    int score = 50 * (mu - mt);
    if (mu + mt)
        score += 100 * (mu - mt) / (mu + mt);
    return score;
}

static int weighted(const ckr_pos *p, const int32_t *w, int nw)
{
    int32_t f[F_COUNT];
    ckr_features(p, f);
    int64_t s = 0;
    for (int i = 0; i < F_COUNT && i < nw; i++)
        s += (int64_t)w[i] * f[i];
    return (int)(s / CKR_WEIGHT_ONE);
}

static int table_eval(const ckr_eval *e, const ckr_pos *p)
{
    int score = 0;
    for (int c = 0; c < 2; c++) {
        int sign = c == p->side ? 1 : -1;
        for (ckr_bb b = p->pieces[c]; b; b &= b - 1) {
            int bit = bb_lsb(b), rs = rel_sq[c][bit];
            score += sign * ((p->kings >> bit) & 1 ? e->king_table[rs - 1] : e->man_table[rs - 1]);
        }
    }
    return score;
}

/* ---- the table of evaluator kinds (eval_kind.h) ----
 * Each row's value takes the same four arguments; the kinds that read less
 * ignore the rest. */

static int material_value(const ckr_eval *e, const ckr_pos *p, const ckr_pos *parent, int ply)
{
    return material_eval(p);
}

static int default_value(const ckr_eval *e, const ckr_pos *p, const ckr_pos *parent, int ply)
{
    return weighted(p, default_weights, F_COUNT);
}

static int linear_value(const ckr_eval *e, const ckr_pos *p, const ckr_pos *parent, int ply)
{
    return weighted(p, e->weights, e->nweights);
}

static int table_value(const ckr_eval *e, const ckr_pos *p, const ckr_pos *parent, int ply)
{
    return table_eval(e, p);
}

static int samuel_value(const ckr_eval *e, const ckr_pos *p, const ckr_pos *parent, int ply)
{
    return ckr_samuel_eval(e, p, parent);
}

static int signature_value(const ckr_eval *e, const ckr_pos *p, const ckr_pos *parent, int ply)
{
    return ckr_signature_eval(e, p, parent);
}

static int tabulated_value(const ckr_eval *e, const ckr_pos *p, const ckr_pos *parent, int ply)
{
    return ckr_tabulated_eval(e, p, parent);
}

static int heuristic_value(const ckr_eval *e, const ckr_pos *p, const ckr_pos *parent, int ply)
{
    return ckr_heuristic_eval(e, p, parent);
}

static int network_value(const ckr_eval *e, const ckr_pos *p, const ckr_pos *parent, int ply)
{
    return ckr_network_value(e, p, p->side);
}

static int piecenet_value(const ckr_eval *e, const ckr_pos *p, const ckr_pos *parent, int ply)
{
    return ckr_piecenet_value(e, p);
}

/* Indexed by kind number. */
static const ckr_eval_kind eval_kinds[] = {
    /*                         name         value            value_for          parent ply packed */
    [CKR_EVAL_MATERIAL]  = {"material",  material_value,  NULL,              0, 0, 0},
    [CKR_EVAL_DEFAULT]   = {"default",   default_value,   NULL,              0, 0, 0},
    [CKR_EVAL_LINEAR]    = {"linear",    linear_value,    NULL,              0, 0, 0},
    [CKR_EVAL_TABLE]     = {"table",     table_value,     NULL,              0, 0, 0},
    [CKR_EVAL_SAMUEL]    = {"samuel",    samuel_value,    NULL,              1, 0, 0},
    [CKR_EVAL_SIGNATURE] = {"signature", signature_value, NULL,              1, 0, 0},
    [CKR_EVAL_TABULATED] = {"tabulated", tabulated_value, NULL,              1, 0, 0},
    [CKR_EVAL_PHASE]     = {"phase",     ckr_phase_eval,  NULL,              1, 1, 0},
    [CKR_EVAL_HEURISTIC] = {"heuristic", heuristic_value, NULL,              1, 0, 0},
    [CKR_EVAL_NETWORK]   = {"network",   network_value,   ckr_network_value, 0, 0, 0},
    [CKR_EVAL_PIECENET]  = {"piecenet",  piecenet_value,  NULL,              0, 0, 1},
};
#define N_EVAL_KINDS ((int)(sizeof eval_kinds / sizeof eval_kinds[0]))

const ckr_eval_kind *ckr_eval_kind_of(int kind)
{
    if (kind < 0 || kind >= N_EVAL_KINDS || !eval_kinds[kind].value)
        kind = CKR_EVAL_DEFAULT;
    return &eval_kinds[kind];
}

int ckr_eval_kind_flags(int kind)
{
    if (kind < 0 || kind >= N_EVAL_KINDS || !eval_kinds[kind].value)
        return -1;
    const ckr_eval_kind *k = &eval_kinds[kind];
    return (k->needs_parent ? CKR_EVAL_NEEDS_PARENT : 0) | (k->needs_ply ? CKR_EVAL_NEEDS_PLY : 0) |
           (k->packed ? CKR_EVAL_PACKED : 0) | (k->value_for ? CKR_EVAL_ONE_SIDED : 0);
}

int ckr_evaluate(const ckr_eval *e, const ckr_pos *p) { return ckr_evaluate_ctx(e, p, NULL, 0); }

int ckr_evaluate_ctx(const ckr_eval *e, const ckr_pos *p, const ckr_pos *parent, int game_ply)
{
    return ckr_eval_clamp(ckr_eval_kind_of(e ? e->kind : CKR_EVAL_DEFAULT)->value(e, p, parent, game_ply));
}
