// cxx: C++ in a dynamic program: an exception thrown in a shared library
// (libdynthrow.so) caught here with the destructors of every frame run,
// one from libstdc++, one carried between threads, and a walk of the
// stack by libgcc_s's unwinder.
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>
#include <unwind.h>
extern "C" {
#include "abi.h"
}

void lib_throw(int *destroyed);

static _Unwind_Reason_Code count_frame(struct _Unwind_Context *, void *arg)
{
	++*static_cast<int *>(arg);
	return _URC_NO_REASON;
}

static volatile int sink;

__attribute__((noinline)) static int walk(int depth)
{
	if (depth > 0) {
		int r = walk(depth - 1);
		sink = depth; /* not a tail call: each level keeps its frame */
		return r;
	}
	int frames = 0;
	_Unwind_Backtrace(count_frame, &frames);
	return frames;
}

int main()
{
	int destroyed = 0;
	std::string what;
	try {
		lib_throw(&destroyed);
	} catch (const std::runtime_error &e) {
		what = e.what();
	}
	CHECK(what == "thrown 3 frames down", "an exception from a shared library is caught");
	CHECK(destroyed == 3, "the destructors of the frames it left ran (%d)", destroyed);
	bool range = false;
	try {
		std::vector<int> v(3);
		(void)v.at(10);
	} catch (const std::out_of_range &) {
		range = true;
	}
	CHECK(range, "libstdc++'s own exception is caught");
	std::exception_ptr ep;
	std::thread t([&ep] {
		try {
			throw std::logic_error("from a thread");
		} catch (...) {
			ep = std::current_exception();
		}
	});
	t.join();
	bool rethrown = false;
	try {
		if (ep)
			std::rethrow_exception(ep);
	} catch (const std::logic_error &e) {
		rethrown = std::string(e.what()) == "from a thread";
	}
	CHECK(rethrown, "an exception carried out of a std::thread is rethrown");
	int frames = walk(5);
	CHECK(frames >= 7, "the unwinder walks the stack (%s frames)", frames >= 7 ? "7 or more" : "too few");
	return abi_done("dyn-cxx");
}
