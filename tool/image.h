/* SPDX-License-Identifier: GPL-2.0 */
/* nscaps image: would a user namespace's root be allowed to mount it? */

#ifndef NSCAPS_IMAGE_H
#define NSCAPS_IMAGE_H

#include <stdbool.h>

/*
 * Print whether the EROFS image at @path can be mounted from a user
 * namespace and, if not, which condition fails; text or JSON.  Returns 0
 * if it can, 1 if not.
 */
int image_report(const char *path, bool as_json);

#endif /* NSCAPS_IMAGE_H */
