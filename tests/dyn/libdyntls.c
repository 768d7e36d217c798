/* libdyntls.so: a shared library with initialised and zeroed __thread
 * variables (its TLS block comes from ld.so's static TLS). */
__thread int lib_tls = 7;
__thread char lib_tls_bss[4096];

int *lib_tls_addr(void)
{
	return &lib_tls;
}

int lib_tls_bump(void)
{
	lib_tls_bss[4095]++;
	return ++lib_tls;
}
