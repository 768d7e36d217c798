/*
 * tls: __thread variables of the program and of a shared library
 * (libdyntls.so, found through the program's RUNPATH $ORIGIN): every
 * thread starts with the initial values and has copies of its own.
 */
#include <pthread.h>
#include "abi.h"

extern __thread int lib_tls;
int *lib_tls_addr(void);
int lib_tls_bump(void);

static __thread long prog_tls = 42;
static __thread long prog_tls_bss;

static void *worker(void *arg)
{
	long ok = prog_tls == 42 && prog_tls_bss == 0 && lib_tls == 7 &&
		  lib_tls_addr() == &lib_tls;
	prog_tls = (long)arg;
	for (int i = 0; i < 5; i++)
		lib_tls_bump();
	ok &= prog_tls == (long)arg && lib_tls == 12;
	return (void *)ok;
}

int main(void)
{
	CHECK(prog_tls == 42 && prog_tls_bss == 0, "the program's TLS starts initialised");
	CHECK(lib_tls == 7, "the library's TLS starts initialised");
	CHECK(lib_tls_addr() == &lib_tls, "the library and the program see one variable");
	CHECK(lib_tls_bump() == 8, "the library changes its TLS");
	prog_tls = 1;
	pthread_t t[3];
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)(100 + i));
	int all = 1;
	for (int i = 0; i < 3; i++) {
		void *r;
		pthread_join(t[i], &r);
		all &= r != NULL;
	}
	CHECK(all, "each thread starts with fresh copies and changes only its own");
	CHECK(prog_tls == 1 && lib_tls == 8, "the main thread's copies are untouched");
	return abi_done("dyn-tls");
}
