/*
 * What a dynamically linked program needs on the target: its interpreter
 * (PT_INTERP) and the closure of its DT_NEEDED libraries, found as
 * glibc's ld.so finds them: DT_RPATH (when there is no DT_RUNPATH),
 * DT_RUNPATH, then the directories of /etc/ld.so.conf (which
 * ld.so.cache is built from) and the system's own, each with $ORIGIN
 * replaced; a candidate of another ELF class or machine is skipped, as
 * ld.so skips it. With a sysroot every path is looked up under it and
 * named on the target without it.
 */
#include <elf.h>
#include <fcntl.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "baremon.h"

#define MAX_DIRS 64

static const char *const system_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
	"/lib", "/usr/lib", NULL };

/* An ELF file's dynamic facts. */
struct elf_dyn {
	char interp[PATH_MAX];
	char needed[DYN_MAX_FILES][256];
	int nneeded;
	char rpath[1024], runpath[1024];
};

static bool read_at(int fd, void *buf, size_t n, uint64_t off)
{
	return pread(fd, buf, n, (off_t)off) == (ssize_t)n;
}

/* A 64-bit little-endian x86-64 ELF file? */
static bool is_x86_64_elf(int fd, Elf64_Ehdr *eh)
{
	return read_at(fd, eh, sizeof(*eh), 0) && memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
	       eh->e_ident[EI_CLASS] == ELFCLASS64 && eh->e_ident[EI_DATA] == ELFDATA2LSB &&
	       eh->e_machine == EM_X86_64 && eh->e_phentsize == sizeof(Elf64_Phdr);
}

/* The file offset of virtual address va (a PT_LOAD maps it), or 0. */
static uint64_t va_to_off(const Elf64_Phdr *ph, int n, uint64_t va)
{
	for (int i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && va >= ph[i].p_vaddr &&
		    va - ph[i].p_vaddr < ph[i].p_filesz)
			return ph[i].p_offset + (va - ph[i].p_vaddr);
	return 0;
}

static void read_string(int fd, uint64_t off, char *out, size_t max)
{
	ssize_t n = pread(fd, out, max - 1, (off_t)off);
	out[n > 0 ? n : 0] = 0;
}

/* The dynamic section's NEEDED, RPATH and RUNPATH strings. */
static void read_dynamic(int fd, const Elf64_Phdr *ph, int n, const Elf64_Phdr *dynph,
			 struct elf_dyn *d)
{
	size_t count = dynph->p_filesz / sizeof(Elf64_Dyn);
	Elf64_Dyn *dyn = calloc(count ? count : 1, sizeof(*dyn));
	if (!dyn || !read_at(fd, dyn, count * sizeof(*dyn), dynph->p_offset)) {
		free(dyn);
		return;
	}
	uint64_t strtab = 0;
	for (size_t i = 0; i < count && dyn[i].d_tag != DT_NULL; i++)
		if (dyn[i].d_tag == DT_STRTAB)
			strtab = va_to_off(ph, n, dyn[i].d_un.d_ptr);
	for (size_t i = 0; strtab && i < count && dyn[i].d_tag != DT_NULL; i++) {
		uint64_t at = strtab + dyn[i].d_un.d_val;
		if (dyn[i].d_tag == DT_NEEDED && d->nneeded < DYN_MAX_FILES)
			read_string(fd, at, d->needed[d->nneeded++], sizeof(d->needed[0]));
		else if (dyn[i].d_tag == DT_RPATH)
			read_string(fd, at, d->rpath, sizeof(d->rpath));
		else if (dyn[i].d_tag == DT_RUNPATH)
			read_string(fd, at, d->runpath, sizeof(d->runpath));
	}
	free(dyn);
}

/* Parse path's interpreter and dynamic section: false if it is not an
 * x86-64 ELF file; d->interp is "" and nneeded 0 for a static one. */
