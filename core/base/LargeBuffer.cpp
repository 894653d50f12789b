#include "core/base/LargeBuffer.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace trainplan {

namespace {

// A hint: its failure (no THP in the kernel, a range malloc's allocator refuses) leaves
// ordinary pages.
void hintHugePages(std::uintptr_t from, std::size_t bytes)
{
#ifdef MADV_HUGEPAGE
    madvise(reinterpret_cast<void*>(from), bytes, MADV_HUGEPAGE);
#else
    (void)from;
    (void)bytes;
#endif
}

std::uintptr_t hugePageFloor(std::uintptr_t at)
{
    return at / kHugePageBytes * kHugePageBytes;
}

std::uintptr_t hugePageCeiling(std::uintptr_t at)
{
    return hugePageFloor(at + kHugePageBytes - 1);
}

}  // namespace

void* allocateLarge(std::size_t bytes)
{
    // No object can be larger (operator new's limit); sanitizers abort on such a request
    // rather than fail it, so it is refused before malloc sees it.
    if (bytes > std::size_t(PTRDIFF_MAX))
        throw std::bad_alloc();
    if (bytes >= kLargeBufferBytes && bytes <= kWholeHugePagesUpTo)
        return allocateHugePages(bytes);
    void* buffer = std::malloc(bytes > 0 ? bytes : 1);
    if (!buffer)
        throw std::bad_alloc();
    if (bytes > kWholeHugePagesUpTo) {
        const std::uintptr_t start = std::uintptr_t(buffer);
        const std::uintptr_t from = hugePageCeiling(start), to = hugePageFloor(start + bytes);
        if (to > from)
            hintHugePages(from, to - from);
    }
    return buffer;
}

void* allocateHugePages(std::size_t bytes)
{
    if (bytes > std::size_t(PTRDIFF_MAX) - kHugePageBytes)
        throw std::bad_alloc();
    const std::size_t rounded = std::max(kHugePageBytes, std::size_t(hugePageCeiling(bytes)));
    void* buffer = std::aligned_alloc(kHugePageBytes, rounded);
    if (!buffer)
        throw std::bad_alloc();
    hintHugePages(std::uintptr_t(buffer), rounded);
    return buffer;
}

void releaseLarge(void* buffer) noexcept
{
    std::free(buffer);  // malloc and aligned_alloc memory alike
}

}  // namespace trainplan
