/* samuel_terms.c -- Samuel's 1959 parameters (Appendix C) and his polynomial.
 *
 * "Active" is the side to move, "passive" the other side (the one that just
 * moved).  Square numbers below are the standard 1..32 ones, except where a
 * comment says the paper used its internal (Fig. A-1) numbering.  The
 * definitions, and what was decided where the paper is unclear, are in
 * docs/learners/terms.md; tests/samuel_terms_reference.py is a slow
 * independent version of every parameter.
 *
 * Everything here is a pure function of its arguments (no lazily built
 * tables), so concurrent searches may call it. */
#include <stddef.h>
#include "bitboard.h"

#define SQ(s) ((ckr_bb)1 << ((s) - 1 + ((s) - 1) / 8))

enum {
    P_ADV, P_APEX, P_BACK, P_CENT, P_CNTR, P_CORN, P_CRAMP, P_DENY, P_DIA, P_DIAV,
    P_DYKE, P_EXCH, P_EXPOS, P_FORK, P_GAP, P_GUARD, P_HOLE, P_KCENT, P_MOB, P_MOBIL,
    P_MOVE, P_NODE, P_OREO, P_POLE, P_RECAP, P_THRET, P_COUNT
};

static const char *const param_names[P_COUNT] = {
    "ADV", "APEX", "BACK", "CENT", "CNTR", "CORN", "CRAMP", "DENY", "DIA", "DIAV",
    "DYKE", "EXCH", "EXPOS", "FORK", "GAP", "GUARD", "HOLE", "KCENT", "MOB", "MOBIL",
    "MOVE", "NODE", "OREO", "POLE", "RECAP", "THRET",
};

/* Connectives: term index 1 + P_COUNT + k. */
enum { T_PADV = 0, T_CONN = 1 + P_COUNT };

static const char *const connective_names[12] = {
    "DEMO", "DEMMO", "DDEMO", "DDMM",
    "MODE1", "MODE2", "MODE3", "MODE4",
    "MOC1", "MOC3", "MOC2", "MOC4",
};

/* Centre: the paper prints 11, 12, 15, 16, 20, 21, 24, 25, which are its
 * internal bit numbers (Fig. A-1, 1-based; ghosts 9, 18, 27): in standard
 * numbering the eight central squares below.  Read as standard numbers the
 * set would be lopsided and run onto the edge (21, 25). */
static const ckr_bb M_CENTER = SQ(10) | SQ(11) | SQ(14) | SQ(15) | SQ(18) | SQ(19) | SQ(22) | SQ(23);
static const ckr_bb M_DCORNER = SQ(1) | SQ(5) | SQ(28) | SQ(32);
/* The double-corner diagonals 1-28 and 5-32, and the diagonals parallel to
 * them one and two files away (DIA, DIAV). */
static const ckr_bb M_DIA0 = SQ(1) | SQ(6) | SQ(10) | SQ(15) | SQ(19) | SQ(24) | SQ(28) |
                             SQ(5) | SQ(9) | SQ(14) | SQ(18) | SQ(23) | SQ(27) | SQ(32);
static const ckr_bb M_DIA1 = SQ(2) | SQ(7) | SQ(11) | SQ(16) | SQ(20) |
                             SQ(13) | SQ(17) | SQ(22) | SQ(26) | SQ(31);
static const ckr_bb M_DIA2 = SQ(3) | SQ(8) | SQ(12) | SQ(21) | SQ(25) | SQ(30);
/* Rows 2..3 (squares 9-16) and 4..5 (17-24), 0-based from Black's side. */
static const ckr_bb M_ROWS23 = 0x1FE00;      /* squares 9..16 = bits 9..16 */
static const ckr_bb M_ROWS45 = 0x3FC0000;    /* squares 17..24 = bits 18..25 */
/* Indexed by colour (as the passive side): Black first, then White. */
static const ckr_bb M_BRIDGE[2] = {SQ(1) | SQ(3), SQ(30) | SQ(32)};
static const ckr_bb M_OREO[2] = {SQ(2) | SQ(3) | SQ(7), SQ(26) | SQ(30) | SQ(31)};
/* CRAMP: the paper's White set reads "19 or 20"; 20 is the cramping square
 * itself, and the half-turn image of Black's 9/14 is 24/19. */
static const ckr_bb M_CRAMP_SQ[2] = {SQ(13), SQ(20)};
static const ckr_bb M_CRAMP_NEAR[2] = {SQ(9) | SQ(14), SQ(19) | SQ(24)};
static const ckr_bb M_CRAMP_ACTIVE[2] = {SQ(17) | SQ(21) | SQ(22) | SQ(25), SQ(8) | SQ(11) | SQ(12) | SQ(16)};
/* MOVE: the vertical files starting at the passive side's own back-rank
 * squares (1-4 for Black, as printed; 29-32 for White). */
