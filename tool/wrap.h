/* SPDX-License-Identifier: GPL-2.0 */
/* Word wrapping for text meant for an 80-column terminal. */

#ifndef NSCAPS_WRAP_H
#define NSCAPS_WRAP_H

#include <stdio.h>
#include <string.h>

/*
 * Print @text wrapped to end by column @columns: the first line after
 * @first, the others indented by @indent spaces.
 */
static inline void wrap(const char *first, int indent, int columns,
			const char *text)
{
	int width = columns - (int)strlen(first), len;
	const char *p = text;

	printf("%s", first);
	while (*p) {
		len = strlen(p);
		if (len > width) {
			len = width;
			while (len > 0 && p[len] != ' ')
				len--;
			if (!len)
				len = width;
		}
		printf("%.*s\n", len, p);
		p += len;
		while (*p == ' ')
			p++;
		if (*p)
			printf("%*s", indent, "");
		width = columns - indent;
	}
}

#endif /* NSCAPS_WRAP_H */
