// A minimal PNG reader for the browser test: 8-bit grey/RGB/RGBA (+alpha), non-interlaced,
// the five scanline filters; zlib inflates the IDAT stream.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace tc_test {

struct Image {
  std::uint32_t width = 0, height = 0, channels = 0;
  std::vector<std::uint8_t> pixels;  // row-major, `channels` bytes per pixel
  /// Is the pixel visibly not white (any colour channel below 240)?
  [[nodiscard]] bool ink(std::uint32_t x, std::uint32_t y) const {
    const std::uint8_t* p = &pixels[(static_cast<std::size_t>(y) * width + x) * channels];
    const std::uint32_t colours = channels >= 3 ? 3 : 1;
    for (std::uint32_t c = 0; c < colours; ++c)
      if (p[c] < 240) return true;
    return false;
  }
};

inline std::uint32_t be32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

inline Image read_png(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<std::uint8_t> f((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  static const std::uint8_t sig[8] = {137, 80, 78, 71, 13, 10, 26, 10};
  if (f.size() < 8 || !std::equal(sig, sig + 8, f.begin())) throw std::runtime_error(path + ": not a PNG");
  Image img;
  std::vector<std::uint8_t> idat;
  for (std::size_t pos = 8; pos + 12 <= f.size();) {
    const std::uint32_t len = be32(&f[pos]);
    const std::string type(reinterpret_cast<const char*>(&f[pos + 4]), 4);
    if (pos + 12 + len > f.size()) throw std::runtime_error(path + ": truncated chunk");
    const std::uint8_t* data = &f[pos + 8];
    if (type == "IHDR") {
      img.width = be32(data);
      img.height = be32(data + 4);
      const int depth = data[8], colour = data[9], interlace = data[12];
      if (depth != 8 || interlace != 0) throw std::runtime_error(path + ": unsupported PNG depth/interlace");
      switch (colour) {
        case 0: img.channels = 1; break;
        case 2: img.channels = 3; break;
        case 4: img.channels = 2; break;
        case 6: img.channels = 4; break;
        default: throw std::runtime_error(path + ": unsupported PNG colour type");
      }
    } else if (type == "IDAT") {
      idat.insert(idat.end(), data, data + len);
    } else if (type == "IEND") {
      break;
    }
    pos += 12 + len;
  }
  const std::size_t stride = static_cast<std::size_t>(img.width) * img.channels;
  std::vector<std::uint8_t> raw((stride + 1) * img.height);
  uLongf raw_len = static_cast<uLongf>(raw.size());
  if (uncompress(raw.data(), &raw_len, idat.data(), static_cast<uLong>(idat.size())) != Z_OK || raw_len != raw.size())
    throw std::runtime_error(path + ": bad image data");
  img.pixels.assign(stride * img.height, 0);
  const std::size_t bpp = img.channels;
  for (std::size_t y = 0; y < img.height; ++y) {
    const std::uint8_t filter = raw[y * (stride + 1)];
    const std::uint8_t* src = &raw[y * (stride + 1) + 1];
    std::uint8_t* dst = &img.pixels[y * stride];
    const std::uint8_t* up = y > 0 ? &img.pixels[(y - 1) * stride] : nullptr;
    for (std::size_t i = 0; i < stride; ++i) {
      const int a = i >= bpp ? dst[i - bpp] : 0, b = up ? up[i] : 0, c = (up && i >= bpp) ? up[i - bpp] : 0;
      int pred = 0;
      switch (filter) {
        case 0: pred = 0; break;
        case 1: pred = a; break;
        case 2: pred = b; break;
        case 3: pred = (a + b) / 2; break;
        case 4: {
          const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
          pred = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
          break;
        }
        default: throw std::runtime_error(path + ": bad PNG filter");
      }
      dst[i] = static_cast<std::uint8_t>(src[i] + pred);
    }
  }
  return img;
}

}  // namespace tc_test
