/*
 * ctype.h: character classes of the "C" locale (ASCII only).
 *
 * Every function accepts any int. Values outside 0..127 (including EOF)
 * belong to no class and are returned unchanged by toupper/tolower, as in
 * the "C" locale of other C libraries.
 */
#ifndef LIBC_LITE_CTYPE_H
#define LIBC_LITE_CTYPE_H

int isdigit(int c);   /* '0'..'9' */
int isxdigit(int c);  /* '0'..'9', 'a'..'f', 'A'..'F' */
int isspace(int c);   /* ' ', '\t', '\n', '\v', '\f', '\r' */
int isupper(int c);   /* 'A'..'Z' */
int islower(int c);   /* 'a'..'z' */
int isalpha(int c);   /* isupper || islower */
int isalnum(int c);   /* isalpha || isdigit */
int isprint(int c);   /* ' '..'~' */
int ispunct(int c);   /* isprint, not isalnum, not ' ' */
int toupper(int c);   /* 'a'..'z' -> 'A'..'Z'; anything else unchanged */
int tolower(int c);   /* 'A'..'Z' -> 'a'..'z'; anything else unchanged */

#endif
