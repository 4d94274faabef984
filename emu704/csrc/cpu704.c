/*
 * cpu704.c -- the IBM 704 fast path: a predecoding interpreter of every 704
 * instruction that does not talk to a device or stop the machine.
 *
 * Semantics and cycle counts are those of the reference, emu704/cpu.py (the
 * comments name the Python helper each piece follows); see cpu704.h for how
 * the work is split with Python.  Registers live in locals while running (so
 * a store into mem[] cannot be taken to alias them) and go back to the
 * emu704_cpu struct when emu704_run() returns.
 *
 * Cycle costs come from emu704.isa through the emu704_isa tables: decode()
 * caches op_cycles[op] in the slot, the run loop charges it after the
 * instruction, and the variable parts are added from shift_extra and
 * check_cycles; only what the table gives no formula for (the FAD family's
 * alignment and normalization) is written here.
 */
#include <stdint.h>
#include <string.h>

#include "cpu704.h"

#define AI static inline __attribute__((always_inline))
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

typedef unsigned __int128 u128;

/* Storage words (emu704.word). */
#define WORD_MASK 0777777777777ULL
#define SIGN 0400000000000ULL
#define MAG_MASK 0377777777777ULL
#define ADDR_FIELD 077777ULL
#define DECR_FIELD 0077777000000ULL
#define PREFIX_FIELD 0700000000000ULL
#define LEFT_HALF 0777777000000ULL
#define RIGHT_HALF 0777777ULL

/* The AC (emu704.cpu). */
#define AC_S (1ULL << 37)
#define AC_Q (1ULL << 36)
#define AC_P (1ULL << 35)
#define AC_MAG ((1ULL << 37) - 1)
#define AC_PMAG ((1ULL << 36) - 1)

/* Floating point. */
#define FRAC 0777777777ULL
#define FRAC_NORM 0400000000ULL
#define CHAR10 01777ULL
#define CHAR8 0377ULL

#define NO_WORD UINT64_MAX

/* The registers while running. */
typedef struct {
    uint64_t ac, mq, x1, x2, x4, cycles;
    uint32_t acov, mqov, dchk, trap, tchk, eot, lights, switches;
} regs;

AI uint64_t get_xr(const regs *r, unsigned tag)
{
    uint64_t v = 0;
    if (tag & 1)
        v |= r->x1;
    if (tag & 2)
        v |= r->x2;
    if (tag & 4)
        v |= r->x4;
    return v;
}

AI void set_xr(regs *r, unsigned tag, uint64_t value, uint64_t amask)
{
    value &= amask;
    if (tag & 1)
        r->x1 = value;
    if (tag & 2)
        r->x2 = value;
    if (tag & 4)
        r->x4 = value;
}

/* Machine._transfer: the next IC of a transfer-class instruction. */
AI uint64_t transfer(const regs *r, uint64_t *mem, int taken, uint64_t y, uint64_t ic)
{
    if (r->trap) {
        mem[0] = (mem[0] & ~ADDR_FIELD & WORD_MASK) | ic;
        return taken ? 1 : ic + 1;
    }
    return taken ? y : ic + 1;
}

/* _sign_key: ordering of sign-magnitude values with +0 > -0 (CAS, TLQ). */
AI int64_t sign_key(uint64_t negative, uint64_t magnitude)
{
    return negative ? -(int64_t)magnitude - 1 : (int64_t)magnitude;
}

/* Machine._add */
AI void add(regs *r, uint64_t w)
{
    uint64_t ac = r->ac, am = ac & AC_MAG, wm = w & MAG_MASK;
    if ((ac >> 37) == (w >> 35)) {
        uint64_t s = (am + wm) & AC_MAG; /* a carry out of Q is lost */
        if ((s ^ am) & AC_P)
            r->acov = 1;
        r->ac = (ac & AC_S) | s;
    } else if (wm > am) {
        r->ac = ((w >> 35) << 37) | (wm - am);
    } else {
        r->ac = (ac & AC_S) | (am - wm);
    }
}

/* Machine._acl: AC P,1-35 + w with end-around carry; S, Q unchanged. */
AI void acl(regs *r, uint64_t w)
{
    uint64_t s = (r->ac & AC_PMAG) + w;
    s = (s & AC_PMAG) + (s >> 36);
    r->ac = (r->ac & (AC_S | AC_Q)) | s;
}

