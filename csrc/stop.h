/* stop.h -- stop tickets (internal, not part of the cdef).
 *
 * Every search runs under a ticket (1, 2, ...).  A stop names a ticket and
 * ends every search whose ticket is not above it, so it reaches the search it
 * was meant for even before that search began, and never one armed after it.
 * `stopped` only grows (a late stop of an old ticket cannot undo a newer
 * one).  The three counters may be touched from any thread. */
#ifndef CKR_STOP_H
#define CKR_STOP_H

#include <stdatomic.h>
#include <stdint.h>

typedef struct ckr_stop {
    _Atomic uint64_t ticket;  /* the latest ticket handed out */
    _Atomic uint64_t started; /* the ticket of the latest search that began */
    _Atomic uint64_t stopped; /* every search with a ticket <= this one is stopped */
} ckr_stop;

/* prototypes (stop.c) */
void stop_init(ckr_stop *s);
/* The ticket of the next search: the armed one again until that search begins. */
uint64_t stop_arm(ckr_stop *s);
/* Take the armed ticket (or arm one): stops from here on end this search. */
uint64_t stop_begin(ckr_stop *s);
/* Stop the running search and the armed one. */
void stop_all(ckr_stop *s);
/* Stop only the search with this ticket (and older ones). */
void stop_ticket(ckr_stop *s, uint64_t ticket);

/* Read at every node: a relaxed load is a plain one on the usual machines. */
static inline int stop_hit(ckr_stop *s, uint64_t search_ticket)
{
    return atomic_load_explicit(&s->stopped, memory_order_relaxed) >= search_ticket;
}

#endif