static const ckr_bb M_SYSTEM[2] = {0x3C1E0F | ((ckr_bb)0xF << 27), (ckr_bb)0xF0 | 0x1E000 | 0x3C00000 | ((ckr_bb)0xF << 31)};
/* Crown rows: where a man of that colour is crowned. */
static const ckr_bb M_CROWN[2] = {CKR_BB_CROWN_BLACK, CKR_BB_CROWN_WHITE};
/* Pairs (b, b+1) of bits in the same row (FORK). */
#define B1(b) ((ckr_bb)1 << (b))
static const ckr_bb M_PAIR_LEFT = CKR_BB_BOARD & ~(B1(3) | B1(7) | B1(12) | B1(16) | B1(21) | B1(25) | B1(30) | B1(34));

/* Parameters needing the per-move loops (bit p set: parameter p wanted). */
#define NEED_ALL 0x3FFFFFF

static inline ckr_bb on_board(ckr_bb b) { return b & CKR_BB_BOARD; }

static inline int bit_ok(int b) { return b >= 0 && b <= 34 && ((CKR_BB_BOARD >> b) & 1); }

/* Pieces of colour c that may step forward (+4/+5) and backward (-4/-5). */
static inline ckr_bb fwd_movers(const ckr_pos *p, int c)
{
    return c == CKR_BLACK ? p->pieces[c] : p->pieces[c] & p->kings;
}

static inline ckr_bb back_movers(const ckr_pos *p, int c)
{
    return c == CKR_WHITE ? p->pieces[c] : p->pieces[c] & p->kings;
}

/* Empty squares colour c could reach with a normal move. */
static inline ckr_bb step_targets(const ckr_pos *p, int c, ckr_bb empty)
{
    ckr_bb f = fwd_movers(p, c), b = back_movers(p, c);
    return ((f << 4) | (f << 5) | (b >> 4) | (b >> 5)) & empty;
}

/* Pieces of colour c that can step onto square-bit t. */
static inline ckr_bb movers_to(const ckr_pos *p, int c, ckr_bb t)
{
    return ((t >> 4) & fwd_movers(p, c)) | ((t >> 5) & fwd_movers(p, c)) |
           ((t << 4) & back_movers(p, c)) | ((t << 5) & back_movers(p, c));
}

static inline int material(const ckr_pos *p, int c)
{
    return 2 * bb_popcount(p->pieces[c] & ~p->kings) + 3 * bb_popcount(p->pieces[c] & p->kings);
}

/* Bits with at least three of the four words set. */
static inline ckr_bb at_least3(ckr_bb a, ckr_bb b, ckr_bb c, ckr_bb d)
{
    return (a & b & c) | (a & b & d) | (a & c & d) | (b & c & d);
}

/* Whether the piece of colour c on bit t (a king or not) could jump a piece
 * of the other colour now. */
static int can_jump_from(const ckr_pos *p, int c, int king, ckr_bb t)
{
    ckr_bb opp = p->pieces[c ^ 1], empty = bb_empty(p);
    if (king || c == CKR_BLACK) {
        if (((t << 4) & opp && (t << 8) & empty) || ((t << 5) & opp && (t << 10) & empty))
            return 1;
    }
    if (king || c == CKR_WHITE) {
        if (((t >> 4) & opp && (t >> 8) & empty) || ((t >> 5) & opp && (t >> 10) & empty))
            return 1;
    }
    return 0;
}

/* The position after colour c's piece on m steps to t (crowning if it gets
 * there), with the other side to move.  The hash is left stale: only the move
 * generator reads the result. */
static void step(const ckr_pos *p, int c, ckr_bb m, ckr_bb t, ckr_pos *r)
{
    *r = *p;
    r->pieces[c] ^= m | t;
    if (p->kings & m)
        r->kings ^= m | t;
    else if (t & M_CROWN[c])
        r->kings |= t;
    r->side = c ^ 1;
}

/* After colour a's move into t (position r, passive to move): whether the
 * passive side can take the piece on t and leave a with no capture to reply. */
static int taken_without_exchange(const ckr_pos *r, ckr_bb t)
{
    if (!ckr_has_capture(r))
        return 0;
    ckr_move moves[CKR_MAX_MOVES];
    int n = ckr_gen_captures(r, moves);
    for (int i = 0; i < n; i++) {
        if (!(moves[i].caps & t))
            continue;
        ckr_pos after = *r;
        ckr_make(&after, &moves[i]);
        if (!ckr_has_capture(&after))
            return 1;
    }
    return 0;
}

