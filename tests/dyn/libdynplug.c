/* libdynplug.so: what dyn-dlopen loads at run time: a constructor and a
 * destructor, a function, data and __thread data (dynamic TLS). */
static int constructed;
static void (*on_unload)(void);
__thread int plug_tls = 5;
int plug_data[1000] = { 1, 2, 3 };

__attribute__((constructor)) static void plug_init(void)
{
	constructed = 1;
}

__attribute__((destructor)) static void plug_fini(void)
{
	if (on_unload)
		on_unload();
}

int plug_constructed(void)
{
	return constructed;
}

void plug_set_unload(void (*fn)(void))
{
	on_unload = fn;
}

int plug_add(int a, int b)
{
	return a + b + plug_data[2];
}

int plug_tls_next(void)
{
	return ++plug_tls;
}
