/*
 * JUnit XML for `session FILE --junit OUT` (docs/host.md): one
 * <testsuite> of the session's steps, each a <testcase> with its time,
 * its output as <system-out>, a <failure> with the reason when it
 * failed and <skipped> for the steps an earlier failure left unrun (the
 * format GitLab, GitHub's test reporters and Jenkins read). The cases
 * are kept in memory until junit_close, which knows the counts the
 * <testsuite> element carries, writes the file and says whether it
 * could.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "baremon.h"

struct junit {
	const char *path;
	FILE *cases;           /* open_memstream: the <testcase> elements */
	char *buf;
	size_t len;
	int tests, failures, skipped;
	double seconds;
};

/* Text as XML character data or an attribute value: markup escaped,
 * control characters XML 1.0 cannot hold replaced, invalid UTF-8 kept
 * as bytes (the console's own text). */
static void xml_text(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c == '&')
			fputs("&amp;", f);
		else if (c == '"')
			fputs("&quot;", f);
		else if (c < 0x20 && c != '\n' && c != '\t')
			fputc('?', f);
		else
			fputc(c, f);
	}
}

static void xml_str(FILE *f, const char *s)
{
	xml_text(f, s, strlen(s));
}

struct junit *junit_open(const char *path)
{
	struct junit *j = calloc(1, sizeof(*j));
	if (!j)
		return NULL;
	j->path = path;
	j->cases = open_memstream(&j->buf, &j->len);
	if (!j->cases) {
		free(j);
		return NULL;
	}
	return j;
}

void junit_case(struct junit *j, const char *suite, const char *name, double seconds,
		enum junit_result result, const char *message, const char *out, size_t out_len)
{
	FILE *f = j->cases;
	j->tests++;
	j->seconds += seconds;
	fputs("    <testcase classname=\"", f);
	xml_str(f, suite);
	fputs("\" name=\"", f);
	xml_str(f, name);
	fprintf(f, "\" time=\"%.3f\">\n", seconds);
	if (result == JUNIT_FAILED) {
		j->failures++;
		fputs("      <failure message=\"", f);
		xml_str(f, message ? message : "failed");
		fputs("\"/>\n", f);
	} else if (result == JUNIT_SKIPPED) {
		j->skipped++;
		fputs("      <skipped message=\"", f);
		xml_str(f, message ? message : "not run");
		fputs("\"/>\n", f);
	}
	if (out && out_len) {
		fputs("      <system-out>", f);
		xml_text(f, out, out_len);
		fputs("</system-out>\n", f);
	}
	fputs("    </testcase>\n", f);
}

bool junit_close(struct junit *j, const char *suite)
{
	fclose(j->cases);
	FILE *f = fopen(j->path, "w");
	if (f) {
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
		      "  <testsuite name=\"", f);
		xml_str(f, suite);
		fprintf(f, "\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"%d\""
			" time=\"%.3f\">\n", j->tests, j->failures, j->skipped, j->seconds);
		fwrite(j->buf, 1, j->len, f);
		fputs("  </testsuite>\n</testsuites>\n", f);
	}
	bool ok = f && !ferror(f);
	if (f && fclose(f) != 0)
		ok = false;
	if (!ok)
		perror(j->path);
	free(j->buf);
	free(j);
	return ok;
}
