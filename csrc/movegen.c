/* movegen.c -- legal move generation, make/unmake and move counting.
 *
 * Captures are mandatory; any capture may be chosen; a jump must continue
 * while it can; a man that reaches the king row stops there.  Captured pieces
 * stay on the board until the move ends (they block landing squares and cannot
 * be jumped twice).  Moves are distinct by jump path, so a king that can take
 * the same pieces in two orders produces two moves, as in the published perft
 * tables. */
#include "bitboard.h"

typedef struct jump_ctx {
    ckr_move *out;      /* NULL when only counting */
    int count;
    ckr_bb opp;         /* opponent pieces */
    ckr_bb empty;       /* empty squares, origin included */
    ckr_bb kings;
    ckr_bb crown;       /* crowning row of the mover */
    int dir_lo, dir_hi; /* allowed directions for the mover, inclusive */
    int from;
    int king;
    uint8_t path[CKR_MAX_CAPS];
} jump_ctx;

/* prototypes */
static void emit_jump(jump_ctx *c, int to, ckr_bb captured, int ncaps, int crowned);
static int jump_rec(jump_ctx *c, int sq, ckr_bb captured, int ncaps);
static int gen_captures(const ckr_pos *p, ckr_move *out, int count_only);
static int gen_quiets(const ckr_pos *p, ckr_move *out);

static inline ckr_bb fwd_movers(const ckr_pos *p)
{
    ckr_bb us = p->pieces[p->side];
    return p->side == CKR_BLACK ? us : us & p->kings;
}

static inline ckr_bb back_movers(const ckr_pos *p)
{
    ckr_bb us = p->pieces[p->side];
    return p->side == CKR_WHITE ? us : us & p->kings;
}

static inline ckr_bb jumpers(const ckr_pos *p)
{
    ckr_bb opp = p->pieces[p->side ^ 1], empty = bb_empty(p);
    ckr_bb f = fwd_movers(p), b = back_movers(p);
    return (f & ((opp >> 4) & (empty >> 8))) | (f & ((opp >> 5) & (empty >> 10))) |
           (b & ((opp << 4) & (empty << 8))) | (b & ((opp << 5) & (empty << 10)));
}

int ckr_has_capture(const ckr_pos *p) { return jumpers(p) != 0; }

static void emit_jump(jump_ctx *c, int to, ckr_bb captured, int ncaps, int crowned)
{
    if (!c->out) {
        c->count++;
        return;
    }
    if (c->count >= CKR_MAX_MOVES)
        return;
    ckr_move *m = &c->out[c->count++];
    m->caps = captured;
    m->from = (uint8_t)c->from;
    m->to = (uint8_t)to;
    m->ncaps = (uint8_t)ncaps;
    m->flags = (uint8_t)((c->king ? CKR_MOVE_KING : 0) | (crowned ? CKR_MOVE_CROWN : 0));
    m->kxor = (captured & c->kings) |
              (c->king ? (bb_bit(c->from) ^ bb_bit(to)) : (crowned ? bb_bit(to) : 0));
    for (int i = 0; i < ncaps; i++)
        m->path[i] = c->path[i];
    for (int i = ncaps; i < CKR_MAX_CAPS; i++)
        m->path[i] = 0;
}

/* Extends a jump from bit sq; returns whether any further jump was found. */
static int jump_rec(jump_ctx *c, int sq, ckr_bb captured, int ncaps)
{
    int found = 0;
    ckr_bb s = bb_bit(sq);
    for (int d = c->dir_lo; d <= c->dir_hi; d++) {
        ckr_bb over = bb_step(s, d, 1);
        if (!(over & c->opp & ~captured))
            continue;
        ckr_bb land = bb_step(s, d, 2);
        if (!(land & c->empty))
            continue;
        int lsq = bb_lsb(land);
        found = 1;
        if (ncaps >= CKR_MAX_CAPS)
            continue; /* impossible on 8x8 with 12 pieces; kept as a guard */
        c->path[ncaps] = (uint8_t)lsq;
        if (!c->king && (land & c->crown)) {
            emit_jump(c, lsq, captured | over, ncaps + 1, 1);
            continue;
        }
        if (!jump_rec(c, lsq, captured | over, ncaps + 1))
            emit_jump(c, lsq, captured | over, ncaps + 1, 0);
    }
    return found;
}

static int gen_captures(const ckr_pos *p, ckr_move *out, int count_only)
{
    ckr_bb js = jumpers(p);
    if (!js)
        return 0;
    jump_ctx c;
    c.out = count_only ? 0 : out;
    c.count = 0;
    c.opp = p->pieces[p->side ^ 1];
    c.kings = p->kings;
    c.crown = p->side == CKR_BLACK ? CKR_BB_CROWN_BLACK : CKR_BB_CROWN_WHITE;
    ckr_bb empty = bb_empty(p);
    while (js) {
        int from = bb_lsb(js);
        js &= js - 1;
        c.from = from;
        c.king = (int)((p->kings >> from) & 1);
        c.empty = empty | bb_bit(from);
        if (c.king) {
            c.dir_lo = DIR_F4;
            c.dir_hi = DIR_B5;
        } else if (p->side == CKR_BLACK) {
            c.dir_lo = DIR_F4;
            c.dir_hi = DIR_F5;
        } else {
            c.dir_lo = DIR_B4;
            c.dir_hi = DIR_B5;
        }
        jump_rec(&c, from, 0, 0);
    }
    return c.count < CKR_MAX_MOVES || count_only ? c.count : CKR_MAX_MOVES;
}

