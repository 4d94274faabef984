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

enum {
    F_MEN, F_KINGS, F_BACK_GUARD, F_CENTER_MEN, F_CENTER_KINGS, F_ADVANCE_END,
    F_MOBILITY, F_RUNAWAY, F_KING_EDGE, F_TRADE, F_KING_CHASE, F_DOUBLE_CORNER,
    F_TEMPO, F_COUNT
};

static const char *feature_names[F_COUNT] = {
    "men", "kings", "back_guard", "center_men", "center_kings", "advance_end",
    "mobility", "runaway", "king_edge", "trade", "king_chase", "double_corner", "tempo",
};

/* Default weights, in 1/CKR_WEIGHT_ONE of a centi-man. */
static const int32_t default_weights[F_COUNT] = {
    100 * 256, 140 * 256, 8 * 256, 4 * 256, 4 * 256, 3 * 256,
    2 * 256, 10 * 256, -6 * 256, 1 * 256, 4 * 256, 6 * 256, 0,
};

static int tables_ready = 0;
static int rel_sq[2][64];     /* [colour][bit] -> relative square 1..32, 0 for ghosts */
static int bit_row[64], bit_col[64];
static ckr_bb cone[2][64];    /* squares a man on bit must pass or could be stopped from */

/* prototypes */
static void init_tables(void);
static int mobility(const ckr_pos *p, int colour);

static void init_tables(void)
{
    if (tables_ready)
        return;
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
    tables_ready = 1;
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

/* Terms for one colour, from its own point of view. */
static void colour_terms(const ckr_pos *p, int c, int total, int32_t *t)
{
    ckr_bb own = p->pieces[c], opp = p->pieces[c ^ 1];
    ckr_bb men = own & ~p->kings, kings = own & p->kings;
    int men_n = bb_popcount(men), kings_n = bb_popcount(kings);
    t[F_MEN] = men_n;
    t[F_KINGS] = kings_n;
    int back = 0, cmen = 0, ckings = 0, adv = 0, run = 0, edge = 0, dcorner = 0, tempo = 0;
    int opp_has_men = (opp & ~p->kings) != 0;
    ckr_bb b = men;
    while (b) {
        int bit = bb_lsb(b);
        b &= b - 1;
        int rs = rel_sq[c][bit], row = (rs - 1) / 4;
        /* Squares 1 and 3 form the bridge that stops the opponent crowning. */
        if (opp_has_men && row == 0)
            back += (rs == 1 || rs == 3) ? 2 : 1;
        if (rs == 14 || rs == 15 || rs == 18 || rs == 19)
            cmen += 2;
        else if (rs == 10 || rs == 11 || rs == 22 || rs == 23)
            cmen += 1;
        adv += row;
        tempo += row;
        if (row >= 3 && !(cone[c][bit] & opp))
            run += row; /* nearer the crown is worth more */
    }
    b = kings;
    while (b) {
        int bit = bb_lsb(b);
        b &= b - 1;
        int rs = rel_sq[c][bit];
        if (rs == 14 || rs == 15 || rs == 18 || rs == 19)
            ckings += 2;
        else if (rs == 10 || rs == 11 || rs == 22 || rs == 23)
            ckings += 1;
        int col = bit_col[bit], row = bit_row[bit];
        if (col == 0 || col == 7 || row == 0 || row == 7)
            edge++;
        /* Double corners (squares 1/5 and 28/32) are where a weaker side holds out. */
        int s = ckr_bit_to_square(bit);
        if (s == 1 || s == 5 || s == 28 || s == 32)
            dcorner++;
    }
    t[F_BACK_GUARD] = back;
    t[F_CENTER_MEN] = cmen;
    t[F_CENTER_KINGS] = ckings;
    t[F_ADVANCE_END] = adv * (24 - total) / 12;
    t[F_MOBILITY] = mobility(p, c);
    t[F_RUNAWAY] = run;
    t[F_KING_EDGE] = edge;
    t[F_DOUBLE_CORNER] = dcorner;
    t[F_TEMPO] = tempo;
}

int ckr_num_features(void) { return F_COUNT; }

const char *ckr_feature_name(int index)
{
    return index >= 0 && index < F_COUNT ? feature_names[index] : "";
}

int ckr_features(const ckr_pos *p, int32_t *out)
{
    init_tables();
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
    init_tables();
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

int ckr_evaluate(const ckr_eval *e, const ckr_pos *p)
{
    int s;
    switch (e ? e->kind : CKR_EVAL_DEFAULT) {
    case CKR_EVAL_MATERIAL: s = material_eval(p); break;
    case CKR_EVAL_LINEAR: s = weighted(p, e->weights, e->nweights); break;
    case CKR_EVAL_TABLE: s = table_eval(e, p); break;
    default: s = weighted(p, default_weights, F_COUNT); break;
    }
    if (s > CKR_WIN_BOUND - 1)
        s = CKR_WIN_BOUND - 1;
    if (s < -CKR_WIN_BOUND + 1)
        s = -CKR_WIN_BOUND + 1;
    return s;
}
