/*
 * big1m: a static program of a little over 1 MiB (an initialized array in
 * .data) that exits at once with status 0: what exec of a 1 MiB binary
 * costs (bench's "fork+exec of a 1 MiB static program").
 */
#include <unistd.h>

#define SIZE (1 << 20)

/* Initialized: the bytes are in the file, so exec reads all of them. */
static volatile unsigned char blob[SIZE] = { 1, 2, 3 };

int main(void)
{
	_exit(blob[0] == 1 ? 0 : 1);
}
