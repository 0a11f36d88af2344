// Writing results: to stdout, or atomically to a file (temporary file in the
// same directory + rename), so an error never leaves a partial file behind.
#pragma once

#include <string>
#include <string_view>

namespace tenet_cost {

/// Write `content` to `path` atomically; "-" or "" means standard output.
/// Throws InputError when the file cannot be written.
void write_output(const std::string& path, std::string_view content);

/// Whether two paths name the same file: the same device and inode when both exist, else the same absolute path
/// once `.`, `..` and symbolic links of the existing part are resolved.
bool same_file(const std::string& a, const std::string& b);

/// Read a whole file; throws InputError naming the file when it cannot be
/// read or is larger than `max_bytes`.
std::string read_file(const std::string& path, std::size_t max_bytes = std::size_t{1} << 31);

}  // namespace tenet_cost
