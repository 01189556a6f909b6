// copy_bytes: memcpy, except where glibc's memcpy is slow.
//
// Note [memcpy at a short distance]: glibc (2.36 here) copies blocks from a few KB to about a megabyte, the pieces
// yaten's parallel copies hand it, with `rep movsb`, which on AMD's Zen 3 and 4 runs about 14 times slower when the
// destination lies 1 to 15 bytes after the source modulo 4096 (1.3-1.5 times for 16 to 63): 256 KB pieces of a 1 MB
// copy took 0.30 ms at those distances and 0.022 ms at others (a C loop over distances, this machine). Allocations
// of one size often share their page offset, so a copy into x[1:] of a bool tensor, or the parts after a short
// first one in cat, met it: `change[1:] = ...` in unique_consecutive took 0.30 ms for 1 MB. Those distances go
// through 64-byte vector loads and stores instead (0.028 ms).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace yaten::detail {

inline void copy_bytes(void* dst, const void* src, size_t n) {
  const uintptr_t distance = (reinterpret_cast<uintptr_t>(dst) - reinterpret_cast<uintptr_t>(src)) & 4095;
  if (n < 2048 || distance == 0 || distance >= 64) {
    std::memcpy(dst, src, n);
    return;
  }
  char* to = static_cast<char*>(dst);
  const char* from = static_cast<const char*>(src);
  struct Block {
    unsigned char bytes[64];
  };
  size_t i = 0;
  for (; i + sizeof(Block) <= n; i += sizeof(Block)) {
    Block block;
    std::memcpy(&block, from + i, sizeof block);
    std::memcpy(to + i, &block, sizeof block);
    asm volatile("" ::: "memory");  // keeps the compiler from making the loop a call to memcpy again
  }
  std::memcpy(to + i, from + i, n - i);
}

}  // namespace yaten::detail
