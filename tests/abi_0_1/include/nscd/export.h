/**
 * @file export.h
 * @brief Symbol visibility macro of libnscd.
 *
 * Every public function is declared with ::NSCD_API. The library is built with
 * hidden visibility, so only functions marked this way (and named `nscd_*`,
 * enforced by a linker version script) are exported.
 */
#ifndef NSCD_EXPORT_H
#define NSCD_EXPORT_H

/**
 * @def NSCD_API
 * @brief Marks a function as part of the exported, ABI-stable interface.
 *
 * Define `NSCD_STATIC` before including nscd headers when linking the static
 * library on platforms where that matters (Windows).
 */
#if defined(_WIN32) && !defined(NSCD_STATIC)
#if defined(NSCD_BUILDING)
#define NSCD_API __declspec(dllexport)
#else
#define NSCD_API __declspec(dllimport)
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define NSCD_API __attribute__((visibility("default")))
#else
#define NSCD_API
#endif

#endif /* NSCD_EXPORT_H */
