/*
 * cpu704.h -- the public C API of the IBM 704 fast path (emu704._fast).
 *
 * This file is read verbatim by cffi (emu704/csrc/build_fast.py), so it holds
 * only typedefs, structs, enums, integer #defines and prototypes: no #include,
 * no #ifdef, no function-like macros.  C files include <stdint.h> first.
 *
 * The reference is emu704/cpu.py; this core reproduces its registers,
 * indicators, memory, instruction and cycle counts exactly.  Word layout as
 * there: a storage word is 36 bits (S in bit 35), the AC 38 bits (S bit 37,
 * Q bit 36, P bit 35), the MQ a storage word.
 *
 * Division of labour
 * ------------------
 * The op code tables and the cycle costs are not written down here:
 * emu704.fast fills an emu704_isa from emu704.isa (the one instruction table)
 * at import, mapping each mnemonic to EMU704_OP_<mnemonic> when this core
 * implements it and to EMU704_OP_PY otherwise, and each op to the cycles its
 * table entry gives.  emu704_run() executes instructions until a limit or
 * until it reaches one it leaves to Python -- every I/O instruction (RDS WRS
 * CPY CAD LDA BST WEF REW), device sense addresses (SPT SPR SPU, unknown
 * +-0760 sub-ops), every stop that is not a limit (HTR, HPR, DVH/FDH divide
 * check, illegal codes) -- and then returns EMU704_RUN_PYTHON with ic on that
 * instruction and nothing changed by it.  The Python side runs exactly that
 * one instruction with the reference handler, directly on this struct (its
 * registers are properties over the fields below and its memory is mem[]),
 * and calls emu704_run() again.
 *
 * Decoding is cached per memory location in slot[]: a slot remembers the word
 * it was decoded from, so any store (from C or from Python) simply makes the
 * next fetch of that location decode again; nothing needs invalidating.
 */

#define EMU704_MAX_WORDS 32768

/* emu704_run() results. */
#define EMU704_RUN_LIMIT 0   /* max_instructions used up or cycle deadline reached */
#define EMU704_RUN_PYTHON 1  /* ic is on an instruction the Python side must execute */

/* Operations this core executes.  EMU704_OP_PY = "leave it to Python".  PSE
 * and MSE look up their sub-op by effective address in b760_op at run time. */
enum emu704_op {
    EMU704_OP_PY = 0,
    EMU704_OP_NOP, EMU704_OP_TRA, EMU704_OP_TTR, EMU704_OP_TZE, EMU704_OP_TNZ,
    EMU704_OP_TPL, EMU704_OP_TMI, EMU704_OP_TOV, EMU704_OP_TNO, EMU704_OP_TQP,
    EMU704_OP_TQO, EMU704_OP_TLQ, EMU704_OP_TSX,
    EMU704_OP_TXI, EMU704_OP_TIX, EMU704_OP_TXH, EMU704_OP_TNX, EMU704_OP_TXL,
    EMU704_OP_CLA, EMU704_OP_CLS, EMU704_OP_CAL, EMU704_OP_ADD, EMU704_OP_ADM,
    EMU704_OP_SUB, EMU704_OP_SBM, EMU704_OP_ACL, EMU704_OP_MPY, EMU704_OP_MPR,
    EMU704_OP_DVH, EMU704_OP_DVP, EMU704_OP_LDQ,
    EMU704_OP_STO, EMU704_OP_SLW, EMU704_OP_STZ, EMU704_OP_STQ, EMU704_OP_SLQ,
    EMU704_OP_STA, EMU704_OP_STD, EMU704_OP_STP,
    EMU704_OP_ANA, EMU704_OP_ANS, EMU704_OP_ORA, EMU704_OP_ORS, EMU704_OP_CAS,
    EMU704_OP_ALS, EMU704_OP_ARS, EMU704_OP_LLS, EMU704_OP_LRS, EMU704_OP_LGL,
    EMU704_OP_RQL,
    EMU704_OP_LXA, EMU704_OP_LXD, EMU704_OP_SXD, EMU704_OP_PAX, EMU704_OP_PDX,
    EMU704_OP_PXD,
    EMU704_OP_FAD, EMU704_OP_UFA, EMU704_OP_FSB, EMU704_OP_UFS, EMU704_OP_FMP,
    EMU704_OP_UFM, EMU704_OP_FDH, EMU704_OP_FDP,
    EMU704_OP_PSE, EMU704_OP_MSE,
    EMU704_OP_CLM, EMU704_OP_LBT, EMU704_OP_CHS, EMU704_OP_SSP, EMU704_OP_COM,
    EMU704_OP_ETM, EMU704_OP_RND, EMU704_OP_DCT, EMU704_OP_PBT, EMU704_OP_SSM,
    EMU704_OP_LTM, EMU704_OP_ETT, EMU704_OP_RTT, EMU704_OP_SLF, EMU704_OP_SLN,
    EMU704_OP_SWT, EMU704_OP_SLT,
    EMU704_OP_COUNT
};

/* Dispatch tables and cycle costs, filled from emu704.isa by emu704.fast;
 * shared read-only by every machine.  Costs are cycles in all (the table's
 * figures, OpDef.timing); the parts emu704.isa gives no formula for (FAD/UFA
 * alignment and normalization) are code, as in emu704/cpu.py. */
