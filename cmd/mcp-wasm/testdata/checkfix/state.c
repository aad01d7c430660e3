/* The buggy provider, with BUG_STATE (see buggy.c). */
#define BUG_STATE
#include "buggy.c"
