// A seam for the tests of write_output (tests/common/test_files.cpp): the write(2) it calls, so that a test can
// make a write fail midway (an I/O error after the space was reserved), which no file system does on demand.
#pragma once

#include <sys/types.h>

#include <cstddef>

namespace tenet_cost::testing {

using WriteFn = ssize_t (*)(int fd, const void* buf, std::size_t n);
/// Replaces the write function (nullptr: the real write(2)); returns the previous one.
WriteFn set_write_function(WriteFn fn);

}  // namespace tenet_cost::testing
