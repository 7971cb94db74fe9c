#pragma once

#include <memory>

namespace chopar::core {

// Owns a C library's handle and frees it with that library's own function:
// CHandle<EVP_PKEY, EVP_PKEY_free> is a std::unique_ptr that calls
// EVP_PKEY_free. Move-only; a null handle is fine. The one way chopar owns
// a C handle (libcurl, OpenSSL), so no file writes its own deleter.
template <auto Free>
struct FreeWith {
  template <typename T>
  void operator()(T* handle) const noexcept {
    Free(handle);
  }
};

template <typename T, auto Free>
using CHandle = std::unique_ptr<T, FreeWith<Free>>;

}  // namespace chopar::core