/* Machine._multiply */
AI void multiply(regs *r, uint64_t w, int rnd)
{
    uint64_t mq = r->mq;
    u128 p = (u128)(mq & MAG_MASK) * (w & MAG_MASK);
    uint64_t s = ((mq ^ w) >> 35) & 1;
    uint64_t hi = (uint64_t)(p >> 35), lo = (uint64_t)p & MAG_MASK;
    if (rnd && (lo >> 34))
        hi += 1;
    r->ac = (s << 37) | hi;
    r->mq = (s << 35) | lo;
}

/* Machine._divide without the divide check (the caller tests |C(Y)| <= |AC|). */
AI void divide(regs *r, uint64_t w)
{
    uint64_t ac = r->ac, wm = w & MAG_MASK, am = ac & AC_MAG;
    u128 dividend = ((u128)am << 35) | (r->mq & MAG_MASK);
    uint64_t q = (uint64_t)(dividend / wm), rem = (uint64_t)(dividend % wm);
    uint64_t s = ac >> 37;
    r->mq = (((s ^ (w >> 35)) & 1) << 35) | q;
    r->ac = (s << 37) | rem;
}

/* Machine._fp_result */
AI void fp_result(regs *r, uint64_t sign, int64_t ch, uint64_t acf, uint64_t mqf, int ac_zero)
{
    if (ac_zero) {
        r->ac = sign << 37;
        r->mq = (sign << 35) | mqf;
        return;
    }
    if (ch < 0 || ch > (int64_t)CHAR8)
        r->acov = 1;
    int64_t mc = ch - 27;
    if (mc < 0 || mc > (int64_t)CHAR8)
        r->mqov = 1;
    r->ac = (sign << 37) | (((uint64_t)ch & CHAR10) << 27) | acf;
    r->mq = (sign << 35) | (((uint64_t)mc & CHAR8) << 27) | mqf;
}

/* fad_align_extra */
AI uint64_t align_extra(uint64_t shift)
{
    if (shift < 12 || shift >= 63)
        return 0;
    return 1 + (shift - 12) / 11;
}

/* Machine._fadd.  op_cycles has the table's least (FAD 6, an exact cancellation
 * to zero; UFA 5); this adds the operand-dependent rest, as Python does. */
#define FAD_NORMALIZE 1 /* _FAD_NORMALIZE: a result to normalize */
AI void fadd(regs *r, uint64_t w, int normalize)
{
    uint64_t ac = r->ac;
    uint64_t a_s = ac >> 37, a_c = (ac >> 27) & CHAR10, a_f = ac & FRAC; /* AC char incl. Q,P */
    uint64_t b_s = w >> 35, b_c = (w >> 27) & CHAR8, b_f = w & FRAC;
    uint64_t shift, s_s, s_f, g_s, g_c, g_f;
    if (a_c > b_c) { /* the smaller characteristic goes to the AC: interchange */
        shift = a_c - b_c;
        s_s = b_s, s_f = b_f;
        g_s = a_s, g_c = a_c & CHAR8, g_f = a_f; /* Q,P are lost */
    } else {
        shift = b_c - a_c;
        s_s = a_s, s_f = a_f;
        g_s = b_s, g_c = b_c, g_f = b_f;
    }
    shift &= CHAR8;
    uint64_t small = shift < 63 ? (s_f << 27) >> shift : 0;
    uint64_t big = g_f << 27, res, sign;
    if (s_s == g_s) {
        res = small + big, sign = g_s;
    } else if (small >= big) {
        res = small - big, sign = s_s;
    } else {
        res = big - small, sign = g_s;
    }
    int64_t ch = (int64_t)g_c;
    if (res >> 54) {
        res >>= 1;
        ch += 1;
    }
    uint64_t extra = align_extra(shift);
    uint64_t acf = res >> 27;
    if (normalize) {
        if (acf == 0) { /* normal zero */
            fp_result(r, sign, 0, 0, res & FRAC, 1);
            r->cycles += extra;
            return;
        }
        int k = 27 - (64 - __builtin_clzll(acf));
        if (k) {
            res <<= k;
            ch -= k;
            acf = res >> 27;
        }
        extra += FAD_NORMALIZE + (uint64_t)k / 4;
    }
    r->cycles += extra;
    fp_result(r, sign, ch, acf, res & FRAC, 0);
}