static bool elf_dyn_read(const char *path, struct elf_dyn *d)
{
	memset(d, 0, sizeof(*d));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf64_Ehdr eh;
	if (fd < 0)
		return false;
	if (!is_x86_64_elf(fd, &eh) || eh.e_phnum == 0 || eh.e_phnum > 256) {
		close(fd);
		return false;
	}
	Elf64_Phdr ph[256];
	bool ok = read_at(fd, ph, eh.e_phnum * sizeof(Elf64_Phdr), eh.e_phoff);
	for (int i = 0; ok && i < eh.e_phnum; i++) {
		if (ph[i].p_type == PT_INTERP && ph[i].p_filesz < sizeof(d->interp))
			read_string(fd, ph[i].p_offset, d->interp,
				    ph[i].p_filesz ? ph[i].p_filesz : 1);
		if (ph[i].p_type == PT_DYNAMIC)
			read_dynamic(fd, ph, eh.e_phnum, &ph[i], d);
	}
	close(fd);
	return ok;
}

static bool is_usable_lib(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf64_Ehdr eh;
	bool ok = fd >= 0 && is_x86_64_elf(fd, &eh);
	if (fd >= 0)
		close(fd);
	return ok;
}

/* The directories of an ld.so.conf file, with its includes. */
static void conf_dirs(const char *sysroot, const char *conf, char dirs[][PATH_MAX],
		      int *n, int depth)
{
	char path[PATH_MAX * 2], line[PATH_MAX];
	snprintf(path, sizeof(path), "%s%s", sysroot, conf);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *s = line + strspn(line, " \t");
		s[strcspn(s, "#\r\n")] = 0;
		if (strncmp(s, "include", 7) == 0 && (s[7] == ' ' || s[7] == '\t') && depth < 4) {
			char *pat = s + 8 + strspn(s + 8, " \t");
			char full[PATH_MAX * 2];
			glob_t g;
			snprintf(full, sizeof(full), "%s%s%s", sysroot, pat[0] == '/' ? "" : "/etc/", pat);
			if (glob(full, 0, NULL, &g) == 0)
				for (size_t i = 0; i < g.gl_pathc; i++)
					conf_dirs("", g.gl_pathv[i], dirs, n, depth + 1);
			globfree(&g);
		} else if (s[0] == '/' && *n < MAX_DIRS) {
			s[strcspn(s, " \t")] = 0;
			snprintf(dirs[(*n)++], PATH_MAX, "%s", s);
		}
	}
	if (f)
		fclose(f);
}

/* One search path ("a:b:$ORIGIN/c") into dirs, $ORIGIN as origin. */
static void add_path(const char *list, const char *origin, char dirs[][PATH_MAX], int *n)
{
	char copy[1024];
	snprintf(copy, sizeof(copy), "%s", list);
	for (char *save, *d = strtok_r(copy, ":", &save); d && *n < MAX_DIRS;
	     d = strtok_r(NULL, ":", &save)) {
		const char *rest = NULL;
		if (strncmp(d, "$ORIGIN", 7) == 0)
			rest = d + 7;
		else if (strncmp(d, "${ORIGIN}", 9) == 0)
			rest = d + 9;
		if (rest)
			snprintf(dirs[(*n)++], PATH_MAX, "%s%s", origin, rest);
		else
			snprintf(dirs[(*n)++], PATH_MAX, "%s", d);
	}
}

static bool have_file(const struct dyn_closure *c, const char *guest)
{
	for (int i = 0; i < c->n; i++)
		if (strcmp(c->f[i].guest, guest) == 0)
			return true;
	return false;
}

static int add_file(struct dyn_closure *c, const char *host, const char *guest)
{
	if (!guest[0])
		return -1;
	if (have_file(c, guest))
		return 0;
	if (c->n == DYN_MAX_FILES)
		return -1;
	snprintf(c->f[c->n].host, sizeof(c->f[0].host), "%s", host);
	snprintf(c->f[c->n].guest, sizeof(c->f[0].guest), "%s", guest);
	c->n++;
	return 0;
}

/* The guest's name for a host path: the same path without the sysroot,
 * except beside the program (its $ORIGIN), which goes beside its copy. */
