// libdynthrow.so: C++ code in a shared library that throws through its
// own frames to its caller in the program.
#include <stdexcept>
#include <string>

struct Guard {
	int *count;
	explicit Guard(int *c) : count(c) {}
	~Guard() { ++*count; }
};

static void deeper(int n, int *destroyed)
{
	Guard g(destroyed);
	if (n == 0)
		throw std::runtime_error("thrown " + std::to_string(3) + " frames down");
	deeper(n - 1, destroyed);
}

void lib_throw(int *destroyed)
{
	deeper(2, destroyed);
}
