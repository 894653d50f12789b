// Memory for buffers of 256 KiB or more (schedule events, the search's row chunks, the
// timeline's level-of-detail image and op index), asked to be backed by transparent huge pages.
//
// Why: fresh memory costs one page fault per 4 KiB page on first touch. On this project's
// virtual machines a fault costs 11.4 us (measured: 64 MiB touched in 187 ms, once resident
// 3.3 ms), so the 7 MB the timeline needed on the first drag onto 64 pipeline stages cost
// about 20 ms of a 46 ms slider tick. A 2 MiB huge page faults once (the same 64 MiB with
// MADV_HUGEPAGE: 5.4 ms). Linux honours the hint when transparent huge pages are "always" or
// "madvise" (Debian's default); elsewhere, or with them off, the memory is ordinary.
#pragma once

#include <cstddef>
#include <new>

namespace trainplan {

// Buffers from this size up get the hint; smaller ones are plain malloc. A quarter of a huge page:
// from 1 MiB, the first drag onto 32 stages or TP 512 still faulted 240-260 fresh 4 KiB pages
// (events of 0.4-1 MB and the timeline's copy and index of them, about 3 ms); from 256 KiB those
// ticks faulted 14-30 (first visits 9.3-10.7 -> 6.5-8.1 ms at 1920x1080, three alternated runs),
// for at most 2 MiB of address space per such buffer.
inline constexpr std::size_t kLargeBufferBytes = std::size_t(256) << 10;
inline constexpr std::size_t kHugePageBytes = std::size_t(2) << 20;
// Below glibc's largest heap block with room for the rounding and the alignment, so freed
// buffers return to malloc's heap and are reused rather than mapped afresh.
inline constexpr std::size_t kWholeHugePagesUpTo = std::size_t(16) << 20;

// Uninitialised storage for `bytes` bytes, aligned to at least alignof(std::max_align_t), marked
// for transparent huge pages: up to kWholeHugePagesUpTo as allocateHugePages() gives it (every
// page a huge page), above that from malloc at exactly the size asked with the whole huge pages
// inside it marked. Rounding a big buffer up to aligned pages would ask for more than glibc's
// largest heap block (32 MiB) and map fresh memory every time: a p = 64, m = 1,024, v = 4
// step's 33.5 MB of events took a fresh simulation from 6.8 to 26 ms that way. Throws
// std::bad_alloc when there is none. Free it with releaseLarge().
void* allocateLarge(std::size_t bytes);
// Whole huge pages, aligned to one and marked: for chunks kept for a long run of work (the
// search's rows), where every page of the chunk should be a huge page. Free with releaseLarge().
void* allocateHugePages(std::size_t bytes);
void releaseLarge(void* buffer) noexcept;

// An allocator for std::vector whose storage comes from allocateLarge().
template <class T>
struct LargeBufferAllocator {
    using value_type = T;
    LargeBufferAllocator() = default;
    template <class U>
    LargeBufferAllocator(const LargeBufferAllocator<U>&) noexcept
    {
    }
    T* allocate(std::size_t n)
    {
        if (n > std::size_t(-1) / sizeof(T))
            throw std::bad_array_new_length();
        return static_cast<T*>(allocateLarge(n * sizeof(T)));
    }
    void deallocate(T* p, std::size_t) noexcept { releaseLarge(p); }
    template <class U>
    bool operator==(const LargeBufferAllocator<U>&) const noexcept
    {
        return true;
    }
};

}  // namespace trainplan
