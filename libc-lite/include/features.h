/*
 * features.h: a tripwire. Every glibc header includes <features.h>; with
 * libc-lite's include directory first on the path, a program that asks
 * for a header libc-lite lacks would silently get glibc's from
 * /usr/include (searched last, for the uapi headers). This file turns
 * that into an error naming the cause. Add the missing header to
 * libc-lite/include instead.
 */
#error "a glibc header was included: libc-lite has no such header (see the include chain above)"