/* Machine._fmul */
AI void fmul(regs *r, uint64_t w, int normalize)
{
    uint64_t mq = r->mq;
    if (w == 0) { /* multiplication by +0 */
        r->ac = (mq & SIGN) << 2;
        r->mq = mq & SIGN;
        return;
    }
    uint64_t sign = ((mq ^ w) >> 35) & 1;
    int64_t ch = (int64_t)((mq >> 27) & CHAR8) + (int64_t)((w >> 27) & CHAR8) - 128;
    uint64_t p = (mq & FRAC) * (w & FRAC);
    uint64_t acf = p >> 27;
    if (normalize) {
        if (acf == 0) {
            fp_result(r, sign, 0, 0, p & FRAC, 1);
            return;
        }
        if (!(acf & FRAC_NORM)) { /* at most one normalizing shift */
            p <<= 1;
            ch -= 1;
            acf = (p >> 27) & FRAC;
        }
    }
    fp_result(r, sign, ch, acf, p & FRAC, 0);
}

/* Machine._fdiv without the divide check (the caller tests it: fdiv_check). */
AI int fdiv_check(uint64_t ac, uint64_t w)
{
    uint64_t a_f = ac & FRAC, b_f = w & FRAC;
    return b_f == 0 || a_f >= 2 * b_f;
}

AI void fdiv(regs *r, uint64_t w)
{
    uint64_t ac = r->ac, a_f = ac & FRAC, b_f = w & FRAC;
    uint64_t a_s = ac >> 37, q_s = (a_s ^ (w >> 35)) & 1;
    if (a_f == 0) { /* zero dividend */
        r->mq = q_s << 35;
        r->ac = a_s << 37;
        return;
    }
    int64_t a_c = (int64_t)((ac >> 27) & CHAR10);
    uint64_t dividend;
    if (a_f >= b_f) {
        dividend = a_f << 26;
        a_c += 1;
    } else {
        dividend = a_f << 27;
    }
    uint64_t q = dividend / b_f, rem = dividend % b_f;
    int64_t mc = a_c - (int64_t)((w >> 27) & CHAR8) + 128;
    if (mc < 0 || mc > (int64_t)CHAR8)
        r->mqov = 1;
    int64_t rc = a_c - 27;
    if (rc < 0 || rc > (int64_t)CHAR8)
        r->acov = 1;
    r->mq = (q_s << 35) | (((uint64_t)mc & CHAR8) << 27) | q;
    r->ac = (a_s << 37) | (((uint64_t)rc & CHAR10) << 27) | rem;
}

/* Machine._divide_check, proceeding form (DVP, FDP): the table's cost of a
 * divide check ("20|3": 3), charged instead of op_cycles (the caller skips that). */
AI void divide_check(regs *r, const emu704_isa *isa, unsigned op)
{
    r->dchk = 1;
    r->cycles += isa->check_cycles[op];
}

/* Machine._shift_count: n = low 8 bits of Y; its cost beyond op_cycles from the table. */
AI unsigned shift_count(regs *r, const emu704_isa *isa, uint64_t y)
{
    unsigned n = (unsigned)(y & 0377);
    r->cycles += isa->shift_extra[n];
    return n;
}

/* Machine._decode */
static void decode(const emu704_isa *isa, emu704_slot *s, uint64_t w, uint32_t amask)
{
    unsigned tag = (unsigned)(w >> 15) & 7, op;
    s->word = w;
    s->addr = (uint16_t)(w & ADDR_FIELD & amask);
    s->tag = (uint8_t)tag;
    s->dec = 0;
    s->ix = 0;
    if ((w >> 33) & 3) { /* type A */
        op = isa->typea_op[(w >> 33) & 7];
        s->dec = (uint16_t)((w >> 18) & ADDR_FIELD & amask);
    } else {
        unsigned code = (unsigned)(w >> 24) & 07777;
        op = isa->code_op[code];
        if (isa->code_indexed[code])
            s->ix = (uint8_t)tag;
        if ((op == EMU704_OP_PSE || op == EMU704_OP_MSE) && tag == 0) /* fixed sub-op: bind it now */
            op = s->addr < 256 ? isa->b760_op[(w >> 35) & 1][s->addr] : EMU704_OP_PY;
    }
    s->op = (uint8_t)op;
    s->cycles = isa->op_cycles[op];
}

