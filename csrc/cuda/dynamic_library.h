// Opening a CUDA library at run time (cuBLAS in cublas.cpp, cuFFT in cufft.cpp; DESIGN.md section 5a): the first
// candidate path, then the first bare soname (resolved by the system loader), that dlopen accepts.
#pragma once

#include <dlfcn.h>

#include <initializer_list>
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

}  // namespace yaten::cuda
