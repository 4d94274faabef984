/* tt.c -- the transposition table's memory (tt.h holds the probe and store). */
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif
#include "tt.h"

/* prototypes */
static tt_entry *tt_alloc(uint64_t entries);
static void tt_free(tt_entry *t, uint64_t entries);

/* The table is zeroed memory of its own mapping, and on Linux it asks for
 * huge pages: a probe lands on a random slot, and with 4 KB pages nearly every
 * probe also misses the TLB (perf put two fifths of the search's time on the
 * probe's load).  A fresh mapping is untouched zero pages, so clearing a 4 GB
 * table takes microseconds and gives its resident memory back, where memset
 * would take seconds and touch every page. */
static tt_entry *tt_alloc(uint64_t entries)
{
    size_t bytes = entries * sizeof(tt_entry);
#if defined(__linux__) && defined(MAP_ANONYMOUS)
    /* Map 2 MB more and trim both ends, so the table starts on a huge-page boundary. */
    const size_t huge = (size_t)2 << 20;
    char *raw = mmap(NULL, bytes + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    char *t = (char *)(((uintptr_t)raw + huge - 1) & ~(uintptr_t)(huge - 1));
    if (t > raw)
        munmap(raw, (size_t)(t - raw));
    munmap(t + bytes, (size_t)(raw + huge - t)); /* the tail: never empty, t < raw + huge */
#ifdef MADV_HUGEPAGE
    madvise(t, bytes, MADV_HUGEPAGE); /* advice only: without it the table still works */
#endif
    return (tt_entry *)t;
#else
    return calloc(entries, sizeof(tt_entry));
#endif
}

static void tt_free(tt_entry *t, uint64_t entries)
{
    if (!t)
        return;
#if defined(__linux__) && defined(MAP_ANONYMOUS)
    munmap(t, entries * sizeof(tt_entry));
#else
    (void)entries;
    free(t);
#endif
}

int tt_resize(ckr_tt *t, int hash_mb)
{
    if (hash_mb < 1)
        hash_mb = 1;
    uint64_t bytes = (uint64_t)hash_mb << 20, buckets = 1;
    while (buckets * 2 * TT_BUCKET * sizeof(tt_entry) <= bytes)
        buckets *= 2;
    tt_entry *slots = tt_alloc(buckets * TT_BUCKET);
    if (!slots)
        return -1;
    tt_free(t->slots, t->buckets * TT_BUCKET);
    t->slots = slots;
    t->buckets = buckets;
    return 0;
}

void tt_clear(ckr_tt *t)
{
    size_t n = t->buckets * TT_BUCKET;
    tt_entry *slots = tt_alloc(n); /* a fresh mapping, not memset (see tt_alloc) */
    if (slots) {
        tt_free(t->slots, n);
        t->slots = slots;
    } else {
        memset(t->slots, 0, n * sizeof(tt_entry));
    }
    t->generation = 0;
}

/* Fault every page of the table in now, so the search that follows does not
 * pay for it on the clock: a fresh mapping's first touch of each huge page
 * zeroes 2 MB, and may first have to compact memory to find one (measured:
 * 0.14-0.27 s to finish depth 4 of a one-second search from a cleared table).
 * It keeps what the table holds, so it may be called at any time between searches. */
void tt_prepare(ckr_tt *t)
{
    volatile char *p = (volatile char *)t->slots;
    size_t bytes = t->buckets * TT_BUCKET * sizeof(tt_entry);
    if (!p)
        return;
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    if (madvise((void *)t->slots, bytes, MADV_POPULATE_WRITE) == 0)
        return; /* Linux 5.14+: the kernel faults it all in, contents kept */
#endif
    for (size_t off = 0; off < bytes; off += 4096)
        p[off] = p[off]; /* a write (a read would map the shared zero page), of what is there */
}

void tt_release(ckr_tt *t)
{
    tt_free(t->slots, t->buckets * TT_BUCKET);
    t->slots = NULL;
    t->buckets = 0;
}
