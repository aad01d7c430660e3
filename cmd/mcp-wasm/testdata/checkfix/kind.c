/* The buggy provider, with BUG_KIND (see buggy.c). */
#define BUG_KIND
#include "buggy.c"