static void guest_name(const struct dyn_closure *c, const char *host, char *out, size_t max)
{
	char dir[PATH_MAX], real[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", host);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	size_t sl = strlen(c->sysroot);
	int w;
	if (realpath(slash ? dir : ".", real) && strcmp(real, c->prog_dir) == 0)
		w = snprintf(out, max, "%s/%s", c->guest_dir, slash ? slash + 1 : host);
	else
		w = snprintf(out, max, "%s", sl && strncmp(host, c->sysroot, sl) == 0 ? host + sl : host);
	if (w < 0 || (size_t)w >= max)
		out[0] = 0; /* too long for a path: add_file refuses "" */
}

/* Find library name for the object at obj_path (its dynamic facts d). */
static int find_lib(struct dyn_closure *c, const char *obj_path, const struct elf_dyn *d,
		    const char *name, char *found)
{
	static char dirs[MAX_DIRS][PATH_MAX];
	int n = 0;
	char origin[PATH_MAX], tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s", obj_path);
	snprintf(origin, sizeof(origin), "%s", dirname(tmp));
	if (strchr(name, '/')) {
		snprintf(found, PATH_MAX, "%s", name);
		return is_usable_lib(found) ? 0 : -1;
	}
	if (!d->runpath[0])
		add_path(d->rpath, origin, dirs, &n);
	add_path(d->runpath, origin, dirs, &n);
	conf_dirs(c->sysroot, "/etc/ld.so.conf", dirs, &n, 0);
	for (int i = 0; system_dirs[i] && n < MAX_DIRS; i++)
		snprintf(dirs[n++], PATH_MAX, "%s", system_dirs[i]);
	for (int i = 0; i < n; i++) {
		/* $ORIGIN dirs are host paths already; the others are the
		 * target's, found under the sysroot. */
		bool hostdir = strncmp(dirs[i], origin, strlen(origin)) == 0;
		int w = snprintf(found, PATH_MAX, "%s%s/%s", hostdir ? "" : c->sysroot, dirs[i], name);
		if (w > 0 && w < PATH_MAX && is_usable_lib(found))
			return 0;
	}
	return -1;
}

int dyn_closure(const char *prog, const char *sysroot, const char *guest_prog,
		struct dyn_closure *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->sysroot, sizeof(c->sysroot), "%s", sysroot ? sysroot : "");
	char tmp[PATH_MAX];
	if (!realpath(prog, tmp))
		return -1;
	snprintf(c->prog_dir, sizeof(c->prog_dir), "%s", dirname(tmp));
	snprintf(tmp, sizeof(tmp), "%s", guest_prog);
	snprintf(c->guest_dir, sizeof(c->guest_dir), "%s", dirname(tmp));
	static struct elf_dyn d;
	if (!elf_dyn_read(prog, &d) || !d.interp[0])
		return 0; /* static, or not x86-64 ELF (a script): nothing to carry */
	snprintf(c->interp, sizeof(c->interp), "%s", d.interp);
	int w = snprintf(tmp, sizeof(tmp), "%s%s", c->sysroot, d.interp);
	if (w < 0 || (size_t)w >= sizeof(tmp) || add_file(c, tmp, d.interp))
		return -1;
	/* Breadth first over the objects found so far (c->f[1..]); the
	 * program itself first. */
	char obj[PATH_MAX];
	snprintf(obj, sizeof(obj), "%s", prog);
	for (int next = 1;; next++) {
		const char *interp_name = strrchr(c->interp, '/');
		for (int i = 0; i < d.nneeded; i++) {
			char found[PATH_MAX], guest[PATH_MAX];
			/* libc's ld-linux-x86-64.so.2 is the interpreter, loaded
			 * already: ld.so matches it by name */
			if (interp_name && strcmp(d.needed[i], interp_name + 1) == 0)
				continue;
			if (find_lib(c, obj, &d, d.needed[i], found)) {
				fprintf(stderr, "baremon: %s needs %s, not found%s%s\n", obj,
					d.needed[i], c->sysroot[0] ? " under " : "", c->sysroot);
				return -1;
			}
			guest_name(c, found, guest, sizeof(guest));
			if (add_file(c, found, guest))
				return -1;
		}
		if (next >= c->n)
			break;
		snprintf(obj, sizeof(obj), "%s", c->f[next].host);
		if (!elf_dyn_read(obj, &d))
			return -1;
	}
	return 0;
}