typedef struct emu704_isa {
    uint8_t code_op[4096];      /* type B: 12-bit code S,1-11 (word >> 24) -> op */
    uint8_t code_indexed[4096]; /* 1 when the address is reduced by the tagged XRs */
    uint8_t typea_op[8];        /* type A: prefix S,1,2 -> op */
    uint8_t b760_op[2][256];    /* +0760 / -0760: effective address (< 0400) -> sub-op */
    uint8_t op_cycles[EMU704_OP_COUNT];    /* op -> cycles of its ordinary case ("20|3": 20) */
    uint8_t check_cycles[EMU704_OP_COUNT]; /* DVP, FDP: cycles of a divide check ("20|3": 3) */
    uint8_t shift_extra[256];   /* shift count n -> cycles beyond op_cycles ("2+(n+2)//12") */
    uint8_t halt_cycles[2];     /* HTR, HPR: what emu704_call() charges for the halt at return_at */
} emu704_isa;

/* One decoded memory location (16 bytes). */
typedef struct emu704_slot {
    uint64_t word;  /* the word decoded; a value no 36-bit word has = empty */
    uint16_t addr;  /* address, masked to the memory size */
    uint16_t dec;   /* decrement (type A), masked to the memory size */
    uint8_t op;     /* enum emu704_op */
    uint8_t ix;     /* tag bits whose XRs are subtracted from addr (0: not indexed) */
    uint8_t tag;    /* tag bits as written (selects XRs for LXA, TIX ...) */
    uint8_t cycles; /* isa->op_cycles[op], charged when it is executed */
} emu704_slot;

/* The machine.  Field names match emu704.cpu.Machine's attributes. */
typedef struct emu704_cpu {
    uint64_t ac;            /* 38 bits: S 37, Q 36, P 35, 1-35 */
    uint64_t mq;            /* 36 bits */
    uint64_t ic;
    uint64_t xr[8];         /* xr[1], xr[2], xr[4] = A, B, C; the others unused */
    uint64_t instructions;
    uint64_t cycles;
    uint32_t ac_overflow;
    uint32_t mq_overflow;
    uint32_t divide_check;
    uint32_t trap_mode;
    uint32_t tape_check;
    uint32_t end_of_tape;
    uint32_t sense_lights;  /* bit i-1 = light i */
    uint32_t sense_switches;/* bit i-1 = switch i down */
    uint32_t memory_words;  /* 4096, 8192 or 32768 */
    uint32_t amask;         /* memory_words - 1 */
    const emu704_isa *isa;
    uint64_t mem[32768];    /* the first memory_words are the core */
    emu704_slot slot[32768];
} emu704_cpu;

/* Set up a zeroed emu704_cpu: memory size (a power of two, 4096..32768) and
 * tables; empties the decode cache.  Registers and memory are left alone. */
void emu704_init(emu704_cpu *cpu, const emu704_isa *isa, uint32_t memory_words);

/* Execute from cpu->ic.  Before each instruction: stop (EMU704_RUN_LIMIT) if
 * max_instructions have been executed by this call or cpu->cycles >=
 * cycle_deadline; stop (EMU704_RUN_PYTHON) if the instruction is one the
 * Python side executes.  Counters are kept in cpu->instructions, cpu->cycles. */
int emu704_run(emu704_cpu *cpu, uint64_t max_instructions, uint64_t cycle_deadline);

/* emu704_call() results. */
#define EMU704_CALL_RETURNED 0 /* the program halted (HTR or HPR) at return_at: outputs read */
#define EMU704_CALL_LIMIT 1    /* the instruction limit or the cycle deadline came first; ic kept,
                                  so calling again with entry -1 resumes exactly */
#define EMU704_CALL_PYTHON 2   /* stopped on an instruction the Python side must run: I/O, or a
                                  halt anywhere but return_at (a data word executed, a stray HTR) */

/* One host call of a routine, as cheap as the machine allows.  Stores the n_in
 * words in_words[i] at in_addr[i] (masked to 36 bits and to the memory size),
 * sets ic = entry unless entry is negative (resume), runs as emu704_run()
 * does, and when the program halts at return_at (HTR there counts as Python
 * counts it: 1 instruction, 2 cycles, restart at its address; HPR restarts at
 * the next location) reads out_words[i] from out_addr[i]. */
int emu704_call(emu704_cpu *cpu, int64_t entry,
                const uint32_t *in_addr, const uint64_t *in_words, uint32_t n_in,
                const uint32_t *out_addr, uint64_t *out_words, uint32_t n_out,
                uint32_t return_at, uint64_t max_instructions, uint64_t cycle_deadline);

/* The op code emu704_run() would execute for the word at address (after the
 * +-0760 sub-op binding of tag-0 words); for tests. */
int emu704_decoded_op(emu704_cpu *cpu, uint32_t address);

/* Memory as 5 big-endian bytes per word, address 0 upwards (out: 5 *
 * memory_words bytes): the bytes MachineState.memory_crc is the CRC-32 of. */
void emu704_pack_memory(const emu704_cpu *cpu, uint8_t *out);
