#include "tenet_cost/output.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unistd.h>

#include "tenet_cost/error.hpp"

namespace tenet_cost {

void write_output(const std::string& path, std::string_view content) {
  if (path.empty() || path == "-") {
    std::cout.write(content.data(), static_cast<std::streamsize>(content.size()));
    std::cout.flush();
    if (!std::cout) throw InputError("cannot write to standard output");
    return;
  }
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string tmpl = (dir / (target.filename().string() + ".tmp.XXXXXX")).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) throw InputError(path + ": cannot create a temporary file: " + std::strerror(errno));
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(tmpl.c_str());
      throw InputError(path + ": write failed: " + why);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) {
    ::unlink(tmpl.c_str());
    throw InputError(path + ": write failed: " + std::strerror(errno));
  }
  if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmpl.c_str());
    throw InputError(path + ": cannot rename the temporary file into place: " + why);
  }
}

std::string read_file(const std::string& path, std::size_t max_bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw InputError(path + ": is a directory, expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open file: " + std::strerror(errno));
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) throw InputError(path + ": cannot read file");
  if (static_cast<std::size_t>(size) > max_bytes)
    throw InputError(path + ": file is " + std::to_string(size) + " bytes, over the limit of " +
                     std::to_string(max_bytes) + " bytes");
  in.seekg(0, std::ios::beg);
  std::string data(static_cast<std::size_t>(size), '\0');
  in.read(data.data(), size);
  if (!in) throw InputError(path + ": cannot read file");
  return data;
}

}  // namespace tenet_cost
