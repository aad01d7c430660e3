/* The buggy provider, with BUG_CURSOR (see buggy.c). */
#define BUG_CURSOR
#include "buggy.c"
