/* The buggy provider, with BUG_REPEAT (see buggy.c). */
#define BUG_REPEAT
#include "buggy.c"
