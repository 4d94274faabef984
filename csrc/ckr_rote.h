/*
 * ckr_rote.h -- Samuel's rote memory as a C hash table the search probes at
 * its leaves, cdef-clean like ckr_api.h.  Implemented in rote.c.
 */
