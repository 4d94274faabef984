/* ckr.h -- include this from C; it wraps the cdef-clean public API. */
#ifndef CKR_H
#define CKR_H
#include <stdint.h>
#include "ckr_api.h"
#endif
