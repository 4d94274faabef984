/* rote.c -- Samuel's rote memory for the search.  (Being written.) */
#include "bitboard.h"