/* After colour a's move (position r, passive to move): the passive side must
 * capture, and whichever capture it makes, a can capture in reply. */
static int forces_exchange(const ckr_pos *r)
{
    if (!ckr_has_capture(r))
        return 0;
    ckr_move moves[CKR_MAX_MOVES];
    int n = ckr_gen_captures(r, moves);
    for (int i = 0; i < n; i++) {
        ckr_pos after = *r;
        ckr_make(&after, &moves[i]);
        if (!ckr_has_capture(&after))
            return 0;
    }
    return 1;
}

/* FORK: passive pieces side by side on x and x+1 (same row).  Attacked from
 * the next row towards White (square X = x+5) a piece jumps towards Black
 * (landings x-5 and x-3); attacked from the row towards Black (X = x-4) it
 * jumps towards White (landings x+4 and x+6).  The active side must be able
 * to step a piece onto X that may then jump that way. */
static int fork_count(const ckr_pos *p, int a, ckr_bb pas, ckr_bb empty)
{
    int count = 0;
    for (ckr_bb pairs = pas & (pas >> 1) & M_PAIR_LEFT; pairs; pairs &= pairs - 1) {
        int x = bb_lsb(pairs);
        for (int side = 0; side < 2; side++) {
            int X = side == 0 ? x + 5 : x - 4;
            int l1 = side == 0 ? x - 5 : x + 4;
            int l2 = side == 0 ? x - 3 : x + 6;
            if (!bit_ok(X) || !bit_ok(l1) || !bit_ok(l2))
                continue;
            ckr_bb xb = bb_bit(X);
            if (!(empty & xb) || !(empty & bb_bit(l1)) || !(empty & bb_bit(l2)))
                continue;
            ckr_bb movers = movers_to(p, a, xb);
            if (!movers)
                continue;
            /* side 0 jumps backward (-), the way White's men go; side 1 forward. */
            int men_may = side == 0 ? a == CKR_WHITE : a == CKR_BLACK;
            if ((movers & p->kings) || (men_may && (movers & ~p->kings)) || (xb & M_CROWN[a]))
                count++;
        }
    }
    return count;
}

/* The parameters of p; the loops over moves run only for wanted ones
 * (bit i of need: parameter i; the cheap ones are always computed). */
