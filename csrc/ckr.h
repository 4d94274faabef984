/* ckr.h -- include this from C; it wraps the cdef-clean public API headers. */
#ifndef CKR_H
#define CKR_H
#include <stdint.h>
#include "ckr_api.h"
#include "ckr_terms.h"
#include "ckr_book.h"
#include "ckr_rote.h"
#include "ckr_network.h"
#include "ckr_egdb.h"
#include "ckr_piecenet.h"
/* Internal, not part of the cdef: builds evaluate.c's tables; ckr_init calls
 * it once. */
void ckr_evaluate_init(void);
/* Builds network_eval.c's square tables (ckr_init calls it once). */
void ckr_network_init(void);
/* Builds piece_net.c's input tables (ckr_init calls it once). */
void ckr_piecenet_init(void);
#endif
