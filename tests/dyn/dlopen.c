/*
 * dlopen: a library built with the test (libdynplug.so, beside the
 * program) loaded at run time: its constructor, symbols, dynamic TLS per
 * thread, dlerror for a missing one, its destructor at dlclose.
 */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <unistd.h>
#include "abi.h"

static int unloaded;
static int (*tls_next)(void);

static void note_unload(void)
{
	unloaded = 1;
}

static void *worker(void *arg)
{
	return (void *)(long)(tls_next() == 6 && tls_next() == 7);
}

int main(void)
{
	char exe[PATH_MAX], lib[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	snprintf(lib, sizeof(lib), "%s/libdynplug.so", dirname(exe));
	CHECK(dlopen("/nonexistent/libnothing.so", RTLD_NOW) == NULL && dlerror() != NULL,
	      "dlopen of a missing library fails with a dlerror message");
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!CHECK(h != NULL, "dlopen of libdynplug.so")) {
		printf("#   %s\n", dlerror());
		return abi_done("dyn-dlopen");
	}
	int (*constructed)(void) = (int (*)(void))dlsym(h, "plug_constructed");
	int (*add)(int, int) = (int (*)(int, int))dlsym(h, "plug_add");
	void (*set_unload)(void (*)(void)) = (void (*)(void (*)(void)))dlsym(h, "plug_set_unload");
	tls_next = (int (*)(void))dlsym(h, "plug_tls_next");
	int *data = dlsym(h, "plug_data");
	CHECK(constructed && add && set_unload && tls_next && data, "dlsym finds its symbols");
	CHECK(dlsym(h, "plug_missing") == NULL && dlerror() != NULL,
	      "dlsym of a missing symbol is NULL with a dlerror message");
	CHECK(constructed && constructed(), "its constructor ran");
	CHECK(add && add(2, 3) == 8, "its function runs with its data");
	CHECK(data && data[0] == 1 && data[999] == 0, "its data and bss are there");
	CHECK(tls_next && tls_next() == 6 && tls_next() == 7, "its dynamic TLS starts initialised");
	pthread_t t;
	void *r = NULL;
	if (tls_next) {
		pthread_create(&t, NULL, worker, NULL);
		pthread_join(t, &r);
	}
	CHECK(r != NULL, "another thread gets its own copy of the dynamic TLS");
	if (set_unload)
		set_unload(note_unload);
	CHECK(dlclose(h) == 0 && unloaded, "dlclose runs its destructor");
	return abi_done("dyn-dlopen");
}
