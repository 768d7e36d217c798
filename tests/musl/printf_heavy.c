/* Lots of formatted output, including floating point, through stdio. */
#include <stdio.h>
#include <string.h>

int main(void)
{
	unsigned long sum = 0;
	for (int i = 0; i < 2000; i++) {
		char buf[128];
		int n = snprintf(buf, sizeof buf, "%5d %08x %-6s %.3f|", i, i * 2654435761u,
				 i % 2 ? "odd" : "even", i / 7.0);
		sum += (unsigned long)n;
		for (int k = 0; k < n; k++)
			sum = sum * 31 + (unsigned char)buf[k];
		if (i % 400 == 0)
			printf("%s\n", buf);
	}
	printf("checksum %lu\n", sum);
	return 0;
}
