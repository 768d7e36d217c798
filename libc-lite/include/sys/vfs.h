/* sys/vfs.h: the older name of <sys/statfs.h> (libc-lite). */
#include <sys/statfs.h>
