// Opening a CUDA library at run time (cuBLAS in cublas.cpp, cuFFT in cufft.cpp; Design rule [Run-time libraries]): the
// first candidate path, then the first bare soname (resolved by the system loader), that dlopen accepts.
#pragma once

#include <dlfcn.h>

#include <initializer_list>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"

namespace yaten::cuda {

struct OpenedLibrary {
  void* handle = nullptr;  // nullptr when nothing opened; `tried` then says why, a line per candidate
  std::string path;
  std::string tried;
};

inline OpenedLibrary open_first(const std::vector<std::string>& candidates, std::initializer_list<const char*> sonames) {
  std::vector<std::string> tried = candidates;
  for (const char* soname : sonames) tried.emplace_back(soname);
  OpenedLibrary out;
  std::ostringstream errors;
  for (const std::string& path : tried) {
    if (void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      out.handle = handle;
      out.path = path;
      return out;
    }
    const char* why = dlerror();
    errors << "\n  " << path << ": " << (why ? why : "cannot open");
  }
  out.tried = errors.str();
  return out;
}

// A symbol of an opened library, or a RuntimeError naming it and what to install.
inline void* library_symbol(const OpenedLibrary& lib, const char* name, const char* what, const char* install) {
  void* p = dlsym(lib.handle, name);
  YATEN_CHECK(p != nullptr, RuntimeError, what, ": ", lib.path, " has no symbol ", name, " (", install, ")");
  return p;
}

// A library opened the first time it is needed, once per process (cuBLAS, cuFFT): the candidate paths Python gave
// (the wheel's, found by yaten/_cuda_libs.py), then the bare sonames. `Table` holds `std::string path` and the
// function pointers, which `fill(table, symbols)` binds by name through `symbols.bind(pointer, "name")`. When none
// opens, `get` raises RuntimeError with `missing` and every path tried; a missing symbol raises naming `install`.
template <typename Table>
class LazyLibrary {
 public:
  struct Symbols {
    const OpenedLibrary& opened;
    const char* what;
    const char* install;
    template <typename Fn>
    void bind(Fn& slot, const char* name) const {
      slot = reinterpret_cast<Fn>(library_symbol(opened, name, what, install));
    }
  };
  using Fill = void (*)(Table&, const Symbols&);

  LazyLibrary(const char* what, std::initializer_list<const char*> sonames, const char* missing, const char* install,
              Fill fill)
      : what_(what), sonames_(sonames), missing_(missing), install_(install), fill_(fill) {}

  void set_candidates(const std::vector<std::string>& paths) {
    std::lock_guard<std::mutex> lock(mutex_);
    candidates_ = paths;
  }

  const Table& get() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (table_ != nullptr) return *table_;
    std::vector<std::string> tried = candidates_;
    for (const char* soname : sonames_) tried.emplace_back(soname);
    const OpenedLibrary opened = open_first(tried, {});
    YATEN_CHECK(opened.handle != nullptr, RuntimeError, missing_, " Tried:", opened.tried);
    auto* table = new Table();  // never freed: the library stays open for the process
    table->path = opened.path;
    fill_(*table, Symbols{opened, what_, install_});
    table_ = table;
    return *table_;
  }

 private:
  const char* what_;
  std::vector<const char*> sonames_;
  const char* missing_;
  const char* install_;
  Fill fill_;
  std::mutex mutex_;
  std::vector<std::string> candidates_;
  Table* table_ = nullptr;
};

}  // namespace yaten::cuda
