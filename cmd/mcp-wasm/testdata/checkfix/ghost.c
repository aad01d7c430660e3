/* The buggy provider, with BUG_GHOST (see buggy.c). */
#define BUG_GHOST
#include "buggy.c"