void emu704_init(emu704_cpu *cpu, const emu704_isa *isa, uint32_t memory_words)
{
    if (memory_words == 0 || memory_words > EMU704_MAX_WORDS || (memory_words & (memory_words - 1)))
        memory_words = EMU704_MAX_WORDS;
    cpu->isa = isa;
    cpu->memory_words = memory_words;
    cpu->amask = memory_words - 1;
    for (uint32_t i = 0; i < EMU704_MAX_WORDS; i++)
        cpu->slot[i].word = NO_WORD;
}

int emu704_decoded_op(emu704_cpu *cpu, uint32_t address)
{
    address &= cpu->amask;
    emu704_slot *s = &cpu->slot[address];
    if (s->word != cpu->mem[address])
        decode(cpu->isa, s, cpu->mem[address], cpu->amask);
    return s->op;
}

void emu704_pack_memory(const emu704_cpu *cpu, uint8_t *out)
{
    for (uint32_t i = 0; i < cpu->memory_words; i++) {
        uint64_t w = cpu->mem[i];
        for (int b = 4; b >= 0; b--)
            *out++ = (uint8_t)(w >> (8 * b));
    }
}

int emu704_run(emu704_cpu *cpu, uint64_t max_instructions, uint64_t cycle_deadline)
{
    const emu704_isa *isa = cpu->isa;
    uint64_t *mem = cpu->mem;
    emu704_slot *slots = cpu->slot;
    const uint64_t amask = cpu->amask;
    regs r = {
        .ac = cpu->ac, .mq = cpu->mq,
        .x1 = cpu->xr[1], .x2 = cpu->xr[2], .x4 = cpu->xr[4],
        .cycles = cpu->cycles,
        .acov = cpu->ac_overflow, .mqov = cpu->mq_overflow, .dchk = cpu->divide_check,
        .trap = cpu->trap_mode, .tchk = cpu->tape_check, .eot = cpu->end_of_tape,
        .lights = cpu->sense_lights, .switches = cpu->sense_switches,
    };
    uint64_t ic = cpu->ic & amask;
    uint64_t n = 0;
    int status;

    for (;;) {
        if (UNLIKELY(n >= max_instructions || r.cycles >= cycle_deadline)) {
            status = EMU704_RUN_LIMIT;
            break;
        }
        emu704_slot *s = &slots[ic];
        if (UNLIKELY(s->word != mem[ic]))
            decode(isa, s, mem[ic], cpu->amask);
        const uint64_t y = (s->addr - get_xr(&r, s->ix)) & amask;
        const unsigned t = s->tag;
        unsigned op = s->op;
        unsigned cost = s->cycles; /* the table's cost, charged after the switch */
        uint64_t w;
        int taken;
    dispatch:
        switch (op) {
        /* -- control and transfers ---------------------------------------------- */
        case EMU704_OP_NOP:
            ic += 1;
            break;
        case EMU704_OP_TRA:
            ic = transfer(&r, mem, 1, y, ic);
            break;
        case EMU704_OP_TTR:
            ic = y;
            break;
        case EMU704_OP_TZE:
            ic = transfer(&r, mem, (r.ac & AC_MAG) == 0, y, ic);
            break;
        case EMU704_OP_TNZ:
            ic = transfer(&r, mem, (r.ac & AC_MAG) != 0, y, ic);
            break;
        case EMU704_OP_TPL:
            ic = transfer(&r, mem, !(r.ac & AC_S), y, ic);
            break;
        case EMU704_OP_TMI:
            ic = transfer(&r, mem, (r.ac & AC_S) != 0, y, ic);
            break;
        case EMU704_OP_TOV:
            taken = r.acov != 0;
            r.acov = 0;
            ic = transfer(&r, mem, taken, y, ic);
            break;
        case EMU704_OP_TNO:
            taken = r.acov == 0;
            r.acov = 0;
            ic = transfer(&r, mem, taken, y, ic);
            break;
        case EMU704_OP_TQP:
            ic = transfer(&r, mem, !(r.mq & SIGN), y, ic);
            break;
        case EMU704_OP_TQO:
            taken = r.mqov != 0;
            r.mqov = 0;
            ic = transfer(&r, mem, taken, y, ic);
            break;
        case EMU704_OP_TLQ:
            taken = sign_key(r.mq >> 35, r.mq & MAG_MASK) < sign_key(r.ac >> 37, r.ac & AC_MAG);
            ic = transfer(&r, mem, taken, y, ic);
            break;
        case EMU704_OP_TSX:
            set_xr(&r, t, (uint64_t)0 - ic, amask);
            ic = transfer(&r, mem, 1, y, ic);
            break;
        case EMU704_OP_TXI:
            set_xr(&r, t, get_xr(&r, t) + s->dec, amask);
            ic = transfer(&r, mem, 1, y, ic);
            break;
        case EMU704_OP_TIX: {
            uint64_t x = get_xr(&r, t);
            if (x > s->dec) {
                set_xr(&r, t, x - s->dec, amask);
                ic = transfer(&r, mem, 1, y, ic);
            } else {
                ic = transfer(&r, mem, 0, y, ic);
            }
            break;
        }
        case EMU704_OP_TNX: {
            uint64_t x = get_xr(&r, t);
            if (x > s->dec) {
                set_xr(&r, t, x - s->dec, amask);
                ic = transfer(&r, mem, 0, y, ic);
            } else {
                ic = transfer(&r, mem, 1, y, ic);
            }
            break;
        }
        case EMU704_OP_TXH:
            ic = transfer(&r, mem, get_xr(&r, t) > s->dec, y, ic);
            break;
        case EMU704_OP_TXL:
            ic = transfer(&r, mem, get_xr(&r, t) <= s->dec, y, ic);
            break;

        /* -- fixed point and loads ------------------------------------------------- */
        case EMU704_OP_CLA:
            w = mem[y];
            r.ac = ((w & SIGN) << 2) | (w & MAG_MASK);
            ic += 1;
            break;
        case EMU704_OP_CLS:
            w = mem[y];
            r.ac = ((~w & SIGN) << 2) | (w & MAG_MASK);
            ic += 1;
            break;
        case EMU704_OP_CAL:
            r.ac = mem[y]; /* storage S lands in AC P */
            ic += 1;
            break;
        case EMU704_OP_ADD:
            add(&r, mem[y]);
            ic += 1;
            break;
        case EMU704_OP_ADM:
            add(&r, mem[y] & MAG_MASK);
            ic += 1;
            break;
        case EMU704_OP_SUB:
            add(&r, mem[y] ^ SIGN);
            ic += 1;
            break;
        case EMU704_OP_SBM:
            add(&r, mem[y] | SIGN);
            ic += 1;
            break;
        case EMU704_OP_ACL:
            acl(&r, mem[y]);
            ic += 1;
            break;
        case EMU704_OP_MPY:
            multiply(&r, mem[y], 0);
            ic += 1;
            break;
        case EMU704_OP_MPR:
            multiply(&r, mem[y], 1);
            ic += 1;
            break;
        case EMU704_OP_DVH:
        case EMU704_OP_DVP:
            w = mem[y];
            if ((w & MAG_MASK) <= (r.ac & AC_MAG)) { /* divide check: no division */
                if (op == EMU704_OP_DVH)
                    goto to_python; /* the machine stops: Python reports it */
                divide_check(&r, isa, op);
                ic += 1;
                goto charged;
            }
            divide(&r, w);
            ic += 1;
            break;
        case EMU704_OP_LDQ:
            r.mq = mem[y];
            ic += 1;
            break;

        /* -- stores ------------------------------------------------------------------ */
        case EMU704_OP_STO:
            mem[y] = ((r.ac >> 2) & SIGN) | (r.ac & MAG_MASK);
            ic += 1;
            break;
        case EMU704_OP_SLW:
            mem[y] = r.ac & AC_PMAG; /* P goes to S */
            ic += 1;
            break;
        case EMU704_OP_STZ:
            mem[y] = 0;
            ic += 1;
            break;
        case EMU704_OP_STQ:
            mem[y] = r.mq;
            ic += 1;
            break;
        case EMU704_OP_SLQ:
            mem[y] = (mem[y] & RIGHT_HALF) | (r.mq & LEFT_HALF);
            ic += 1;
            break;
        case EMU704_OP_STA:
            mem[y] = (mem[y] & ~ADDR_FIELD & WORD_MASK) | (r.ac & ADDR_FIELD);
            ic += 1;
            break;
        case EMU704_OP_STD:
            mem[y] = (mem[y] & ~DECR_FIELD & WORD_MASK) | (r.ac & DECR_FIELD);
            ic += 1;
            break;
        case EMU704_OP_STP: /* AC P,1,2 sit where storage S,1,2 do */
            mem[y] = (mem[y] & ~PREFIX_FIELD & WORD_MASK) | (r.ac & PREFIX_FIELD);
            ic += 1;
            break;

        /* -- logical ----------------------------------------------------------------- */
        case EMU704_OP_ANA:
            r.ac &= mem[y]; /* S and Q cleared */
            ic += 1;
            break;
        case EMU704_OP_ANS:
            mem[y] &= r.ac & AC_PMAG;
            ic += 1;
            break;
        case EMU704_OP_ORA:
            r.ac |= mem[y]; /* S and Q unchanged */
            ic += 1;
            break;
        case EMU704_OP_ORS:
            mem[y] |= r.ac & AC_PMAG;
            ic += 1;
            break;
        case EMU704_OP_CAS: {
            w = mem[y];
            int64_t a = sign_key(r.ac >> 37, r.ac & AC_MAG);
            int64_t b = sign_key(w >> 35, w & MAG_MASK);
            ic += a > b ? 1 : a == b ? 2 : 3;
            break;
        }

        /* -- shifts ------------------------------------------------------------------ */
        case EMU704_OP_ALS: {
            unsigned k = shift_count(&r, isa, y);
            if (k) {
                uint64_t m = r.ac & AC_MAG, body = m & MAG_MASK; /* bits that pass through P */
                if (k < 35 ? body >> (35 - k) : body)
                    r.acov = 1;
                r.ac = (r.ac & AC_S) | (k < 37 ? (m << k) & AC_MAG : 0);
            }
            ic += 1;
            break;
        }
        case EMU704_OP_ARS: {
            unsigned k = shift_count(&r, isa, y);
            r.ac = (r.ac & AC_S) | (k < 64 ? (r.ac & AC_MAG) >> k : 0);
            ic += 1;
            break;
        }
        case EMU704_OP_LLS: {
            unsigned k = shift_count(&r, isa, y);
            uint64_t mq = r.mq;
            u128 big = ((u128)(r.ac & AC_MAG) << 35) | (mq & MAG_MASK); /* 72 bits */
            if (k) {
                u128 body = big & (((u128)1 << 70) - 1); /* AC 1-35, MQ 1-35 pass through P */
                if (k < 70 ? (body >> (70 - k)) != 0 : body != 0)
                    r.acov = 1;
                big = k < 72 ? (big << k) & (((u128)1 << 72) - 1) : 0;
            }
            r.ac = ((mq & SIGN) << 2) | (uint64_t)(big >> 35); /* AC S <- MQ S */
            r.mq = (mq & SIGN) | ((uint64_t)big & MAG_MASK);
            ic += 1;
            break;
        }
        case EMU704_OP_LRS: {
            unsigned k = shift_count(&r, isa, y);
            uint64_t ac = r.ac;
            u128 big = ((u128)(ac & AC_MAG) << 35) | (r.mq & MAG_MASK);
            big = k < 128 ? big >> k : 0;
            r.ac = (ac & AC_S) | (uint64_t)(big >> 35);
            r.mq = ((ac >> 2) & SIGN) | ((uint64_t)big & MAG_MASK); /* MQ S <- AC S */
            ic += 1;
            break;
        }
        case EMU704_OP_LGL: {
            unsigned k = shift_count(&r, isa, y);
            uint64_t ac = r.ac;
            u128 big = ((u128)(ac & AC_MAG) << 36) | r.mq; /* 73 bits */
            if (k) {
                u128 body = big & (((u128)1 << 71) - 1);
                if (k < 71 ? (body >> (71 - k)) != 0 : body != 0)
                    r.acov = 1;
                big = k < 73 ? (big << k) & (((u128)1 << 73) - 1) : 0;
            }
            r.ac = (ac & AC_S) | (uint64_t)(big >> 36);
            r.mq = (uint64_t)big & WORD_MASK;
            ic += 1;
            break;
        }
        case EMU704_OP_RQL: {
            unsigned k = shift_count(&r, isa, y) % 36;
            r.mq = ((r.mq << k) | (r.mq >> (36 - k))) & WORD_MASK;
            ic += 1;
            break;
        }

        /* -- index registers ----------------------------------------------------------- */
        case EMU704_OP_LXA:
            set_xr(&r, t, mem[y], amask);
            ic += 1;
            break;
        case EMU704_OP_LXD:
            set_xr(&r, t, mem[y] >> 18, amask);
            ic += 1;
            break;
        case EMU704_OP_SXD:
            mem[y] = (mem[y] & ~DECR_FIELD & WORD_MASK) | (get_xr(&r, t) << 18);
            ic += 1;
            break;
        case EMU704_OP_PAX:
            set_xr(&r, t, r.ac, amask);
            ic += 1;
            break;
        case EMU704_OP_PDX:
            set_xr(&r, t, r.ac >> 18, amask);
            ic += 1;
            break;
        case EMU704_OP_PXD:
            r.ac = get_xr(&r, t) << 18;
            ic += 1;
            break;

        /* -- floating point -------------------------------------------------------------- */
        case EMU704_OP_FAD:
            fadd(&r, mem[y], 1);
            ic += 1;
            break;
        case EMU704_OP_UFA:
            fadd(&r, mem[y], 0);
            ic += 1;
            break;
        case EMU704_OP_FSB:
            fadd(&r, mem[y] ^ SIGN, 1);
            ic += 1;
            break;
        case EMU704_OP_UFS:
            fadd(&r, mem[y] ^ SIGN, 0);
            ic += 1;
            break;
        case EMU704_OP_FMP:
            fmul(&r, mem[y], 1);
            ic += 1;
            break;
        case EMU704_OP_UFM:
            fmul(&r, mem[y], 0);
            ic += 1;
            break;
        case EMU704_OP_FDH:
        case EMU704_OP_FDP:
            w = mem[y];
            if (fdiv_check(r.ac, w)) { /* divide check: no division */
                if (op == EMU704_OP_FDH)
                    goto to_python;
                divide_check(&r, isa, op);
                ic += 1;
                goto charged;
            }
            fdiv(&r, w);
            ic += 1;
            break;

        /* -- the +0760 / -0760 group ------------------------------------------------------ */
        case EMU704_OP_PSE:
        case EMU704_OP_MSE: /* indexed: the sub-op is known only now */
            op = y < 256 ? isa->b760_op[op == EMU704_OP_MSE][y] : EMU704_OP_PY;
            if (op == EMU704_OP_PSE || op == EMU704_OP_MSE) /* cannot happen with emu704.isa */
                goto to_python;
            cost = isa->op_cycles[op];
            goto dispatch;
        case EMU704_OP_CLM:
            r.ac &= AC_S;
            ic += 1;
            break;
        case EMU704_OP_LBT:
            ic += (r.ac & 1) ? 2 : 1;
            break;
        case EMU704_OP_CHS:
            r.ac ^= AC_S;
            ic += 1;
            break;
        case EMU704_OP_SSP:
            r.ac &= AC_MAG;
            ic += 1;
            break;
        case EMU704_OP_COM:
            r.ac ^= AC_MAG;
            ic += 1;
            break;
        case EMU704_OP_ETM:
            r.trap = 1;
            ic += 1;
            break;
        case EMU704_OP_RND:
            if ((r.mq >> 34) & 1) { /* MQ bit 1 */
                uint64_t m = r.ac & AC_MAG, s2 = (m + 1) & AC_MAG;
                if ((s2 ^ m) & AC_P)
                    r.acov = 1;
                r.ac = (r.ac & AC_S) | s2;
            }
            ic += 1;
            break;
        case EMU704_OP_DCT:
            if (r.dchk) {
                r.dchk = 0;
                ic += 1;
            } else {
                ic += 2;
            }
            break;
        case EMU704_OP_PBT:
            ic += (r.ac & AC_P) ? 2 : 1;
            break;
        case EMU704_OP_SSM:
            r.ac |= AC_S;
            ic += 1;
            break;
        case EMU704_OP_LTM:
            r.trap = 0;
            ic += 1;
            break;
        case EMU704_OP_ETT:
            if (r.eot) {
                r.eot = 0;
                ic += 1;
            } else {
                ic += 2;
            }
            break;
        case EMU704_OP_RTT:
            if (r.tchk) {
                r.tchk = 0;
                ic += 1;
            } else {
                ic += 2;
            }
            break;
        case EMU704_OP_SLF:
            r.lights = 0;
            ic += 1;
            break;
        case EMU704_OP_SLN: /* y = 0141..0144 (b760_op maps no other address here) */
            r.lights |= 1u << ((y - 0141) & 31);
            ic += 1;
            break;
        case EMU704_OP_SWT: /* y = 0161..0166 */
            ic += ((r.switches >> ((y - 0161) & 31)) & 1) ? 2 : 1;
            break;
        case EMU704_OP_SLT: { /* y = 0141..0144 */
            uint32_t bit = 1u << ((y - 0141) & 31);
            if (r.lights & bit) {
                r.lights &= ~bit;
                ic += 2;
            } else {
                ic += 1;
            }
            break;
        }

        default: /* EMU704_OP_PY: I/O, halts, illegal codes, device sense */
            goto to_python;
        }
        r.cycles += cost;
    charged:
        ic &= amask;
        n += 1;
        continue;
    to_python:
        status = EMU704_RUN_PYTHON;
        break;
    }

    cpu->ac = r.ac;
    cpu->mq = r.mq;
    cpu->ic = ic;
    cpu->xr[1] = r.x1;
    cpu->xr[2] = r.x2;
    cpu->xr[4] = r.x4;
    cpu->instructions += n;
    cpu->cycles = r.cycles;
    cpu->ac_overflow = r.acov;
    cpu->mq_overflow = r.mqov;
    cpu->divide_check = r.dchk;
    cpu->trap_mode = r.trap;
    cpu->tape_check = r.tchk;
    cpu->end_of_tape = r.eot;
    cpu->sense_lights = r.lights;
    return status;
}

