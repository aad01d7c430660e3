/* The buggy provider without a bug (see buggy.c). */
#include "buggy.c"
