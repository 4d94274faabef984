/* stop.c -- stop tickets (stop.h). */
#include "stop.h"

/* prototypes */
static void stop_upto(ckr_stop *s, uint64_t t);

static void stop_upto(ckr_stop *s, uint64_t t)
{
    uint64_t cur = atomic_load(&s->stopped);
    while (cur < t && !atomic_compare_exchange_weak(&s->stopped, &cur, t))
        ;
}

void stop_init(ckr_stop *s)
{
    atomic_init(&s->ticket, 0);
    atomic_init(&s->started, 0);
    atomic_init(&s->stopped, 0);
}

uint64_t stop_arm(ckr_stop *s)
{
    /* A ticket above `started` is still waiting for its search: hand it out
     * again.  Otherwise issue the next one. */
    uint64_t t = atomic_load(&s->ticket);
    while (t == atomic_load(&s->started))
        if (atomic_compare_exchange_weak(&s->ticket, &t, t + 1))
            return t + 1;
    return t;
}

uint64_t stop_begin(ckr_stop *s)
{
    uint64_t t = stop_arm(s);
    atomic_store(&s->started, t);
    return t;
}

void stop_all(ckr_stop *s) { stop_upto(s, atomic_load(&s->ticket)); }

void stop_ticket(ckr_stop *s, uint64_t ticket)
{
    if (ticket <= atomic_load(&s->ticket)) /* never a ticket not yet handed out */
        stop_upto(s, ticket);
}