/* ---- the host call ---- */

#define CODE_HTR 00000u
#define CODE_HPR 00420u

int emu704_call(emu704_cpu *cpu, int64_t entry,
                const uint32_t *in_addr, const uint64_t *in_words, uint32_t n_in,
                const uint32_t *out_addr, uint64_t *out_words, uint32_t n_out,
                uint32_t return_at, uint64_t max_instructions, uint64_t cycle_deadline)
{
    const uint64_t amask = cpu->amask;
    for (uint32_t i = 0; i < n_in; i++)
        cpu->mem[in_addr[i] & amask] = in_words[i] & WORD_MASK;
    if (entry >= 0)
        cpu->ic = (uint64_t)entry & amask;
    if (emu704_run(cpu, max_instructions, cycle_deadline) == EMU704_RUN_LIMIT)
        return EMU704_CALL_LIMIT;
    /* emu704_run stopped before an instruction it leaves to Python, ic on it. */
    uint64_t w = cpu->mem[cpu->ic & amask];
    unsigned code = (unsigned)(w >> 24) & 07777u;
    if ((cpu->ic & amask) != (return_at & amask) || (code != CODE_HTR && code != CODE_HPR))
        return EMU704_CALL_PYTHON;
    if (code == CODE_HTR && ((w >> 15) & 7u))
        return EMU704_CALL_PYTHON; /* an indexed HTR: its restart address is Python's to work out */
    /* The halt the Python reference would execute: counted the same way. */
    cpu->instructions += 1;
    cpu->cycles += cpu->isa->halt_cycles[code == CODE_HPR];
    cpu->ic = code == CODE_HTR ? (w & amask) : ((cpu->ic + 1) & amask);
    for (uint32_t i = 0; i < n_out; i++)
        out_words[i] = cpu->mem[out_addr[i] & amask];
    return EMU704_CALL_RETURNED;
}
