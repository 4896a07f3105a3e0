#pragma once
// STRATA_ASAN: 1 when this file is compiled with AddressSanitizer, by gcc (which defines
// __SANITIZE_ADDRESS__) or by clang (which answers __has_feature(address_sanitizer); clang
// 14 does not define gcc's macro). ASan brings its own allocator, so code and tests about
// glibc's arenas check it.
// Thread-safe (a macro).

#if defined(__SANITIZE_ADDRESS__)
#define STRATA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STRATA_ASAN 1
#endif
#endif
#ifndef STRATA_ASAN
#define STRATA_ASAN 0
#endif
