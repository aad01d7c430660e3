/* The buggy provider, with BUG_MEMORY (see buggy.c). */
#define BUG_MEMORY
#include "buggy.c"
