/* Many allocations of mixed sizes, checked for overlap and content. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 512

int main(void)
{
	static unsigned char *p[SLOTS];
	static size_t len[SLOTS];
	uint32_t seed = 12345;
	for (int round = 0; round < 20000; round++) {
		seed = seed * 1103515245 + 12345;
		int i = (seed >> 8) % SLOTS;
		if (p[i]) {
			for (size_t k = 0; k < len[i]; k++)
				if (p[i][k] != (unsigned char)(i + k)) {
					printf("corrupted block %d at %zu\n", i, k);
					return 1;
				}
			free(p[i]);
			p[i] = NULL;
		} else {
			len[i] = (seed >> 4) % ((seed & 1) ? 300000 : 2000) + 1;
			p[i] = malloc(len[i]);
			if (!p[i]) {
				printf("malloc(%zu) failed\n", len[i]);
				return 1;
			}
			for (size_t k = 0; k < len[i]; k++)
				p[i][k] = (unsigned char)(i + k);
		}
	}
	printf("malloc stress ok\n");
	return 0;
}
