/* The buggy provider, with BUG_MIME (see buggy.c). */
#define BUG_MIME
#include "buggy.c"