static inline int add_quiets(const ckr_pos *p, ckr_move *out, int n, ckr_bb dests,
                             int delta, ckr_bb crown)
{
    while (dests && n < CKR_MAX_MOVES) {
        int to = bb_lsb(dests);
        dests &= dests - 1;
        int from = to - delta;
        ckr_move *m = &out[n++];
        int king = (int)((p->kings >> from) & 1);
        int crowned = !king && (crown & bb_bit(to));
        m->caps = 0;
        m->from = (uint8_t)from;
        m->to = (uint8_t)to;
        m->ncaps = 0;
        m->flags = (uint8_t)((king ? CKR_MOVE_KING : 0) | (crowned ? CKR_MOVE_CROWN : 0));
        m->kxor = king ? (bb_bit(from) ^ bb_bit(to)) : (crowned ? bb_bit(to) : 0);
    }
    return n;
}

static int gen_quiets(const ckr_pos *p, ckr_move *out)
{
    ckr_bb empty = bb_empty(p), f = fwd_movers(p), b = back_movers(p);
    ckr_bb crown = p->side == CKR_BLACK ? CKR_BB_CROWN_BLACK : CKR_BB_CROWN_WHITE;
    int n = 0;
    n = add_quiets(p, out, n, (f << 4) & empty, 4, crown);
    n = add_quiets(p, out, n, (f << 5) & empty, 5, crown);
    n = add_quiets(p, out, n, (b >> 4) & empty, -4, crown);
    n = add_quiets(p, out, n, (b >> 5) & empty, -5, crown);
    return n;
}

int ckr_gen_captures(const ckr_pos *p, ckr_move *out) { return gen_captures(p, out, 0); }

int ckr_gen_moves(const ckr_pos *p, ckr_move *out)
{
    int n = gen_captures(p, out, 0);
    return n ? n : gen_quiets(p, out);
}

int ckr_count_moves(const ckr_pos *p)
{
    int n = gen_captures(p, 0, 1);
    if (n)
        return n;
    ckr_bb empty = bb_empty(p), f = fwd_movers(p), b = back_movers(p);
    return bb_popcount((f << 4) & empty) + bb_popcount((f << 5) & empty) +
           bb_popcount((b >> 4) & empty) + bb_popcount((b >> 5) & empty);
}

static inline uint64_t move_hash_delta(const ckr_pos *p, int us, const ckr_move *m)
{
    int was_king = m->flags & CKR_MOVE_KING;
    int is_king = was_king || (m->flags & CKR_MOVE_CROWN);
    uint64_t h = zob(us, was_king != 0, m->from) ^ zob(us, is_king != 0, m->to) ^ ckr_zobrist_side;
    ckr_bb caps = m->caps, capkings = m->caps & m->kxor;
    (void)p;
    while (caps) {
        int bit = bb_lsb(caps);
        caps &= caps - 1;
        h ^= zob(us ^ 1, (int)((capkings >> bit) & 1), bit);
    }
    return h;
}

void ckr_make(ckr_pos *p, const ckr_move *m)
{
    int us = p->side;
    p->hash ^= move_hash_delta(p, us, m);
    p->pieces[us] ^= bb_bit(m->from) ^ bb_bit(m->to);
    p->pieces[us ^ 1] ^= m->caps;
    p->kings ^= m->kxor;
    p->side = us ^ 1;
}

static int path_is(const ckr_move *m, const uint8_t *squares, int len)
{
    int steps = m->ncaps ? m->ncaps : 1;
    if (len != steps + 1 || ckr_bit_to_square(m->from) != squares[0])
        return 0;
    if (!m->ncaps)
        return ckr_bit_to_square(m->to) == squares[1];
    for (int j = 0; j < m->ncaps; j++)
        if (ckr_bit_to_square(m->path[j]) != squares[j + 1])
            return 0;
    return 1;
}

int ckr_legal_prefix(const ckr_pos *start, const uint8_t *squares, const uint8_t *lens, int n)
{
    ckr_pos pos = *start;
    ckr_move buf[CKR_MAX_MOVES];
    for (int k = 0; k < n; k++) {
        int count = ckr_gen_moves(&pos, buf), found = -1;
        for (int i = 0; i < count && found < 0; i++)
            if (path_is(&buf[i], squares, lens[k]))
                found = i;
        if (found < 0)
            return k;
        ckr_make(&pos, &buf[found]);
        squares += lens[k];
    }
    return n;
}

void ckr_unmake(ckr_pos *p, const ckr_move *m)
{
    int us = p->side ^ 1;
    p->side = us;
    p->pieces[us] ^= bb_bit(m->from) ^ bb_bit(m->to);
    p->pieces[us ^ 1] ^= m->caps;
    p->kings ^= m->kxor;
    p->hash ^= move_hash_delta(p, us, m);
}