static void params_of(const ckr_pos *p, uint32_t need, int32_t *out)
{
    int a = p->side, q = a ^ 1;
    ckr_bb act = p->pieces[a], pas = p->pieces[q], kings = p->kings;
    ckr_bb pas_men = pas & ~kings, act_kings = act & kings;
    ckr_bb empty = bb_empty(p), occ = act | pas;
    ckr_bb targets = step_targets(p, a, empty);
    int mat_a = material(p, a), mat_p = material(p, q);

    for (int i = 0; i < P_COUNT; i++)
        out[i] = 0;

    out[P_ADV] = q == CKR_BLACK
                     ? bb_popcount(pas_men & M_ROWS45) - bb_popcount(pas_men & M_ROWS23)
                     : bb_popcount(pas_men & M_ROWS23) - bb_popcount(pas_men & M_ROWS45);
    ckr_bb apex = SQ(7) | SQ(26);
    out[P_APEX] = !kings && (act & apex) && !(pas & apex) ? -1 : 0;
    int bridge = (pas & M_BRIDGE[q]) == M_BRIDGE[q], oreo = (pas & M_OREO[q]) == M_OREO[q];
    out[P_BACK] = !act_kings && bridge;
    out[P_CENT] = bb_popcount(pas_men & M_CENTER);
    out[P_CNTR] = bb_popcount(M_CENTER & (act | targets));
    out[P_CORN] = mat_a <= 6 && mat_p > mat_a && (targets & M_DCORNER);
    out[P_CRAMP] = (pas & M_CRAMP_SQ[q]) && (pas & M_CRAMP_NEAR[q]) &&
                           (act & M_CRAMP_ACTIVE[q]) == M_CRAMP_ACTIVE[q]
                       ? 2 : 0;
    out[P_DIA] = bb_popcount(pas & M_DIA0);
    out[P_DIAV] = 3 * bb_popcount(pas & M_DIA0) + 2 * bb_popcount(pas & M_DIA1) + bb_popcount(pas & M_DIA2);
    out[P_DYKE] = bb_popcount(pas & (pas >> 4) & (pas >> 8)) + bb_popcount(pas & (pas >> 5) & (pas >> 10));
    ckr_bb flank4 = (empty >> 4) & (empty << 4), flank5 = (empty >> 5) & (empty << 5);
    out[P_EXPOS] = bb_popcount(pas & (flank4 | flank5));
    if (need & (1u << P_FORK))
        out[P_FORK] = fork_count(p, a, pas, empty);
    /* GAP: an empty square between two passive pieces on a diagonal, or
     * between one and the edge (the square beyond is off the board). */
    ckr_bb off_p4 = CKR_BB_BOARD & ~(CKR_BB_BOARD >> 4), off_m4 = CKR_BB_BOARD & ~(CKR_BB_BOARD << 4);
    ckr_bb off_p5 = CKR_BB_BOARD & ~(CKR_BB_BOARD >> 5), off_m5 = CKR_BB_BOARD & ~(CKR_BB_BOARD << 5);
    ckr_bb up4 = pas >> 4, dn4 = pas << 4, up5 = pas >> 5, dn5 = pas << 5;
    ckr_bb gap = (up4 & dn4) | (up4 & off_m4) | (dn4 & off_p4) | (up5 & dn5) | (up5 & off_m5) | (dn5 & off_p5);
    out[P_GAP] = bb_popcount(empty & gap);
    out[P_GUARD] = !act_kings && (bridge || oreo);
    out[P_HOLE] = bb_popcount(empty & at_least3(up4, dn4, up5, dn5));
    out[P_KCENT] = bb_popcount(pas & kings & M_CENTER);
    out[P_MOB] = bb_popcount(targets);
    out[P_MOVE] = mat_a == mat_p && mat_a + mat_p < 24 && (bb_popcount(occ & M_SYSTEM[q]) & 1);
    out[P_NODE] = bb_popcount(pas & at_least3(empty >> 4, empty << 4, empty >> 5, empty << 5));
    out[P_OREO] = !(pas & kings) && oreo;
    ckr_bb crowded = (occ >> 4) | (occ << 4) | (occ >> 5) | (occ << 5);
    out[P_POLE] = bb_popcount(pas_men & ~crowded);

    /* DENY, EXCH (= RECAP) and THRET look at each normal move of the active side. */
    const uint32_t loops = (1u << P_DENY) | (1u << P_MOBIL) | (1u << P_EXCH) | (1u << P_RECAP) | (1u << P_THRET);
    if (need & loops) {
        int deny = 0, exch = 0, thret = 0;
        int want_deny = (need & ((1u << P_DENY) | (1u << P_MOBIL))) != 0;
        int want_exch = (need & ((1u << P_EXCH) | (1u << P_RECAP))) != 0;
        int want_thret = (need & (1u << P_THRET)) != 0;
        for (ckr_bb ts = targets; ts; ts &= ts - 1) {
            ckr_bb t = ts & (~ts + 1);
            /* DENY: every piece that could step onto t would be lost there. */
            int all_lost = 1, any_exch = 0, any_thret = 0;
            for (ckr_bb ms = movers_to(p, a, t); ms; ms &= ms - 1) {
                ckr_bb m = ms & (~ms + 1);
                ckr_pos r;
                step(p, a, m, t, &r);
                if (want_deny && all_lost && !taken_without_exchange(&r, t))
                    all_lost = 0;
                if (want_exch && !any_exch && forces_exchange(&r))
                    any_exch = 1;
                if (want_thret && !any_thret && can_jump_from(&r, a, (r.kings & t) != 0, t))
                    any_thret = 1;
            }
            deny += want_deny && all_lost;
            exch += any_exch;
            thret += any_thret;
        }
        out[P_DENY] = deny;
        out[P_EXCH] = out[P_RECAP] = exch;
        out[P_THRET] = thret;
    }
    out[P_MOBIL] = out[P_MOB] - out[P_DENY];
}

const char *ckr_samuel_param_name(int i)
{
    return i >= 0 && i < P_COUNT ? param_names[i] : "";
}

const char *ckr_samuel_term_name(int i)
{
    if (i == T_PADV)
        return "PADV";
    if (i >= 1 && i <= P_COUNT)
        return param_names[i - 1];
    if (i >= T_CONN && i < CKR_SAMUEL_NTERMS)
        return connective_names[i - T_CONN];
    return "";
}

int ckr_samuel_params(const ckr_pos *pos, int32_t *out)
{
    params_of(pos, NEED_ALL, out);
    return P_COUNT;
}

