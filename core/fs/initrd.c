/* The initrd archive: set once at boot, read-only afterwards. */
#include "initrd.h"
#include "core/kernel.h"
#include "core/mm/mm.h"

static const void *archive;
static size_t archive_size;

void initrd_init(uint64_t phys, uint64_t size)
{
	if (!phys) {
		klog("initrd: none");
		return;
	}
	archive = phys_to_virt(phys);
	archive_size = size;
	size_t off = 0, files = 0;
	struct cpio_entry e;
	int r;
	while ((r = cpio_next(archive, archive_size, &off, &e)) > 0)
		files++;
	if (r < 0)
		klog("initrd: archive damaged after %zu entries: %s", files,
		     cpio_strerror(r));
	klog("initrd: %zu bytes, %zu entries", (size_t)size, files);
}

bool initrd_find(const char *path, struct cpio_entry *out)
{
	return archive && cpio_find(archive, archive_size, path, out) == 1;
}

void initrd_foreach(bool (*fn)(const struct cpio_entry *e, void *ctx), void *ctx)
{
	size_t off = 0;
	struct cpio_entry e;
	while (archive && cpio_next(archive, archive_size, &off, &e) > 0)
		if (!fn(&e, ctx))
			return;
}
