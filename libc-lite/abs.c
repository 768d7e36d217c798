/* abs.c: absolute values. The most negative value has none (undefined). */
#include <stdlib.h>

int abs(int x)
{
	return x < 0 ? -x : x;
}

long labs(long x)
{
	return x < 0 ? -x : x;
}