/* Terms for the side to move, for the parameters in need. */
static void terms_of(const ckr_pos *pos, const ckr_pos *parent, uint32_t need, int32_t *out)
{
    int32_t now[P_COUNT], before[P_COUNT];
    ckr_pos swapped;
    if (!parent) {
        /* No earlier position: the same board seen with the roles swapped, so
         * each term is (other side's rating) - (mover's rating) as of now. */
        swapped = *pos;
        swapped.side ^= 1;
        parent = &swapped;
    }
    params_of(pos, need, now);
    params_of(parent, need, before);
    int us = pos->side;
    out[T_PADV] = material(pos, us) - material(pos, us ^ 1);
    for (int i = 0; i < P_COUNT; i++)
        out[1 + i] = before[i] - now[i];
    /* Samuel's own values (credited to the side that just moved) are the
     * negations; his connectives split them on sign with A = (value < 0): the
     * reading under which his published 1959 polynomial agrees with experts
     * (docs/learners/terms.md has the figures for both). */
    int deny = now[P_DENY] - before[P_DENY] < 0, mob = now[P_MOB] - before[P_MOB] < 0;
    int mobil = now[P_MOBIL] - before[P_MOBIL] < 0, cent = now[P_CENT] - before[P_CENT] < 0;
    const int pairs[3][2] = {{deny, mob}, {mobil, deny}, {mobil, cent}};
    for (int k = 0; k < 3; k++) {
        int A = pairs[k][0], B = pairs[k][1];
        out[T_CONN + 4 * k + 0] = -(A && B);
        out[T_CONN + 4 * k + 1] = -(A && !B);
        out[T_CONN + 4 * k + 2] = -(!A && B);
        out[T_CONN + 4 * k + 3] = -(!A && !B);
    }
}

int ckr_samuel_terms(const ckr_pos *pos, const ckr_pos *parent, int32_t *out)
{
    terms_of(pos, parent, NEED_ALL, out);
    return CKR_SAMUEL_NTERMS;
}

int64_t ckr_samuel_terms_batch(const uint32_t *sets, int64_t n, int32_t *out)
{
    for (int64_t i = 0; i < n; i++) {
        const uint32_t *s = sets + 10 * i;
        ckr_pos pos, parent;
        if (s[4] > 1 || ckr_pos_set(&pos, s[0], s[1], s[2], s[3], (int)s[4]) != 0)
            return i;
        int has_parent = s[9] <= 1;
        if (has_parent && ckr_pos_set(&parent, s[5], s[6], s[7], s[8], (int)s[9]) != 0)
            return i;
        terms_of(&pos, has_parent ? &parent : NULL, NEED_ALL, out + CKR_SAMUEL_NTERMS * i);
    }
    return -1;
}

/* Which parameters a weight vector reads (connectives through their parts). */
static uint32_t needed(const ckr_eval *e)
{
    uint32_t need = 0;
    int n = e->nweights < CKR_SAMUEL_NTERMS ? e->nweights : CKR_SAMUEL_NTERMS;
    for (int i = 1; i < n; i++) {
        if (!e->weights[i])
            continue;
        if (i <= P_COUNT)
            need |= 1u << (i - 1);
        else if (i < T_CONN + 4)
            need |= (1u << P_DENY) | (1u << P_MOB);
        else if (i < T_CONN + 8)
            need |= (1u << P_MOBIL) | (1u << P_DENY);
        else
            need |= (1u << P_MOBIL) | (1u << P_CENT);
    }
    return need;
}

/* Score = floor(sum_i weights[i] * term_i / 2^CKR_SAMUEL_SHIFT), plus, when
 * PADV is in the polynomial, Samuel's preference for trading when ahead (the
 * same bonus as CKR_EVAL_MATERIAL). */
int ckr_samuel_eval(const ckr_eval *eval, const ckr_pos *pos, const ckr_pos *parent)
{
    int32_t t[CKR_SAMUEL_NTERMS];
    int n = eval->nweights < CKR_SAMUEL_NTERMS ? eval->nweights : CKR_SAMUEL_NTERMS;
    terms_of(pos, parent, needed(eval), t);
    int64_t sum = 0;
    for (int i = 0; i < n; i++)
        sum += (int64_t)eval->weights[i] * t[i];
    int64_t score = sum >= 0 ? sum >> CKR_SAMUEL_SHIFT : -((-sum + ((1 << CKR_SAMUEL_SHIFT) - 1)) >> CKR_SAMUEL_SHIFT);
    if (n > 0 && eval->weights[0]) {
        int mu = material(pos, pos->side), mt = material(pos, pos->side ^ 1);
        if (mu + mt)
            score += 100 * (mu - mt) / (mu + mt);
    }
    if (score > CKR_WIN_BOUND - 1)
        score = CKR_WIN_BOUND - 1;
    if (score < -CKR_WIN_BOUND + 1)
        score = -CKR_WIN_BOUND + 1;
    return (int)score;
}
