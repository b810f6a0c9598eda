#pragma once
// TG_ADDRESS_SANITIZER is 1 in a build with AddressSanitizer, else 0. GCC defines
// __SANITIZE_ADDRESS__; clang 14 does not, and answers __has_feature(address_sanitizer) instead.
#if defined(__SANITIZE_ADDRESS__)
#define TG_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TG_ADDRESS_SANITIZER 1
#endif
#endif
#ifndef TG_ADDRESS_SANITIZER
#define TG_ADDRESS_SANITIZER 0
#endif
