/* The buggy provider, with BUG_ENDLESS (see buggy.c). */
#define BUG_ENDLESS
#include "buggy.c"
