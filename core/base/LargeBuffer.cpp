#include "core/base/LargeBuffer.h"

#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace trainplan {

void* allocateLarge(std::size_t bytes)
{
    if (bytes < kLargeBufferBytes) {
        void* small = std::malloc(bytes > 0 ? bytes : 1);
        if (!small)
            throw std::bad_alloc();
        return small;
    }
    // Whole huge pages, aligned to one, so every page of the buffer can be a huge page.
    if (bytes > std::size_t(-1) - kHugePageBytes)
        throw std::bad_alloc();
    const std::size_t rounded = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    void* buffer = std::aligned_alloc(kHugePageBytes, rounded);
    if (!buffer)
        throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    madvise(buffer, rounded, MADV_HUGEPAGE);  // a hint: its failure leaves ordinary pages
#endif
    return buffer;
}

void releaseLarge(void* buffer) noexcept
{
    std::free(buffer);  // malloc and aligned_alloc memory alike
}

}  // namespace trainplan
